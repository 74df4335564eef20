package registry

import (
	"strings"

	"go.podman.io/image/v5/docker/reference"
)

// Mirror redirects pulls by digest of a repository (or of every repository under a prefix) to
// mirrors, as an ImageDigestMirrorSet's imageDigestMirrors or an ImageContentSourcePolicy's
// repositoryDigestMirrors do on OpenShift nodes.
type Mirror struct {
	// Source is a registry, a registry/namespace prefix or a repository.
	Source string
	// Mirrors are tried in order, each with the rest of the reference after Source appended.
	Mirrors []string
	// NeverContactSource forbids falling back to Source (IDMS mirrorSourcePolicy).
	NeverContactSource bool
	// From names the object that declared the mirror, for messages.
	From string
}

// matches reports whether the repository is Source or below it, and returns the rest.
func (m Mirror) matches(repo string) (string, bool) {
	src := strings.TrimSuffix(m.Source, "/")
	if repo == src {
		return "", true
	}
	if rest, ok := strings.CutPrefix(repo, src+"/"); ok {
		return "/" + rest, true
	}
	return "", false
}

// candidates returns the references to try for a pull by digest: the mirrors of the first
// mirror rule that matches (the longest source wins), then the reference itself unless the rule
// forbids it. Pulls by tag are never redirected (that is ImageTagMirrorSet's job, not supported).
func candidates(p parsed, mirrors []Mirror) []parsed {
	if p.digest == "" {
		return []parsed{p}
	}
	var best *Mirror
	var bestRest string
	for i := range mirrors {
		rest, ok := mirrors[i].matches(p.named.Name())
		if ok && (best == nil || len(mirrors[i].Source) > len(best.Source)) {
			best, bestRest = &mirrors[i], rest
		}
	}
	if best == nil {
		return []parsed{p}
	}
	var out []parsed
	for _, m := range best.Mirrors {
		named, err := reference.ParseNormalizedNamed(strings.TrimSuffix(m, "/") + bestRest)
		if err != nil {
			continue
		}
		out = append(out, parsed{named: reference.TrimNamed(named), digest: p.digest})
	}
	if !best.NeverContactSource {
		out = append(out, p)
	}
	return out
}

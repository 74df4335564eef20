package registry

import (
	"fmt"
	"strings"

	"go.podman.io/image/v5/docker/reference"
)

// Mirror redirects pulls of a repository (or of every repository under a prefix) to mirrors,
// as OpenShift nodes apply them: by digest an ImageDigestMirrorSet's imageDigestMirrors or an
// ImageContentSourcePolicy's repositoryDigestMirrors, by tag an ImageTagMirrorSet's
// imageTagMirrors.
type Mirror struct {
	// Source is a registry, a registry/namespace prefix or a repository.
	Source string
	// Mirrors are tried in order, each with the rest of the reference after Source appended.
	Mirrors []string
	// NeverContactSource forbids falling back to Source (mirrorSourcePolicy).
	NeverContactSource bool
	// Tags makes the mirror apply to pulls by tag (ImageTagMirrorSet) instead of by digest.
	Tags bool
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

// candidates returns the references to try for a pull: the mirrors of the rules for pulls of
// its kind (by digest, or by tag) whose source matches it most closely, then the reference
// itself unless one of those rules forbids it. As the machine-config operator does when it
// writes a node's registries.conf, the rules of one source are merged, from every object that
// declares it: their mirrors in the order declared, each once, and no fall back to the source
// when any of them says NeverContactSource.
func candidates(p parsed, mirrors []Mirror) []parsed {
	rules, rest := closest(p, mirrors)
	if len(rules) == 0 {
		return []parsed{p}
	}
	var out []parsed
	seen := map[string]bool{}
	never := false
	for _, rule := range rules {
		never = never || rule.NeverContactSource
		for _, m := range rule.Mirrors {
			named, err := reference.ParseNormalizedNamed(strings.TrimSuffix(m, "/") + rest)
			if err != nil || seen[named.Name()] {
				continue
			}
			seen[named.Name()] = true
			out = append(out, parsed{named: reference.TrimNamed(named), digest: p.digest, tag: p.tag})
		}
	}
	if !never {
		out = append(out, p)
	}
	return out
}

// closest returns the rules for pulls of p's kind whose source matches p's repository most
// closely (the longest source), in the order given, and the rest of the repository after it.
func closest(p parsed, mirrors []Mirror) ([]Mirror, string) {
	byTag := p.digest == ""
	var best []Mirror
	var bestSource, bestRest string
	for _, m := range mirrors {
		if m.Tags != byTag {
			continue
		}
		rest, ok := m.matches(p.named.Name())
		src := strings.TrimSuffix(m.Source, "/")
		switch {
		case !ok || len(src) < len(bestSource):
		case len(src) > len(bestSource) || best == nil:
			best, bestSource, bestRest = []Mirror{m}, src, rest
		case src == bestSource:
			best = append(best, m)
		}
	}
	return best, bestRest
}

// tagMirrorOnly explains a failed pull by digest of a repository that only a tag mirror
// (ImageTagMirrorSet) covers: a node pulls it by digest, as OLM pulls a CatalogSource the render
// pinned, from the source alone. "" when that is not the case.
func tagMirrorOnly(p parsed, mirrors []Mirror) string {
	if p.digest == "" {
		return ""
	}
	if digests, _ := closest(p, mirrors); len(digests) > 0 {
		return ""
	}
	byTag := parsed{named: p.named, tag: "latest"}
	tags, _ := closest(byTag, mirrors)
	if len(tags) == 0 {
		return ""
	}
	return fmt.Sprintf("%s mirrors %s for pulls by tag only: a pull by digest (as the node pulls a CatalogSource olm-render pinned) goes to %s itself; add an ImageDigestMirrorSet for it",
		tags[0].From, tags[0].Source, tags[0].Source)
}

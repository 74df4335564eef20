package registry

import (
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	"go.podman.io/image/v5/docker/reference"
)

// Pinned is an image reference resolved to the digest of its top-level manifest.
type Pinned struct {
	// Name is the repository, fully qualified (docker.io/library/x).
	Name string
	// Digest is the top-level manifest's digest (an index's, for multi-platform images).
	Digest digest.Digest
	// Tag is the tag the reference was resolved from, if any.
	Tag string
}

// String returns name@digest.
func (p Pinned) String() string { return p.Name + "@" + p.Digest.String() }

// parsed is a parsed image reference.
type parsed struct {
	named  reference.Named
	tag    string
	digest digest.Digest
}

// parse parses an image reference: a tag defaults to latest, a digest wins over a tag.
func parse(ref string) (parsed, error) {
	ref = strings.TrimSpace(ref)
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return parsed{}, fmt.Errorf("invalid image reference %q: %w", ref, err)
	}
	p := parsed{named: reference.TrimNamed(named)}
	if c, ok := named.(reference.Canonical); ok {
		p.digest = c.Digest()
		if err := p.digest.Validate(); err != nil {
			return parsed{}, fmt.Errorf("invalid image reference %q: %w", ref, err)
		}
		return p, nil
	}
	p.tag = "latest"
	if t, ok := named.(reference.Tagged); ok {
		p.tag = t.Tag()
	}
	return p, nil
}

// String returns the reference as name@digest or name:tag.
func (p parsed) String() string {
	if p.digest != "" {
		return p.named.Name() + "@" + p.digest.String()
	}
	return p.named.Name() + ":" + p.tag
}

// at returns the reference of the same repository at a digest.
func (p parsed) at(d digest.Digest) parsed {
	return parsed{named: p.named, digest: d}
}

// Normalize returns a reference fully qualified (docker.io/library/x:latest), as keys of pins
// and caches compare it.
func Normalize(ref string) (string, error) {
	p, err := parse(ref)
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// IsPinned reports whether a reference names a digest.
func IsPinned(ref string) bool {
	p, err := parse(ref)
	return err == nil && p.digest != ""
}

// namedForOpen returns the reference to open: name@digest, else name:tag.
func namedForOpen(p parsed) reference.Named {
	if p.digest != "" {
		if n, err := reference.WithDigest(p.named, p.digest); err == nil {
			return n
		}
	}
	n, err := reference.WithTag(p.named, p.tag)
	if err != nil {
		return p.named
	}
	return n
}

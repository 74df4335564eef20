package inputs

import "strings"

// What a catalog was read at, for the targets that make a cluster serve the same bytes the
// render resolved against: a CatalogSource pinned by digest where OLM v0 keeps running, a
// ClusterCatalog where OLM v1 runs.

// ReadAt returns the index digest a bound catalog was read at, and how: pulled from its image,
// or recorded in a vendored snapshot by olm-render catalog pull; "" when neither says (nil, a
// snapshot that records no digest).
func (c *Catalog) ReadAt() (digest, how string) {
	if c == nil || c.Catalog == nil {
		return "", ""
	}
	if c.From.Image != "" {
		if d := ImageDigest(c.Catalog.Image); d != "" {
			return d, "pulled from " + c.Catalog.Image
		}
	}
	if src, ok := c.Catalog.Vendored(); ok {
		return src.Digest(), "vendored from " + src.Image + " by olm-render catalog pull"
	}
	return "", ""
}

// ReadFrom returns the image a bound catalog was read from: the one pulled, else the one a
// vendored snapshot records; "" for a snapshot that records none.
func (c *Catalog) ReadFrom() string {
	if c == nil || c.Catalog == nil {
		return ""
	}
	if src, ok := c.Catalog.Vendored(); ok && c.From.Image == "" {
		return src.Image
	}
	return c.Catalog.Image
}

// SnapshotOf names the snapshot bound to a CatalogSource by what bound it, for messages.
func (c *Catalog) SnapshotOf() string {
	if c == nil {
		return "no snapshot"
	}
	return "the snapshot " + c.BoundBy() + " binds"
}

// Related reports whether two image repositories hold the same content by the inputs' digest
// mirrors: the same repository, or one a mirror of the other (ImageDigestMirrorSets and
// ImageContentSourcePolicies among the inputs).
func (s *Set) Related(a, b string) bool {
	return a == b || mirrored(a, b, s.ImageMirrors) || mirrored(b, a, s.ImageMirrors)
}

// mirrored reports whether the repository mirror is a mirror of the repository source by the
// digest mirrors given.
func mirrored(mirror, source string, mirrors []ImageMirror) bool {
	for _, m := range mirrors {
		if m.Tags {
			continue
		}
		rest, ok := under(source, m.Source)
		if !ok {
			continue
		}
		for _, to := range m.Mirrors {
			if strings.TrimSuffix(to, "/")+rest == mirror {
				return true
			}
		}
	}
	return false
}

// under returns the rest of repo below prefix (a registry, namespace or repository).
func under(repo, prefix string) (string, bool) {
	prefix = strings.TrimSuffix(prefix, "/")
	if repo == prefix {
		return "", true
	}
	if rest, ok := strings.CutPrefix(repo, prefix+"/"); ok {
		return "/" + rest, true
	}
	return "", false
}

// ImageDigest returns the digest of an image reference ("sha256:..."), or "".
func ImageDigest(ref string) string {
	if _, d, ok := strings.Cut(ref, "@"); ok {
		return d
	}
	return ""
}

// ImageRepository returns an image reference without its tag and digest.
func ImageRepository(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref
}

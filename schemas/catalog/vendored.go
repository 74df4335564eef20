package catalog

import (
	"encoding/json"
	"strings"
)

// SourceSchema is the schema of the FBC object in which a vendored snapshot (olm-render
// catalog pull) records its origin. opm and OLM ignore objects of schemas they do not know.
const SourceSchema = "olm-render.dev/source"

// Source is the origin of a vendored snapshot: the index image, by digest, it was cut from and
// the packages asked for.
type Source struct {
	Schema   string   `json:"schema"`
	Image    string   `json:"image"`
	Packages []string `json:"packages,omitempty"`
}

// Digest returns the index image's digest ("sha256:..."), or "" when Image names none.
func (s Source) Digest() string {
	_, d, ok := strings.Cut(s.Image, "@")
	if !ok || !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
		return ""
	}
	return d
}

// Vendored returns the origin a vendored snapshot records, if it records one by digest.
func (c *Catalog) Vendored() (Source, bool) {
	for _, raw := range c.Others {
		var s Source
		if json.Unmarshal(raw, &s) == nil && s.Schema == SourceSchema && s.Digest() != "" {
			return s, true
		}
	}
	return Source{}, false
}

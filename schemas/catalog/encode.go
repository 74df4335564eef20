package catalog

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"runtime/debug"
)

// modelVersion changes whenever what the loaders put into a Catalog changes, so that an encoded
// catalog of an older olm-render is never read as a current one.
const modelVersion = "olm-render-catalog-1"

// EncodingKey identifies this build's catalog encoding: the model version and the build's VCS
// revision when known. Caches of encoded catalogs key on it.
func EncodingKey() string {
	key := modelVersion
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				key += "+" + s.Value
			}
		}
	}
	return key
}

// Marshal encodes a loaded catalog (everything but manifests read from disk or pulled, which the
// loader attaches again) so that Unmarshal restores it without parsing the catalog again.
func Marshal(c *Catalog) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c); err != nil {
		return nil, fmt.Errorf("encoding catalog %s: %w", c.Path, err)
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes what Marshal encoded. Bundles with inline manifests get them back; bundles
// whose manifests came from elsewhere have none until the caller attaches them.
func Unmarshal(data []byte) (*Catalog, error) {
	c := &Catalog{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(c); err != nil {
		return nil, fmt.Errorf("decoding a cached catalog: %w", err)
	}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			b.attachInline()
		}
	}
	return c, nil
}

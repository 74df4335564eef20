package lock

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// What a digest was computed over.
const (
	DigestOfManifests = "manifests"
	DigestOfMetadata  = "metadata"
	DigestOfImage     = "image"
)

// Digest returns the bundle's content digest and what it was computed over (see the package
// documentation). A bundle whose manifests live only in its bundle image, named by digest, is
// digested by that image digest: nothing is pulled.
func Digest(b *catalog.Bundle) (digest, of string, err error) {
	if d := imageContentDigest(b); d != "" {
		return d, DigestOfImage, nil
	}
	m, err := b.Manifests()
	switch {
	case errors.Is(err, catalog.ErrNoManifests):
		d, err := metadataDigest(b)
		return d, DigestOfMetadata, err
	case err != nil:
		return "", "", fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	d, err := manifestDigest(m)
	return d, DigestOfManifests, err
}

func manifestDigest(m *catalog.Manifests) (string, error) {
	type keyed struct {
		key  [4]string
		json []byte
	}
	objs := make([]keyed, 0, len(m.Objects))
	for _, o := range m.Objects {
		js, err := json.Marshal(o.Object)
		if err != nil {
			return "", fmt.Errorf("encoding %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		objs = append(objs, keyed{[4]string{o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName()}, js})
	}
	slices.SortStableFunc(objs, func(a, b keyed) int {
		for i := range a.key {
			if c := cmp.Compare(a.key[i], b.key[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	parts := make([]json.RawMessage, 0, len(objs)+1)
	if m.CSV != nil {
		js, err := json.Marshal(m.CSV)
		if err != nil {
			return "", fmt.Errorf("encoding CSV: %w", err)
		}
		parts = append(parts, canonical(js))
	}
	for _, o := range objs {
		parts = append(parts, o.json)
	}
	all, err := json.Marshal(parts)
	if err != nil {
		return "", err
	}
	return sum(all), nil
}

// canonical re-encodes JSON through a generic value so map keys are sorted.
func canonical(js []byte) json.RawMessage {
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return js
	}
	out, err := json.Marshal(v)
	if err != nil {
		return js
	}
	return out
}

func metadataDigest(b *catalog.Bundle) (string, error) {
	props := slices.Clone(b.Properties)
	for i := range props {
		props[i].Value = canonical(props[i].Value)
	}
	slices.SortStableFunc(props, func(x, y catalog.Property) int {
		return cmp.Or(cmp.Compare(x.Type, y.Type), strings.Compare(string(x.Value), string(y.Value)))
	})
	all, err := json.Marshal(struct {
		Name        string             `json:"name"`
		Package     string             `json:"package"`
		Version     string             `json:"version"`
		Properties  []catalog.Property `json:"properties"`
		CSVMetadata json.RawMessage    `json:"csvMetadata,omitempty"`
	}{b.Name, b.Package, b.Version.String(), props, canonical(b.CSVMetadata)})
	if err != nil {
		return "", fmt.Errorf("bundle %s: encoding metadata: %w", b.Name, err)
	}
	return sum(all), nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// imageContentDigest returns the digest of the bundle image that holds b's manifests when the
// catalog carries none (no olm.bundle.object: an index of olm.csv.metadata, as every OpenShift
// index since 4.17) and names the image by digest: the image is content-addressed, so its digest
// is the bundle's. It returns "" otherwise.
func imageContentDigest(b *catalog.Bundle) string {
	if len(b.InlineObjects) > 0 {
		return ""
	}
	_, d, ok := strings.Cut(b.Image, "@")
	if !ok || !isSHA256(d) {
		return ""
	}
	return d
}

// isSHA256 reports whether d is "sha256:" and 64 lower-case hex digits.
func isSHA256(d string) bool {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != 64 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil && strings.ToLower(hexPart) == hexPart
}

// NeedsManifests reports whether digesting b reads its manifests (pulling its bundle image when
// the catalog names it by tag).
func NeedsManifests(b *catalog.Bundle) bool { return imageContentDigest(b) == "" }

// ImageDigest returns the bundle image by digest (as the catalog names it, or as it was pulled),
// else "".
func ImageDigest(b *catalog.Bundle) string { return b.PinnedImage() }

package lock

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/registry"
)

// CatalogPin records the digest a CatalogSource's index image was read at, so a locked render
// reads the same catalog after its tag moved.
type CatalogPin struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Image is the index image as the inputs give it (spec.image, the annotation or --catalog).
	Image string `json:"image"`
	// Digest is the digest of its top-level manifest.
	Digest string `json:"digest"`
}

// Key returns "namespace/name".
func (p CatalogPin) Key() string { return p.Namespace + "/" + p.Name }

// PinCatalogs records in l the digest of every catalog of set that was pulled from a registry.
func PinCatalogs(l *Lock, set *inputs.Set) {
	l.Catalogs = nil
	for _, c := range set.Catalogs {
		if c.From.Image == "" || c.Catalog == nil || c.Catalog.Image == "" {
			continue
		}
		_, d, _ := strings.Cut(c.Catalog.Image, "@")
		l.Catalogs = append(l.Catalogs, CatalogPin{Namespace: c.Namespace, Name: c.Name, Image: c.From.Image, Digest: d})
	}
	slices.SortFunc(l.Catalogs, func(a, b CatalogPin) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

// ImagePins returns the digest the lock pins each index image reference to, by normalized
// reference.
func (l *Lock) ImagePins() map[string]string {
	out := map[string]string{}
	if l == nil {
		return out
	}
	for _, p := range l.Catalogs {
		if ref, err := registry.Normalize(p.Image); err == nil {
			out[ref] = p.Digest
		}
	}
	return out
}

// BundlePins returns the bundle image, by digest, the lock records for each "package/bundle".
func (l *Lock) BundlePins() map[string]string {
	out := map[string]string{}
	if l == nil {
		return out
	}
	for _, ns := range l.Namespaces {
		for _, e := range ns.Subscriptions {
			if e.Image != "" {
				out[e.Package+"/"+e.Bundle] = e.Image
			}
		}
	}
	return out
}

// catalogChanges lists the catalog pins that differ between two locks.
func catalogChanges(old, new *Lock) []Change {
	pins := func(l *Lock) map[string]CatalogPin {
		m := map[string]CatalogPin{}
		if l != nil {
			for _, p := range l.Catalogs {
				m[p.Key()] = p
			}
		}
		return m
	}
	before, after := pins(old), pins(new)
	var out []Change
	for _, key := range sortedUnion(before, after) {
		b, a := before[key], after[key]
		if b == a {
			continue
		}
		out = append(out, Change{Catalog: key, From: pinString(b), To: pinString(a)})
	}
	return out
}

func pinString(p CatalogPin) string {
	if p.Image == "" {
		return ""
	}
	return fmt.Sprintf("%s (%s)", p.Image, p.Digest)
}

func sortedUnion(a, b map[string]CatalogPin) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

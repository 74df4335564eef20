package catalog

import (
	"encoding/json"
	"sync"
)

// Provided is what a bundle's properties say it provides, decoded: the olm.gvk, olm.package and
// olm.label values (its own package always among the packages). It is read only.
type Provided struct {
	GVKs     map[GVKValue]bool
	Packages map[string]bool
	Labels   map[string]bool
}

// provided decodes a bundle's properties once; the bundles of a catalog shared by several
// resolutions (a fleet's clusters) are decoded once for all.
type provided struct {
	once sync.Once
	p    *Provided
}

// Provided returns what the bundle's properties provide, decoded once.
func (b *Bundle) Provided() *Provided {
	b.provided.once.Do(func() { b.provided.p = ProvidedBy(b.Package, b.Properties) })
	return b.provided.p
}

// ProvidedBy decodes what properties provide, for a bundle of package pkg.
func ProvidedBy(pkg string, props []Property) *Provided {
	p := &Provided{GVKs: map[GVKValue]bool{}, Packages: map[string]bool{pkg: true}, Labels: map[string]bool{}}
	for _, prop := range props {
		switch prop.Type {
		case TypeGVK:
			var v GVKValue
			if json.Unmarshal(prop.Value, &v) == nil {
				p.GVKs[v] = true
			}
		case TypePackage:
			var v PackageValue
			if json.Unmarshal(prop.Value, &v) == nil {
				p.Packages[v.PackageName] = true
			}
		case TypeLabel:
			var v LabelValue
			if json.Unmarshal(prop.Value, &v) == nil {
				p.Labels[v.Label] = true
			}
		}
	}
	return p
}

package resolver

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// existingCatalog names OLM's virtual catalog of installed CSVs.
const existingCatalog = "@existing"

// entry is one (channel, bundle) pair of a catalog, or an installed CSV: what OLM's resolver
// cache holds.
type entry struct {
	id        string
	bundle    *catalog.Bundle
	catalog   *inputs.Catalog // nil for an installed CSV
	namespace string          // the catalog's namespace, or the installed CSV's
	channel   string
	replaces  string
	skips     []string
	skipRange semver.Range
	// defaultChannel is true when channel is the package's default channel.
	defaultChannel bool
	props          []catalog.Property
	// sub is the Subscription that installed the CSV, for installed entries.
	sub *inputs.Subscription
	// gvks, packages and labels are the entry's olm.gvk, olm.package and olm.label values,
	// decoded once.
	gvks     map[catalog.GVKValue]bool
	packages map[string]bool
	labels   map[string]bool
}

// index decodes the properties predicates test.
func (e *entry) index() *entry {
	return e.indexed(catalog.ProvidedBy(e.bundle.Package, e.props))
}

// indexed sets what the entry provides.
func (e *entry) indexed(p *catalog.Provided) *entry {
	e.gvks, e.packages, e.labels = p.GVKs, p.Packages, p.Labels
	return e
}

func (e *entry) installed() bool { return e.catalog == nil }

// catalogEntries builds the entries of a bound catalog, one per (channel, bundle).
func catalogEntries(c *inputs.Catalog) []*entry {
	var out []*entry
	for _, p := range c.Catalog.Packages {
		for _, ch := range p.Channels {
			for _, ce := range ch.Entries {
				b := p.Bundle(ce.Name)
				if b == nil {
					continue
				}
				e := channelEntry(p, ch, ce, b)
				e.id = c.Name + "/" + c.Namespace + "/" + ch.Name + "/" + b.Name
				e.catalog, e.namespace = c, c.Namespace
				out = append(out, e)
			}
		}
	}
	return out
}

// channelEntry builds the entry of bundle b at its place ce in channel ch of package p, without
// its catalog.
func channelEntry(p *catalog.Package, ch *catalog.Channel, ce catalog.ChannelEntry, b *catalog.Bundle) *entry {
	e := &entry{
		bundle:         b,
		channel:        ch.Name,
		replaces:       ce.Replaces,
		skips:          ce.Skips,
		defaultChannel: ch.Name == p.DefaultChannel,
		props:          ensurePackageProperty(b),
	}
	if ce.SkipRange != "" {
		if r, err := semver.ParseRange(ce.SkipRange); err == nil {
			e.skipRange = r
		}
	}
	// The properties are the bundle's (with the olm.package property ensurePackageProperty may
	// add, which names the bundle's own package): what they provide is decoded once a bundle.
	return e.indexed(b.Provided())
}

// ensurePackageProperty returns the bundle's properties with an olm.package property, as OLM's
// EnsurePackageProperty does.
func ensurePackageProperty(b *catalog.Bundle) []catalog.Property {
	for _, p := range b.Properties {
		if p.Type == catalog.TypePackage {
			return b.Properties
		}
	}
	v, _ := json.Marshal(catalog.PackageValue{PackageName: b.Package, Version: b.Version.String()})
	return append(slices.Clone(b.Properties), catalog.Property{Type: catalog.TypePackage, Value: v})
}

// selectionProperties are the properties OLM's resolver holds for the bundle, the source of the
// CSV's operatorframework.io/properties annotation: the catalog's, followed by each
// olm.gvk.required and olm.package.required again as newOperatorFromBundle re-derives them from
// the registry's legacy dependencies (resolver/source_registry.go legacyDependenciesToProperties;
// operator-registry api.convertModelPropertiesToAPIDependencies makes those dependencies from the
// same properties). On a cluster the annotation so lists every requirement twice: the
// InstallPlan's bundle lookup carries these properties to the unpacked bundle
// (bundle/bundle_unpacker.go). A bundle whose catalog entry carries its manifests and names no
// image is never unpacked: OLM takes the bundle the registry served as it is
// (resolver/source_registry.go: an entry without a BundlePath keeps its api.Bundle), and the
// annotation holds the registry's properties alone (resolver/steps.go NewStepResourceFromBundle).
func (e *entry) selectionProperties() []catalog.Property {
	out := slices.Clone(e.props)
	if e.bundle != nil && e.bundle.Image == "" && len(e.bundle.InlineObjects) > 0 {
		return out
	}
	for _, p := range e.props {
		switch p.Type {
		case catalog.TypeGVKRequired:
			var v struct {
				Group   string `json:"group"`
				Version string `json:"version"`
				Kind    string `json:"kind"`
			}
			if json.Unmarshal(p.Value, &v) != nil {
				continue // OLM fails to list such a bundle; the catalog loader refuses it first
			}
			data, _ := json.Marshal(v)
			out = append(out, catalog.Property{Type: catalog.TypeGVKRequired, Value: data})
		case catalog.TypePackageRequired:
			var v struct {
				PackageName  string `json:"packageName"`
				VersionRange string `json:"versionRange"`
			}
			if json.Unmarshal(p.Value, &v) != nil {
				continue
			}
			data, _ := json.Marshal(v)
			out = append(out, catalog.Property{Type: catalog.TypePackageRequired, Value: data})
		}
	}
	return out
}

// replacesCurrent reports whether e is an upgrade from current: it replaces it, skips it, or its
// skipRange holds current's version.
func (e *entry) replacesCurrent(current *entry) bool {
	if e.replaces == current.bundle.Name || slices.Contains(e.skips, current.bundle.Name) {
		return true
	}
	return e.skipRange != nil && e.skipRange(current.bundle.Version)
}

// catalogLess orders catalogs by OLM's preference for a dependency of a bundle from own in the
// preferred namespace ns: the installed catalog, own, higher priority, the preferred namespace,
// then name.
func catalogCompare(a, b *inputs.Catalog, own *inputs.Catalog, ns string) int {
	rank := func(c *inputs.Catalog) int {
		switch {
		case c == nil:
			return 0
		case c == own:
			return 1
		}
		return 2
	}
	if r := cmp.Compare(rank(a), rank(b)); r != 0 || a == nil || b == nil {
		return r
	}
	if r := cmp.Compare(b.Priority, a.Priority); r != 0 {
		return r
	}
	if a.Namespace != b.Namespace {
		switch {
		case a.Namespace == ns:
			return -1
		case b.Namespace == ns:
			return 1
		}
	}
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Namespace, b.Namespace))
}

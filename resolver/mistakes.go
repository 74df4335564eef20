package resolver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// maxListed bounds the names a hint lists.
const maxListed = 12

// mistake adds the hint for a Subscription naming what its catalog does not have: the
// CatalogSource, the package, the channel or the startingCSV, with a did-you-mean and what is
// there.
func (r *resolution) mistake(s *inputs.Subscription, noCatalog, noPackage, noChannel bool) {
	spec := s.Spec
	c := r.set.Catalog(spec.CatalogSourceNamespace, spec.CatalogSource)
	var msg, field string
	switch {
	case noCatalog:
		msg, field = r.catalogHint(s), "spec.source"
	case c == nil:
		return
	case noPackage:
		field = "spec.name"
		msg = suggestion(field, spec.Package, packageNames(c.Catalog), "packages in CatalogSource "+c.Key())
	case noChannel:
		p := c.Catalog.Package(spec.Package)
		field = "spec.channel"
		msg = suggestion(field, spec.Channel, channelNames(p), fmt.Sprintf("channels of %s (default %s)", p.Name, p.DefaultChannel))
	default:
		field = "spec.startingCSV"
		msg = suggestion(field, spec.StartingCSV, bundlesIn(c.Catalog.Package(spec.Package), spec.Channel), "bundles in channel "+spec.Channel)
	}
	if msg != "" {
		r.fixes = append(r.fixes, hint{subs: []string{s.Name}, field: field, message: msg})
	}
}

// catalogHint explains a CatalogSource with no bundles in scope.
func (r *resolution) catalogHint(s *inputs.Subscription) string {
	var keys []string
	for _, c := range r.set.Catalogs {
		keys = append(keys, c.Key())
	}
	key := s.Spec.CatalogSourceNamespace + "/" + s.Spec.CatalogSource
	return suggestion("spec.source", key, keys, "CatalogSources bound to a catalog")
}

// suggestion says what a field names does not exist, suggests the closest name and lists the
// names there are.
func suggestion(field, got string, names []string, what string) string {
	msg := fmt.Sprintf("%s %q does not exist", field, got)
	if s := diag.Closest(got, names); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
	}
	listed := names
	if len(listed) > maxListed {
		listed = append(slices.Clone(listed[:maxListed]), fmt.Sprintf("and %d more", len(names)-maxListed))
	}
	return msg + fmt.Sprintf(" (%s: %s)", what, strings.Join(listed, ", "))
}

func packageNames(c *catalog.Catalog) []string {
	out := make([]string, 0, len(c.Packages))
	for _, p := range c.Packages {
		out = append(out, p.Name)
	}
	return out
}

func channelNames(p *catalog.Package) []string {
	out := make([]string, 0, len(p.Channels))
	for _, ch := range p.Channels {
		out = append(out, ch.Name)
	}
	return out
}

func bundlesIn(p *catalog.Package, channel string) []string {
	var out []string
	if p == nil {
		return out
	}
	for _, b := range p.Bundles {
		if channel == "" || slices.Contains(b.Channels, channel) {
			out = append(out, b.Name)
		}
	}
	return out
}

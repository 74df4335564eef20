package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// A small builder for catalogs: bundles with channel entries and properties.

type bundleSpec struct {
	name, version, pkg, channel string
	replaces, skipRange         string
	skips                       []string
	props                       []catalog.Property
}

func bnd(name, version, pkg, channel string, opts ...func(*bundleSpec)) bundleSpec {
	b := bundleSpec{name: name, version: version, pkg: pkg, channel: channel}
	for _, o := range opts {
		o(&b)
	}
	return b
}

func replaces(r string) func(*bundleSpec) { return func(b *bundleSpec) { b.replaces = r } }
func skips(s ...string) func(*bundleSpec) { return func(b *bundleSpec) { b.skips = s } }
func skipRange(r string) func(*bundleSpec) {
	return func(b *bundleSpec) { b.skipRange = r }
}
func prop(typ string, v any) func(*bundleSpec) {
	return func(b *bundleSpec) {
		raw, _ := json.Marshal(v)
		if s, ok := v.(string); ok && strings.HasPrefix(s, "{") {
			raw = []byte(s)
		}
		b.props = append(b.props, catalog.Property{Type: typ, Value: raw})
	}
}
func provides(g, v, k string) func(*bundleSpec) {
	return prop(catalog.TypeGVK, catalog.GVKValue{Group: g, Version: v, Kind: k})
}
func requires(g, v, k string) func(*bundleSpec) {
	return prop(catalog.TypeGVKRequired, catalog.GVKValue{Group: g, Version: v, Kind: k})
}
func requiresPackage(p, r string) func(*bundleSpec) {
	return prop(catalog.TypePackageRequired, catalog.PackageRequiredValue{PackageName: p, VersionRange: r})
}

// buildCatalog makes a catalog; defaults maps package → default channel.
func buildCatalog(defaults map[string]string, specs ...bundleSpec) *catalog.Catalog {
	c := &catalog.Catalog{}
	for _, s := range specs {
		p := c.Package(s.pkg)
		if p == nil {
			p = &catalog.Package{Name: s.pkg, DefaultChannel: defaults[s.pkg]}
			c.Packages = append(c.Packages, p)
		}
		ch := p.Channel(s.channel)
		if ch == nil {
			ch = &catalog.Channel{Package: s.pkg, Name: s.channel}
			p.Channels = append(p.Channels, ch)
		}
		ch.Entries = append(ch.Entries, catalog.ChannelEntry{Name: s.name, Replaces: s.replaces, Skips: s.skips, SkipRange: s.skipRange})
		b := p.Bundle(s.name)
		if b == nil {
			v := semver.MustParse(s.version)
			pv, _ := json.Marshal(catalog.PackageValue{PackageName: s.pkg, Version: s.version})
			b = &catalog.Bundle{Package: s.pkg, Name: s.name, Version: v,
				Properties: append([]catalog.Property{{Type: catalog.TypePackage, Value: pv}}, s.props...)}
			p.Bundles = append(p.Bundles, b)
		}
		b.Channels = append(b.Channels, s.channel)
	}
	return c
}

type subSpec struct {
	name, pkg, channel, start, installed, catalog string
}

func scenarioSet(catalogs map[string]*catalog.Catalog, priorities map[string]int, subs ...subSpec) *inputs.Set {
	set := &inputs.Set{}
	og := &inputs.OperatorGroup{}
	og.Name, og.Namespace = "og", "ns"
	set.OperatorGroups = append(set.OperatorGroups, og)
	names := make([]string, 0, len(catalogs))
	for n := range catalogs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		set.Catalogs = append(set.Catalogs, &inputs.Catalog{Name: n, Namespace: "olm", Priority: priorities[n], Catalog: catalogs[n]})
	}
	for _, s := range subs {
		sub := &inputs.Subscription{}
		sub.Name, sub.Namespace = s.name, "ns"
		src := s.catalog
		if src == "" {
			src = "cat"
		}
		sub.Spec = &v1alpha1.SubscriptionSpec{Package: s.pkg, Channel: s.channel, StartingCSV: s.start, CatalogSource: src, CatalogSourceNamespace: "olm"}
		sub.Status.InstalledCSV = s.installed
		set.Subscriptions = append(set.Subscriptions, sub)
	}
	return set
}

// outcome lists "bundle@catalog/channel" for new or changed selections (installed ones kept
// unchanged are left out, as OLM returns nothing for them), with "←replaced" on upgrades.
func outcome(res *Result) []string {
	var out []string
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			if s.Installed == s.Bundle.Name {
				continue
			}
			x := fmt.Sprintf("%s@%s/%s", s.Bundle.Name, s.Catalog.Name, s.Channel)
			if s.Installed != "" {
				x += "←" + s.Installed
			}
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out) // two Subscriptions may share one bundle
}

const g, v, k = "g", "v", "k"

// TestScenarios ports resolver-spec §5.2 and §5.3 (OLM's resolver_test.go and
// step_resolver_test.go) with their exact outcomes.
func TestScenarios(t *testing.T) {
	tests := []struct {
		id         string
		catalogs   map[string]*catalog.Catalog
		priorities map[string]int
		subs       []subSpec
		want       []string
		err        []string
	}{
		{
			id: "T03 disjoint channel graph",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.side1.v1", "0.0.1", "test-package", "alpha"),
				bnd("test-package.side1.v2", "0.0.2", "test-package", "alpha", replaces("test-package.side1.v1")),
				bnd("test-package.side2.v1", "1.0.0", "test-package", "alpha"),
				bnd("test-package.side2.v2", "2.0.0", "test-package", "alpha", replaces("test-package.side2.v1")))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			err:  []string{`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "alpha" of package "test-package": test-package.side1.v2...test-package.side1.v1, test-package.side2.v2...test-package.side2.v1`},
		},
		{
			id: "T05 upgrade and a new subscription",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.v1", "0.0.1", "test-package", "alpha"),
				bnd("test-package.v1.0.1", "1.0.1", "test-package", "alpha", replaces("test-package.v1")),
				bnd("another-package.v0.9.0", "0.9.0", "another-package", "alpha"),
				bnd("another-package.v1.0.0", "1.0.0", "another-package", "alpha", replaces("another-package.v0.9.0")),
				bnd("another-package.v1.0.1", "1.0.1", "another-package", "alpha", replaces("another-package.v1.0.0")))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha", installed: "test-package.v1"}, {name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1.0.1@cat/alpha", "test-package.v1.0.1@cat/alpha←test-package.v1"},
		},
		{
			id: "T06 an exact version range",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "1.0.0", "a", "alpha", requiresPackage("packageD", "1.0.1")),
				bnd("packageD.v1.0.0", "1.0.0", "packageD", "alpha"),
				bnd("packageD.v1.0.1", "1.0.1", "packageD", "alpha", replaces("packageD.v1.0.0")),
				bnd("packageD.v1.0.2", "1.0.2", "packageD", "alpha", replaces("packageD.v1.0.1")))},
			subs: []subSpec{{name: "a", pkg: "a", channel: "alpha"}},
			want: []string{"a.v1@cat/alpha", "packageD.v1.0.1@cat/alpha"},
		},
		{
			id: "T08a higher priority catalog wins",
			catalogs: map[string]*catalog.Catalog{
				"cat":                    buildCatalog(nil, bnd("test-package.v1", "0.0.1", "test-package", "alpha", requiresPackage("another-package", "0.0.1"))),
				"community-operator":     buildCatalog(nil, bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
				"high-priority-operator": buildCatalog(nil, bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
			},
			priorities: map[string]int{"high-priority-operator": 100},
			subs:       []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			want:       []string{"another-package.v1@high-priority-operator/alpha", "test-package.v1@cat/alpha"},
		},
		{
			id: "T08b equal priority: catalog name",
			catalogs: map[string]*catalog.Catalog{
				"cat":                    buildCatalog(nil, bnd("test-package.v1", "0.0.1", "test-package", "alpha", requiresPackage("another-package", "0.0.1"))),
				"community-operator":     buildCatalog(nil, bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
				"high-priority-operator": buildCatalog(nil, bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
			},
			priorities: map[string]int{"high-priority-operator": 100, "community-operator": 100},
			subs:       []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			want:       []string{"another-package.v1@community-operator/alpha", "test-package.v1@cat/alpha"},
		},
		{
			id: "T08c the dependent's own catalog wins",
			catalogs: map[string]*catalog.Catalog{
				"cat": buildCatalog(nil, bnd("test-package.v1", "0.0.1", "test-package", "alpha", requiresPackage("another-package", "0.0.1")),
					bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
				"high-priority-operator": buildCatalog(nil, bnd("another-package.v1", "0.0.1", "another-package", "alpha")),
			},
			priorities: map[string]int{"high-priority-operator": 100},
			subs:       []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			want:       []string{"another-package.v1@cat/alpha", "test-package.v1@cat/alpha"},
		},
		{
			id: "T11 label dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.v1", "0.0.1", "test-package", "alpha", prop(catalog.TypeLabelRequired, catalog.LabelValue{Label: "lts"})),
				bnd("another-package.v1", "0.0.1", "another-package", "beta", prop(catalog.TypeLabel, catalog.LabelValue{Label: "lts"})))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			want: []string{"another-package.v1@cat/beta", "test-package.v1@cat/alpha"},
		},
		{
			id: "T14 compound all",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("bar.v1.0.0", "1.0.0", "bar", "stable", prop(catalog.TypeConstraint,
					`{"all":{"constraints":[{"package":{"packageName":"foo","versionRange":">=1.0.0"}},{"gvk":{"group":"g1","version":"v1","kind":"k1"}},{"gvk":{"group":"g2","version":"v2","kind":"k2"}}]}}`)),
				bnd("foo.v0.99.0", "0.99.0", "foo", "stable", provides("g1", "v1", "k1"), provides("g2", "v2", "k2"), provides("g3", "v3", "k3")),
				bnd("foo.v1.0.0", "1.0.0", "foo", "stable", replaces("foo.v0.99.0"), provides("g2", "v2", "k2"), provides("g3", "v3", "k3")),
				bnd("foo.v1.0.1", "1.0.1", "foo", "stable", replaces("foo.v1.0.0"), provides("g1", "v1", "k1"), provides("g2", "v2", "k2"), provides("g3", "v3", "k3")))},
			subs: []subSpec{{name: "bar", pkg: "bar", channel: "stable"}},
			want: []string{"bar.v1.0.0@cat/stable", "foo.v1.0.1@cat/stable"},
		},
		{
			id: "T16 compound not",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("bar.v1.0.0", "1.0.0", "bar", "stable", prop(catalog.TypeConstraint,
					`{"all":{"constraints":[{"gvk":{"group":"g0","version":"v0","kind":"k0"}},{"not":{"constraints":[{"gvk":{"group":"g1","version":"v1","kind":"k1"}},{"gvk":{"group":"g2","version":"v2","kind":"k2"}}]}}]}}`)),
				bnd("foo.v0.99.0", "0.99.0", "foo", "stable", provides("g0", "v0", "k0")),
				bnd("foo.v1.0.0", "1.0.0", "foo", "stable", replaces("foo.v0.99.0"), provides("g0", "v0", "k0"), provides("g1", "v1", "k1"), provides("g2", "v2", "k2")),
				bnd("foo.v1.0.1", "1.0.1", "foo", "stable", replaces("foo.v1.0.0"), provides("g0", "v0", "k0"), provides("g1", "v1", "k1"), provides("g2", "v2", "k2"), provides("g3", "v3", "k3")))},
			subs: []subSpec{{name: "bar", pkg: "bar", channel: "stable"}},
			want: []string{"bar.v1.0.0@cat/stable", "foo.v0.99.0@cat/stable"},
		},
		{
			id: "T17 unknown constraint field",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("bar.v1.0.0", "1.0.0", "bar", "stable", prop(catalog.TypeConstraint, `{"failureMessage":"x","unknown":{"a":1}}`)))},
			subs: []subSpec{{name: "bar", pkg: "bar", channel: "stable"}},
			err:  []string{`json: unknown field "unknown"`},
		},
		{
			id: "T20 default channel first",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"test-package": "stable"},
				bnd("test-package.v0.0.2", "0.0.2", "test-package", "alpha"),
				bnd("test-package.v0.0.1", "0.0.1", "test-package", "stable"))},
			subs: []subSpec{{name: "test-package", pkg: "test-package"}},
			want: []string{"test-package.v0.0.1@cat/stable"},
		},
		{
			id: "T26 deprecated bundle",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.v1", "0.0.1", "test-package", "alpha", prop(catalog.TypeDeprecated, map[string]any{})))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			err:  []string{"bundle cat/olm/alpha/test-package.v1 is deprecated"},
		},
		{
			id: "T27 deprecated inner entry",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a-1", "1.0.0", "a", "c"),
				bnd("a-2", "2.0.0", "a", "c", replaces("a-1"), prop(catalog.TypeDeprecated, map[string]any{})),
				bnd("a-3", "3.0.0", "a", "c", replaces("a-2")))},
			subs: []subSpec{{name: "a", pkg: "a", channel: "c"}},
			want: []string{"a-3@cat/c"},
		},
		{
			id: "T29 skips without replaces",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("another-package.v1", "1.0.0", "another-package", "alpha"),
				bnd("another-package.v2", "2.0.0", "another-package", "alpha", skips("another-package.v1")))},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v2@cat/alpha"},
		},
		{
			id: "T30 skipped entries never satisfy a dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a-1", "1.0.0", "a", "channel", requires(g, v, k)),
				bnd("b-1", "1.0.0", "b", "channel", provides(g, v, k)),
				bnd("b-2", "2.0.0", "b", "channel", replaces("b-1")),
				bnd("b-3", "3.0.0", "b", "channel", replaces("b-2"), skips("b-1")))},
			subs: []subSpec{{name: "a", pkg: "a", channel: "channel"}},
			err:  []string{"constraints not satisfiable", "bundle a-1 requires an operator providing an API with group: g, version: v, kind: k"},
		},
		{
			id:       "U02 empty catalog",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil)},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}},
			err:      []string{"constraints not satisfiable: no operators found from catalog cat in namespace olm referenced by subscription a-alpha, subscription a-alpha exists"},
		},
		{
			id:       "U03 no package",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("package.v1", "1.0.0", "package", "channel"))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}},
			err:      []string{"constraints not satisfiable: no operators found in package a in the catalog referenced by subscription a-alpha, subscription a-alpha exists"},
		},
		{
			id:       "U04 no channel",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("a.v1", "1.0.0", "a", "channel"))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}},
			err:      []string{"constraints not satisfiable: no operators found in channel alpha of package a in the catalog referenced by subscription a-alpha, subscription a-alpha exists"},
		},
		{
			id:       "U05 no startingCSV",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("a.v1", "1.0.0", "a", "alpha"))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", start: "notfound"}},
			err:      []string{"constraints not satisfiable: no operators found with name notfound in channel alpha of package a in the catalog referenced by subscription a-alpha, subscription a-alpha exists"},
		},
		{
			id:       "U09 missing dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("a.v1", "0.0.0", "a", "alpha", requires(g, v, k)))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}},
			err:      []string{"constraints not satisfiable: bundle a.v1 requires an operator providing an API with group: g, version: v, kind: k, subscription a-alpha exists, subscription a-alpha requires cat/olm/alpha/a.v1"},
		},
		{
			id: "U12 conflicting subscriptions to one package",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "1.0.0", "a", "alpha", provides(g, v, k)), bnd("a.v2", "2.0.0", "a", "beta", provides(g, v, k)))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}, {name: "a-beta", pkg: "a", channel: "beta"}},
			err:  []string{"constraints not satisfiable"},
		},
		{
			// The installed a.v1 is no longer in the subscription's catalog; its content comes
			// from another bound catalog (olm-render needs the installed bundle's properties).
			id: "U25 skipRange in the head",
			catalogs: map[string]*catalog.Catalog{
				"cat": buildCatalog(nil, bnd("a.v3", "1.0.0", "a", "alpha", replaces("a.v2"), skipRange("< 1.0.0"))),
				"old": buildCatalog(nil, bnd("a.v1", "0.0.0", "a", "alpha")),
			},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want: []string{"a.v3@cat/alpha←a.v1"},
		},
		{
			id: "U29 specified skips",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha"),
				bnd("a.v2", "0.0.1", "a", "alpha", skips("a.v1")),
				bnd("a.v3", "0.0.2", "a", "alpha", replaces("a.v2"), skips("a.v1")))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want: []string{"a.v3@cat/alpha←a.v1"},
		},
		{
			id: "T04 one channel of several",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("another-package.v1", "0.0.1", "another-package", "alpha"),
				bnd("another-package.v1", "0.0.1", "another-package", "beta"))},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1@cat/alpha"},
		},
		{
			id: "T07 nested package dependencies",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("another-package.v1.0.1", "1.0.1", "another-package", "alpha", requiresPackage("packageC", "1.0.1"), requiresPackage("packageD", "1.0.1")),
				bnd("packageC.v1.0.0", "1.0.0", "packageC", "alpha", requiresPackage("packageE", "1.0.1")),
				bnd("packageC.v1.0.1", "1.0.1", "packageC", "alpha", replaces("packageC.v1.0.0"), requiresPackage("packageE", "1.0.1")),
				bnd("packageD.v1.0.1", "1.0.1", "packageD", "alpha"),
				bnd("packageE.v1.0.0", "1.0.0", "packageE", "alpha"),
				bnd("packageE.v1.0.1", "1.0.1", "packageE", "alpha", replaces("packageE.v1.0.0")))},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1.0.1@cat/alpha", "packageC.v1.0.1@cat/alpha", "packageD.v1.0.1@cat/alpha", "packageE.v1.0.1@cat/alpha"},
		},
		{
			id: "T10 GVK dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("another-package.v1", "1.0.0", "another-package", "alpha", requires(g, v, k)),
				bnd("packageC.v1", "1.0.0", "packageC", "alpha", provides(g, v, k)))},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1@cat/alpha", "packageC.v1@cat/alpha"},
		},
		{
			id: "T12 unsatisfiable label dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.v1", "0.0.1", "test-package", "alpha", prop(catalog.TypeLabelRequired, catalog.LabelValue{Label: "lts"})),
				bnd("another-package.v1", "0.0.1", "another-package", "beta"))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			err:  []string{"constraints not satisfiable", "bundle test-package.v1 requires an operator with label: lts"},
		},
		{
			id: "T15 compound any",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("bar.v1.0.0", "1.0.0", "bar", "stable", prop(catalog.TypeConstraint,
					`{"any":{"constraints":[{"gvk":{"group":"g1","version":"v1","kind":"k1"}},{"gvk":{"group":"g2","version":"v2","kind":"k2"}}]}}`)),
				bnd("foo.v0.99.0", "0.99.0", "foo", "stable", provides("g0", "v0", "k0")),
				bnd("foo.v1.0.0", "1.0.0", "foo", "stable", replaces("foo.v0.99.0"), provides("g1", "v1", "k1"), provides("g2", "v2", "k2")),
				bnd("foo.v1.0.1", "1.0.1", "foo", "stable", replaces("foo.v1.0.0"), provides("g1", "v1", "k1"), provides("g2", "v2", "k2"), provides("g3", "v3", "k3")))},
			subs: []subSpec{{name: "bar", pkg: "bar", channel: "stable"}},
			want: []string{"bar.v1.0.0@cat/stable", "foo.v1.0.1@cat/stable"},
		},
		{
			id: "T21 default channel for transitive dependencies",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"another-package": "stable"},
				bnd("test-package.v0.0.1", "0.0.1", "test-package", "alpha", requires(g, v, k)),
				bnd("another-package.v0.0.1", "0.0.1", "another-package", "stable", provides(g, v, k)),
				bnd("another-package.v0.0.2", "0.0.2", "another-package", "alpha", replaces("another-package.v0.0.1"), provides(g, v, k)))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha"}},
			want: []string{"another-package.v0.0.1@cat/stable", "test-package.v0.0.1@cat/alpha"},
		},
		{
			id: "T24 a package cannot satisfy itself",
			catalogs: map[string]*catalog.Catalog{
				"cat": buildCatalog(map[string]string{"another-package": "stable"},
					bnd("opA.v1.0.0", "1.0.0", "test-package", "stable", requires(g, v, k), requires("g2", "v", "k2")),
					bnd("opABC.v1.0.0", "1.0.0", "test-package", "alpha", provides(g, v, k), provides("g2", "v", "k2")),
					bnd("opB.v1.0.0", "1.0.0", "another-package", "stable", provides(g, v, k)),
					bnd("opD.v1.0.0", "1.0.0", "another-package", "alpha", provides(g, v, k))),
				"secondary": buildCatalog(map[string]string{"another-package": "stable"},
					bnd("opC.v1.0.0", "1.0.0", "another-package", "stable", provides("g2", "v", "k2")),
					bnd("opE.v1.0.0", "1.0.0", "packageC", "stable", provides("g2", "v", "k2"))),
			},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "stable"}},
			want: []string{"opA.v1.0.0@cat/stable", "opB.v1.0.0@cat/stable", "opE.v1.0.0@secondary/stable"},
		},
		{
			id: "T28 skips and startingCSV",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("another-package.v1", "1.0.0", "another-package", "alpha", requires(g, v, k)),
				bnd("another-package.v2", "2.0.0", "another-package", "alpha", skips("another-package.v1"), requires(g, v, k)),
				bnd("test-package.v1", "1.0.0", "test-package", "alpha", provides(g, v, k)),
				bnd("test-package.v2", "2.0.0", "test-package", "alpha", replaces("test-package.v1"), provides(g, v, k)),
				bnd("test-package.v3", "3.0.0", "test-package", "alpha", replaces("test-package.v2"), provides(g, v, k)),
				bnd("test-package.v4", "4.0.0", "test-package", "alpha", replaces("test-package.v3"), skips("test-package.v3"), provides(g, v, k)),
				bnd("test-package.v5", "5.0.0", "test-package", "alpha", replaces("test-package.v4"), skips("test-package.v2", "test-package.v3", "test-package.v4"), provides(g, v, k)),
				bnd("test-package.v6", "6.0.0", "test-package", "alpha", replaces("test-package.v5"), provides(g, v, k)))},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha", start: "another-package.v1"}},
			want: []string{"another-package.v1@cat/alpha", "test-package.v6@cat/alpha"},
		},
		{
			id: "T33 CEL constraint satisfied by a GVK",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"another-package": "stable"},
				bnd("opA.v1.0.0", "1.0.0", "test-package", "stable", prop(catalog.TypeConstraint,
					`{"cel":{"rule":"properties.exists(p, p.type == 'olm.gvk' && p.value == {'group': 'g', 'version': 'v', 'kind': 'k'})"}}`)),
				bnd("opB.v1.0.0", "1.0.0", "another-package", "stable", provides(g, v, k)))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "stable"}},
			want: []string{"opA.v1.0.0@cat/stable", "opB.v1.0.0@cat/stable"},
		},
		{
			id: "T34 CEL constraint with its failure message",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"another-package": "stable"},
				bnd("opA.v1.0.0", "1.0.0", "test-package", "stable", prop(catalog.TypeConstraint,
					`{"failureMessage":"gvk2-constraint","cel":{"rule":"properties.exists(p, p.type == 'olm.gvk' && p.value == {'group': 'g2', 'version': 'v', 'kind': 'k'})"}}`)),
				bnd("opB.v1.0.0", "1.0.0", "another-package", "stable", provides(g, v, k)))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "stable"}},
			err:  []string{"gvk2-constraint"},
		},
		{
			id: "T35 CEL semver_compare",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"another-package": "stable"},
				bnd("opA.v1.0.0", "1.0.0", "test-package", "stable", prop(catalog.TypeConstraint,
					`{"cel":{"rule":"properties.exists(p, p.type == 'olm.package' && p.value.packageName == 'another-package' && (semver_compare(p.value.version, '1.0.1') == 0))"}}`)),
				bnd("opB.v1.0.0", "1.0.0", "another-package", "stable"),
				bnd("opB.v1.0.1", "1.0.1", "another-package", "stable", replaces("opB.v1.0.0")),
				bnd("opB.v1.0.2", "1.0.2", "another-package", "stable", replaces("opB.v1.0.1")))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "stable"}},
			want: []string{"opA.v1.0.0@cat/stable", "opB.v1.0.1@cat/stable"},
		},
		{
			id:       "U01 subscription without a channel",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("bundle", "0.0.0", "package", "channel"))},
			subs:     []subSpec{{name: "package-", pkg: "package"}},
			want:     []string{"bundle@cat/channel"},
		},
		{
			id:       "U13 two subscriptions to one package",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("a.v1", "0.0.0", "a", "alpha"))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha"}, {name: "a-alpha2", pkg: "a", channel: "alpha"}},
			want:     []string{"a.v1@cat/alpha"},
		},
		{
			id: "U15 an update is available",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha", provides(g, v, k)),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1"), provides(g, v, k)))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want: []string{"a.v2@cat/alpha←a.v1"},
		},
		{
			id: "U18 an update that requires a new dependency",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha"),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1"), requires(g, v, k)),
				bnd("b.v1", "0.0.0", "b", "beta", provides(g, v, k)))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want: []string{"a.v2@cat/alpha←a.v1", "b.v1@cat/beta"},
		},
		{
			id: "U27 skipRange not in the head",
			catalogs: map[string]*catalog.Catalog{
				"cat": buildCatalog(nil,
					bnd("a.v2", "1.0.0", "a", "alpha", skipRange("< 1.0.0")),
					bnd("a.v3", "1.0.1", "a", "alpha", replaces("a.v2"), skipRange("< 1.0.0")),
					bnd("a.v4", "1.0.2", "a", "alpha", replaces("a.v3"), skipRange("< 1.0.0 !0.0.0"))),
				"old": buildCatalog(nil, bnd("a.v1", "0.0.0", "a", "alpha")),
			},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want: []string{"a.v3@cat/alpha←a.v1"},
		},
		{
			id: "U28 startingCSV",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "1.0.0", "a", "alpha"),
				bnd("a.v2", "2.0.0", "a", "alpha", replaces("a.v1")),
				bnd("a.v3", "3.0.0", "a", "alpha", replaces("a.v2"), skipRange("< 3.0.0")))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", start: "a.v2"}},
			want: []string{"a.v2@cat/alpha"},
		},
		{
			id: "T09 package dependency beside an upgrade",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("test-package.v1", "0.0.1", "test-package", "alpha"),
				bnd("test-package.v1.0.1", "1.0.1", "test-package", "alpha", replaces("test-package.v1")),
				bnd("another-package.v1", "1.0.0", "another-package", "alpha", requiresPackage("packageC", "0.1.0")),
				bnd("packageC.v1", "0.1.0", "packageC", "alpha"))},
			subs: []subSpec{{name: "test-package", pkg: "test-package", channel: "alpha", installed: "test-package.v1"}, {name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1@cat/alpha", "packageC.v1@cat/alpha", "test-package.v1.0.1@cat/alpha←test-package.v1"},
		},
		{
			id: "T18 ignore unsatisfiable dependencies of alternatives",
			catalogs: map[string]*catalog.Catalog{
				"cat": buildCatalog(nil,
					bnd("another-package.v1", "1.0.0", "another-package", "alpha", requiresPackage("packageC", "0.1.0")),
					bnd("packageC.v1", "0.1.0", "packageC", "alpha", requiresPackage("packageD", "0.1.0"))),
				"certified": buildCatalog(nil,
					bnd("another-package.v1", "1.0.0", "another-package", "alpha", requiresPackage("packageC", "0.1.0")),
					bnd("packageC.v1", "0.1.0", "packageC", "alpha")),
			},
			subs: []subSpec{{name: "another", pkg: "another-package", channel: "alpha"}},
			want: []string{"another-package.v1@cat/alpha", "packageC.v1@certified/alpha"},
		},
		{
			id:       "U10 installed, no update",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil, bnd("a.v1", "0.0.0", "a", "alpha", provides(g, v, k)))},
			subs:     []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}},
			want:     nil,
		},
		{
			id: "U20 an update and a new subscription",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha", provides(g, v, k)),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1")),
				bnd("b.v1", "0.0.0", "b", "beta"))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}, {name: "b-beta", pkg: "b", channel: "beta"}},
			want: []string{"a.v2@cat/alpha←a.v1", "b.v1@cat/beta"},
		},
		{
			id: "U22 no more version deadlock",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha", provides(g, v, k), requires("g2", "v2", "k2")),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1"), provides("g3", "v3", "k3"), requires("g4", "v4", "k4")),
				bnd("b.v1", "0.0.0", "b", "beta", provides("g2", "v2", "k2"), requires(g, v, k)),
				bnd("b.v2", "0.0.1", "b", "beta", replaces("b.v1"), provides("g4", "v4", "k4"), requires("g3", "v3", "k3")))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}, {name: "b-beta", pkg: "b", channel: "beta", installed: "b.v1"}},
			want: []string{"a.v2@cat/alpha←a.v1", "b.v2@cat/beta←b.v1"},
		},
		{
			id: "U23 owned API transfer",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha", provides(g, v, k)),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1")),
				bnd("b.v1", "0.0.0", "b", "beta", requires(g, v, k)),
				bnd("b.v2", "0.0.1", "b", "beta", replaces("b.v1"), provides(g, v, k)))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}, {name: "b-beta", pkg: "b", channel: "beta", installed: "b.v1"}},
			want: []string{"a.v2@cat/alpha←a.v1", "b.v2@cat/beta←b.v1"},
		},
		{
			id: "U26 existing operators, old CSVs replaced",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "0.0.0", "a", "alpha", requires(g, v, k)),
				bnd("a.v2", "0.0.1", "a", "alpha", replaces("a.v1"), requires(g, v, k)),
				bnd("b.v1", "0.0.0", "b", "beta", provides(g, v, k)),
				bnd("b.v2", "0.0.1", "b", "beta", replaces("b.v1"), provides(g, v, k)))},
			subs: []subSpec{{name: "a-alpha", pkg: "a", channel: "alpha", installed: "a.v1"}, {name: "b-beta", pkg: "b", channel: "beta", installed: "b.v1"}},
			want: []string{"a.v2@cat/alpha←a.v1", "b.v2@cat/beta←b.v1"},
		},
		{
			id: "U24 an older provider",
			catalogs: map[string]*catalog.Catalog{"cat": buildCatalog(nil,
				bnd("a.v1", "1.0.0", "a", "alpha", provides(g, v, k)),
				bnd("a.v2", "2.0.0", "a", "alpha", replaces("a.v1")),
				bnd("b.v1", "1.0.0", "b", "alpha", requires(g, v, k)))},
			subs: []subSpec{{name: "b-alpha", pkg: "b", channel: "alpha"}},
			want: []string{"a.v1@cat/alpha", "b.v1@cat/alpha"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			res, err := Resolve(context.Background(), scenarioSet(tt.catalogs, tt.priorities, tt.subs...), Options{})
			if len(tt.err) > 0 {
				if err == nil {
					t.Fatalf("resolved: %v", outcome(res))
				}
				for _, w := range tt.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error\n%v\ndoes not contain\n%s", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := outcome(res); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGeneratedSubscription (U07): a dependency gets the Subscription OLM creates for it.
func TestGeneratedSubscription(t *testing.T) {
	cats := map[string]*catalog.Catalog{"catsrc": buildCatalog(nil,
		bnd("a.v1", "0.0.0", "a", "alpha", requires(g, v, k)), bnd("b.v1", "0.0.0", "b", "beta", provides(g, v, k)))}
	res, err := Resolve(context.Background(), scenarioSet(cats, nil, subSpec{name: "a-alpha", pkg: "a", channel: "alpha", catalog: "catsrc"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	sels := res.Namespaces[0].Selections
	if len(sels) != 2 || !sels[1].Generated {
		t.Fatalf("selections %+v", sels)
	}
	s := sels[1].Subscription
	if s.Name != "b-beta-catsrc-olm" || s.Spec.StartingCSV != "b.v1" || s.Spec.InstallPlanApproval != v1alpha1.ApprovalAutomatic ||
		s.Spec.Channel != "beta" || s.Spec.CatalogSource != "catsrc" || !slices.Equal(sels[1].RequiredBy, []string{"a-alpha"}) {
		t.Errorf("generated subscription %+v %+v", s.ObjectMeta, s.Spec)
	}
}

// TestSortChannel holds T32.
func TestSortChannel(t *testing.T) {
	mk := func(specs ...bundleSpec) []*entry {
		c := buildCatalog(nil, specs...)
		return catalogEntries(&inputs.Catalog{Name: "c", Namespace: "n", Catalog: c})
	}
	names := func(es []*entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.bundle.Name)
		}
		return out
	}
	tests := []struct {
		name string
		in   []*entry
		want []string
		err  string
	}{
		{"replaces", mk(bnd("b", "1.0.0", "package", "channel"), bnd("a", "2.0.0", "package", "channel", replaces("b"))), []string{"a", "b"}, ""},
		{"no heads", mk(bnd("a", "1.0.0", "package", "channel", replaces("b")), bnd("b", "2.0.0", "package", "channel", replaces("a"))), nil,
			`no channel heads (entries not replaced by another entry) found in channel "channel" of package "package"`},
		{"cycle", mk(bnd("a", "1.0.0", "package", "channel", replaces("b")), bnd("b", "2.0.0", "package", "channel", replaces("c")), bnd("c", "3.0.0", "package", "channel", replaces("b"))), nil,
			`a cycle exists in the chain of replacement beginning with "a" in channel "channel" of package "package"`},
		{"skipped", mk(bnd("a", "1.0.0", "package", "channel", replaces("b"), skips("b")), bnd("b", "2.0.0", "package", "channel")), []string{"a"}, ""},
		{"skip not on chain", mk(bnd("a", "1.0.0", "package", "channel", replaces("b"), skips("c")), bnd("b", "2.0.0", "package", "channel", replaces("c")), bnd("c", "3.0.0", "package", "channel")), []string{"a", "b"}, ""},
		{"two chains", mk(bnd("a", "1.0.0", "package", "channel"), bnd("b", "2.0.0", "package", "channel", replaces("c")), bnd("c", "3.0.0", "package", "channel")), nil,
			`a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "channel" of package "package": a, b...c`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sortChannel(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(names(got), tt.want) {
				t.Errorf("got %v %v, want %v", names(got), err, tt.want)
			}
		})
	}
}

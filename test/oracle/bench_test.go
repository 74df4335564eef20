package oracle

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// scale builds resolver-spec §6.1's synthetic input: P packages of 20 bundles on one replaces
// chain, every 5th package requiring the previous package's API, one Subscription per package
// but every 5th.
func scale(packages int) gen {
	cat := &catalog.Catalog{}
	for p := range packages {
		pkg := &catalog.Package{Name: fmt.Sprintf("p%03d", p), DefaultChannel: "stable"}
		ch := &catalog.Channel{Package: pkg.Name, Name: "stable"}
		for v := range 20 {
			name := fmt.Sprintf("%s.v1.%d.0", pkg.Name, v)
			e := catalog.ChannelEntry{Name: name}
			if v > 0 {
				e.Replaces = fmt.Sprintf("%s.v1.%d.0", pkg.Name, v-1)
			}
			ch.Entries = append(ch.Entries, e)
			version := semver.MustParse(fmt.Sprintf("1.%d.0", v))
			pv, _ := json.Marshal(catalog.PackageValue{PackageName: pkg.Name, Version: version.String()})
			gv, _ := json.Marshal(catalog.GVKValue{Group: "g", Version: "v1", Kind: fmt.Sprintf("K%03d", p)})
			b := &catalog.Bundle{Package: pkg.Name, Name: name, Version: version, Channels: []string{"stable"},
				Properties: []catalog.Property{{Type: catalog.TypePackage, Value: pv}, {Type: catalog.TypeGVK, Value: gv}}}
			if p%5 == 4 {
				req, _ := json.Marshal(catalog.GVKValue{Group: "g", Version: "v1", Kind: fmt.Sprintf("K%03d", p-1)})
				b.Properties = append(b.Properties, catalog.Property{Type: catalog.TypeGVKRequired, Value: req})
			}
			pkg.Bundles = append(pkg.Bundles, b)
		}
		pkg.Channels = []*catalog.Channel{ch}
		cat.Packages = append(cat.Packages, pkg)
	}
	g := gen{catalogs: map[string]*catalog.Catalog{"cat0": cat}, priorities: map[string]int{}}
	for p := range packages {
		if p%5 == 0 {
			continue
		}
		s := &inputs.Subscription{}
		s.Name, s.Namespace = fmt.Sprintf("p%03d", p), "ns"
		s.Spec = &v1alpha1.SubscriptionSpec{Package: s.Name, Channel: "stable", CatalogSource: "cat0", CatalogSourceNamespace: "ns"}
		g.subs = append(g.subs, s)
	}
	return g
}

// BenchmarkRatio resolves the same synthetic catalog with olm-render and with OLM's resolver:
// go test -run '^$' -bench Ratio -benchtime 1x ./test/oracle (OLM takes minutes at 350 packages).
func BenchmarkRatio(b *testing.B) {
	for _, packages := range []int{24, 100, 350} {
		g := scale(packages)
		b.Run(fmt.Sprintf("olm-render/%d", packages), func(b *testing.B) {
			for range b.N {
				if _, err := g.ours(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("olm/%d", packages), func(b *testing.B) {
			for range b.N {
				if _, err := g.theirs(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

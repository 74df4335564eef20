package resolver

import (
	"context"
	"fmt"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
)

// BenchmarkResolveOperators resolves one Subscription per package of the corpus's operators
// (whose latest bundles resolve) in one namespace.
func BenchmarkResolveOperators(b *testing.B) {
	fixture.Corpus(b)
	cats, err := loadShared()
	if err != nil {
		b.Fatal(err)
	}
	var subs []v1alpha1.SubscriptionSpec
	for _, p := range cats["operators"].Packages {
		switch p.Name {
		case "l5-operator", "awss3-operator-registry", "special-resource-operator", "silicom-sts-operator":
			continue // unsatisfiable in this corpus
		case "community-windows-machine-config-operator":
			continue // its default channel has three replaces chains: OLM refuses it too
		}
		subs = append(subs, v1alpha1.SubscriptionSpec{Package: p.Name, Channel: p.DefaultChannel})
	}
	set := realSet(b, "operators", subs...)
	b.ResetTimer()
	for range b.N {
		if _, err := Resolve(context.Background(), set, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveCommunityScale resolves a generated catalog at community scale: 350 packages,
// 20 versions each (7,000 bundles) on long replaces chains, each package's bundles requiring an
// API of the next package, one Subscription per package.
func BenchmarkResolveCommunityScale(b *testing.B) {
	const packages, versions = 350, 20
	var specs []bundleSpec
	for p := range packages {
		pkg := fmt.Sprintf("pkg%03d", p)
		for ver := range versions {
			opts := []func(*bundleSpec){provides("example.com", "v1", fmt.Sprintf("Kind%03d", p))}
			if ver > 0 {
				opts = append(opts, replaces(fmt.Sprintf("%s.v1.%d.0", pkg, ver-1)))
			}
			if p+1 < packages && p%10 != 9 {
				opts = append(opts, requires("example.com", "v1", fmt.Sprintf("Kind%03d", p+1)))
			}
			specs = append(specs, bnd(fmt.Sprintf("%s.v1.%d.0", pkg, ver), fmt.Sprintf("1.%d.0", ver), pkg, "stable", opts...))
		}
	}
	cat := buildCatalog(nil, specs...)
	var subs []subSpec
	for p := range packages {
		subs = append(subs, subSpec{name: fmt.Sprintf("pkg%03d", p), pkg: fmt.Sprintf("pkg%03d", p), channel: "stable"})
	}
	set := scenarioSet(map[string]*catalog.Catalog{"cat": cat}, nil, subs...)
	b.ResetTimer()
	for range b.N {
		res, err := Resolve(context.Background(), set, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Namespaces[0].Selections); n != packages {
			b.Fatalf("%d selections", n)
		}
	}
}

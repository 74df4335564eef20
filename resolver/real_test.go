package resolver

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// loadShared loads the corpus's catalogs the tests resolve against, and the NFD stand-in
// catalog, once per test binary.
var loadShared = sync.OnceValues(func() (map[string]*catalog.Catalog, error) {
	shared, err := corpus.Path()
	if err != nil {
		return nil, err
	}
	out := map[string]*catalog.Catalog{}
	for _, p := range []string{"operators", "bundles/etcd.0.9.2", "fbc/community-operators-prod/catalogs/v4.16", "testdata/nfd"} {
		path := filepath.Join(shared, p)
		if strings.HasPrefix(p, "testdata/") {
			path = p
		}
		c, err := catalog.Load(path)
		if err != nil {
			return nil, err
		}
		out[p] = c
	}
	return out, nil
})

// realSet is one namespace "ops" with a global OperatorGroup and one Subscription per spec,
// against the catalog at path bound as olm/cat.
func realSet(t testing.TB, path string, subs ...v1alpha1.SubscriptionSpec) *inputs.Set {
	t.Helper()
	fixture.Corpus(t)
	cats, err := loadShared()
	if err != nil {
		t.Fatal(err)
	}
	set := &inputs.Set{Catalogs: []*inputs.Catalog{
		{Name: "cat", Namespace: "olm", Catalog: cats[path]},
		{Name: "nfd", Namespace: "olm", Catalog: cats["testdata/nfd"]},
	}}
	og := &inputs.OperatorGroup{}
	og.Name, og.Namespace = "og", "ops"
	set.OperatorGroups = append(set.OperatorGroups, og)
	for _, spec := range subs {
		s := &inputs.Subscription{}
		s.Name, s.Namespace = spec.Package, "ops"
		spec.CatalogSource, spec.CatalogSourceNamespace = "cat", "olm"
		s.Spec = &spec
		set.Subscriptions = append(set.Subscriptions, s)
	}
	return set
}

func selections(res *Result) []string {
	var out []string
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			name := s.Subscription.Name + "=" + s.Bundle.Name
			if s.Generated {
				name += " (generated)"
			}
			out = append(out, name)
		}
	}
	return out
}

func TestRealCatalogScenarios(t *testing.T) {
	tests := []struct {
		name    string
		catalog string
		subs    []v1alpha1.SubscriptionSpec
		want    []string
		err     []string
	}{
		{
			name:    "silicom pulls in special-resource-operator (and NFD from a second catalog)",
			catalog: "operators",
			subs:    []v1alpha1.SubscriptionSpec{{Package: "silicom-sts-operator", Channel: "alpha", StartingCSV: "silicom-sts-operator.v0.0.1"}},
			want: []string{
				"silicom-sts-operator=silicom-sts-operator.v0.0.1",
				"special-resource-operator-alpha-cat-olm=special-resource-operator.v4.9.0 (generated)",
				"nfd-stable-nfd-olm=nfd.v4.9.0 (generated)",
			},
		},
		{
			name:    "node-healthcheck pulls in self-node-remediation",
			catalog: "operators",
			subs:    []v1alpha1.SubscriptionSpec{{Package: "node-healthcheck-operator", Channel: "stable", StartingCSV: "node-healthcheck-operator.v0.8.0"}},
			want: []string{
				"node-healthcheck-operator=node-healthcheck-operator.v0.8.0",
				"self-node-remediation-stable-cat-olm=self-node-remediation.v0.13.0 (generated)",
			},
		},
		{
			name:    "l5-operator misses crunchy-postgres-operator",
			catalog: "operators",
			subs:    []v1alpha1.SubscriptionSpec{{Package: "l5-operator", Channel: "alpha"}},
			err:     []string{"crunchy-postgres-operator"},
		},
		{
			name:    "shipwright misses cert-manager",
			catalog: "fbc/community-operators-prod/catalogs/v4.16",
			subs:    []v1alpha1.SubscriptionSpec{{Package: "shipwright-operator", Channel: "alpha"}},
			err:     []string{"group: cert-manager.io, version: v1, kind: Certificate"},
		},
		{
			name:    "etcd 0.9.2 test bundle misses testapi",
			catalog: "bundles/etcd.0.9.2",
			subs:    []v1alpha1.SubscriptionSpec{{Package: "etcd", Channel: "alpha"}},
			err:     []string{"group: testapi.coreos.com, version: v1, kind: testapi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Resolve(context.Background(), realSet(t, tt.catalog, tt.subs...), Options{})
			if len(tt.err) > 0 {
				if err == nil {
					t.Fatalf("resolved: %v", selections(res))
				}
				for _, w := range tt.err {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not name %q:\n%v", w, err)
					}
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := selections(res)
			t.Log(got)
			for _, w := range tt.want {
				found := false
				for _, g := range got {
					found = found || g == w
				}
				if !found {
					t.Errorf("selections %v lack %s", got, w)
				}
			}
		})
	}
}

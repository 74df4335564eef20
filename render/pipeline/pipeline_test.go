package pipeline

import (
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// TestLoadWarnings: a catalog's warnings about the packages a run uses are printed in full;
// those about other packages are counted in one warning naming them and the command that lists
// them; warnings about no package are always printed.
func TestLoadWarnings(t *testing.T) {
	warn := func(pkg, msg string) diag.Problem {
		return diag.Problem{Severity: diag.Warning, Origin: diag.Origin{File: "catalog/" + pkg}, Message: msg, Package: pkg}
	}
	sub := &inputs.Subscription{Subscription: v1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: "etcd", Namespace: "ops"},
		Spec: &v1alpha1.SubscriptionSpec{Package: "etcd", CatalogSource: "community", CatalogSourceNamespace: "olm"}}}
	set := &inputs.Set{
		Subscriptions: []*inputs.Subscription{sub},
		Warnings:      diag.Problems{{Severity: diag.Warning, Origin: diag.Origin{File: "input.yaml"}, Message: "an input warning"}},
		Catalogs: []*inputs.Catalog{{Name: "community", Namespace: "olm", Catalog: &catalog.Catalog{Path: "catalog", Warnings: diag.Problems{
			warn("etcd", "about etcd"), warn("windows", "about windows 1"), warn("windows", "about windows 2"),
			warn("mcs", "about mcs"), warn("", "about the catalog"),
		}}}},
	}
	var got []string
	for _, w := range LoadWarnings(set, nil) {
		got = append(got, w.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"input.yaml: an input warning", "catalog/etcd: about etcd", "about the catalog",
		"catalog: CatalogSource/olm/community: 3 warnings about 2 packages this run does not use (mcs, windows) are not shown: olm-render catalog validate lists them"} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings\n%s\nlack %q", all, want)
		}
	}
	if strings.Contains(all, "about windows") || len(got) != 4 {
		t.Errorf("warnings\n%s\nshould count the unused packages' warnings in one", all)
	}
}

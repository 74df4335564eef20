package lock

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// operators loads the corpus's operators once per test binary.
var operators = sync.OnceValues(func() (*catalog.Catalog, error) {
	dir, err := corpus.Path()
	if err != nil {
		return nil, err
	}
	return catalog.Load(filepath.Join(dir, "operators"))
})

// graphSet is one namespace with an OperatorGroup and Subscriptions to the real operators
// catalog.
func graphSet(t *testing.T, subs ...*inputs.Subscription) *inputs.Set {
	t.Helper()
	fixture.Corpus(t)
	c, err := operators()
	if err != nil {
		t.Fatalf("loading the corpus's operators: %v", err)
	}
	og := &inputs.OperatorGroup{}
	og.Name, og.Namespace = "og", "ops"
	return &inputs.Set{
		OperatorGroups: []*inputs.OperatorGroup{og},
		Subscriptions:  subs,
		Catalogs:       []*inputs.Catalog{{Name: "community", Namespace: "olm", Catalog: c}},
	}
}

func sub(name, pkg, channel, starting string, approval v1alpha1.Approval) *inputs.Subscription {
	s := &inputs.Subscription{}
	s.Name, s.Namespace = name, "ops"
	s.Spec = &v1alpha1.SubscriptionSpec{Package: pkg, Channel: channel, StartingCSV: starting,
		CatalogSource: "community", CatalogSourceNamespace: "olm", InstallPlanApproval: approval}
	return s
}

func resolveFunc(ctx context.Context, set *inputs.Set, installed map[string]string, pinned map[string]bool) (*resolver.Result, error) {
	return resolver.Resolve(ctx, set, resolver.Options{Installed: installed, Pinned: pinned})
}

// initialLock resolves the set afresh and locks it.
func initialLock(t *testing.T, set *inputs.Set) *Lock {
	t.Helper()
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := FromResult(res)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func steps(out *UpgradeResult) []string {
	var s []string
	for _, step := range out.Steps {
		var parts []string
		for _, c := range step {
			parts = append(parts, c.String())
		}
		s = append(s, strings.Join(parts, "; "))
	}
	return s
}

// TestUpgradeGraphs walks real upgrade graphs step by step through the lock file.
func TestUpgradeGraphs(t *testing.T) {
	tests := []struct {
		name   string
		sub    *inputs.Subscription
		edit   func(*inputs.Subscription) // applied after locking: a change in Git
		want   []string
		prefix bool // want lists only the first steps
	}{
		{
			name: "etcd singlenamespace chain",
			sub:  sub("etcd", "etcd", "singlenamespace-alpha", "etcdoperator.v0.9.0", ""),
			want: []string{"ops/etcd: etcdoperator.v0.9.0 → etcdoperator.v0.9.2", "ops/etcd: etcdoperator.v0.9.2 → etcdoperator.v0.9.4"},
		},
		{
			name: "etcd clusterwide chain from the same start",
			sub:  sub("etcd", "etcd", "clusterwide-alpha", "etcdoperator.v0.9.0", ""),
			want: []string{"ops/etcd: etcdoperator.v0.9.0 → etcdoperator.v0.9.2-clusterwide", "ops/etcd: etcdoperator.v0.9.2-clusterwide → etcdoperator.v0.9.4-clusterwide"},
		},
		{
			name: "oadp skipRange jumps to the head",
			sub:  sub("oadp", "oadp-operator", "stable", "oadp-operator.v0.5.0", ""),
			want: []string{"ops/oadp: oadp-operator.v0.5.0 → oadp-operator.v0.5.6"},
		},
		{
			name: "cockroachdb moves to a new channel whose head skipRange-covers it",
			sub:  sub("cockroachdb", "cockroachdb", "stable-5.x", "cockroachdb.v5.0.3", ""),
			edit: func(s *inputs.Subscription) { s.Spec.Channel = "stable-v6.x" },
			want: []string{"ops/cockroachdb: cockroachdb.v5.0.3 → cockroachdb.v6.0.0"},
		},
		{
			name: "cockroachdb stays when the new channel has no edge from it",
			sub:  sub("cockroachdb", "cockroachdb", "stable", "cockroachdb.v2.1.11", ""),
			edit: func(s *inputs.Subscription) { s.Spec.Channel = "stable-3.x" },
			want: nil,
		},
		{
			name: "multicluster-operators-subscription upgrades past the drop of AllNamespaces",
			sub:  sub("mcs", "multicluster-operators-subscription", "release-2.3", "multicluster-operators-subscription.v0.2.5", ""),
			want: []string{"ops/mcs: multicluster-operators-subscription.v0.2.5 → multicluster-operators-subscription.v0.2.6",
				"ops/mcs: multicluster-operators-subscription.v0.2.6 → multicluster-operators-subscription.v0.2.7"},
			prefix: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := graphSet(t, tt.sub)
			l := initialLock(t, set)
			if tt.edit != nil {
				tt.edit(tt.sub)
				// The lock's intent follows Git; the installed bundle stays.
				for i := range l.Namespaces[0].Subscriptions {
					l.Namespaces[0].Subscriptions[i].Intent = IntentOf(tt.sub)
				}
			}
			out, err := Upgrade(context.Background(), UpgradeRequest{Set: set, Lock: l, All: true, ToHead: true, Resolve: resolveFunc})
			if err != nil {
				t.Fatal(err)
			}
			got := steps(out)
			if tt.prefix && len(got) > len(tt.want) {
				got = got[:len(tt.want)] // the first steps of a longer walk
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(steps(out), "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestManualHeldUntilNamed: --all holds a Manual Subscription; naming it moves it one step.
func TestManualHeldUntilNamed(t *testing.T) {
	manual := sub("etcd", "etcd", "singlenamespace-alpha", "etcdoperator.v0.9.0", v1alpha1.ApprovalManual)
	set := graphSet(t, manual)
	l := initialLock(t, set)
	out, err := Upgrade(context.Background(), UpgradeRequest{Set: set, Lock: l, All: true, Resolve: resolveFunc})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Steps) != 0 || len(out.Held) != 1 || !strings.Contains(out.Held[0].String(), "Manual") {
		t.Fatalf("--all moved a Manual Subscription: steps %v, held %v", steps(out), out.Held)
	}
	out, err = Upgrade(context.Background(), UpgradeRequest{Set: set, Lock: l, Subscriptions: []string{"etcd"}, Resolve: resolveFunc})
	if err != nil {
		t.Fatal(err)
	}
	if got := steps(out); len(got) != 1 || got[0] != "ops/etcd: etcdoperator.v0.9.0 → etcdoperator.v0.9.2" {
		t.Fatalf("naming it: %v", got)
	}
}

// TestUpgradeableFalseHolds: an OperatorCondition with Upgradeable=False holds the CSV.
func TestUpgradeableFalseHolds(t *testing.T) {
	s := sub("etcd", "etcd", "singlenamespace-alpha", "etcdoperator.v0.9.0", "")
	set := graphSet(t, s)
	oc := &inputs.OperatorCondition{}
	oc.Name, oc.Namespace = "etcdoperator.v0.9.0", "ops"
	oc.Spec.Conditions = []metav1.Condition{{Type: operatorsv2.Upgradeable, Status: metav1.ConditionFalse, Reason: "Migrating", Message: "a data migration is running"}}
	set.OperatorConditions = append(set.OperatorConditions, oc)
	l := initialLock(t, set)
	out, err := Upgrade(context.Background(), UpgradeRequest{Set: set, Lock: l, All: true, Resolve: resolveFunc})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Steps) != 0 || len(out.Held) != 1 || !strings.Contains(out.Held[0].Reason, "a data migration is running") {
		t.Fatalf("steps %v, held %v", steps(out), out.Held)
	}
}

// TestLockSurvivesNewerBundles: a locked render keeps its bundle although the channel has newer
// ones; and a locked bundle missing from the catalog is an error that says so.
func TestLockSurvivesNewerBundles(t *testing.T) {
	set := graphSet(t, sub("etcd", "etcd", "singlenamespace-alpha", "etcdoperator.v0.9.2", ""))
	l := initialLock(t, set)
	pinned := map[string]bool{"ops/etcd": true}
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{Installed: l.Installed(), Pinned: pinned})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Namespaces[0].Selections[0].Bundle.Name; got != "etcdoperator.v0.9.2" {
		t.Fatalf("locked render chose %s", got)
	}
	gone := map[string]string{"ops/etcd": "etcdoperator.v0.9.3"}
	_, err = resolver.Resolve(context.Background(), set, resolver.Options{Installed: gone, Pinned: pinned})
	if err == nil || !strings.Contains(err.Error(), "bundle etcdoperator.v0.9.3 installed for Subscription ops/etcd is no longer in catalog olm/community") {
		t.Fatalf("error %v", err)
	}
}

// TestAllNamespacesDroppedMidGraph: multicluster-operators-subscription 0.2.6 drops
// AllNamespaces. OLM resolves the upgrade anyway (install modes play no part in resolution) and
// the new CSV fails UnsupportedOperatorGroup under the global group; olm-render's upgrade moves
// the lock, and the next render fails with OLM's reason, so the pull request shows it.
func TestAllNamespacesDroppedMidGraph(t *testing.T) {
	set := graphSet(t, sub("mcs", "multicluster-operators-subscription", "release-2.3", "multicluster-operators-subscription.v0.2.5", ""))
	l := initialLock(t, set)
	out, err := Upgrade(context.Background(), UpgradeRequest{Set: set, Lock: l, All: true, Resolve: resolveFunc})
	if err != nil {
		t.Fatal(err)
	}
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{Installed: out.Lock.Installed(), Pinned: map[string]bool{"ops/mcs": true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = render.Render(set, res, render.Options{})
	var f *render.Failure
	if !errors.As(err, &f) || f.CSVs[0].Reason != "UnsupportedOperatorGroup" ||
		f.CSVs[0].Message != "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces" {
		t.Fatalf("render after the upgrade: %v", err)
	}
}

package approve

import (
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/olm-render/olm-render/resolver/contract"
)

// The contract of the tests' namespaces: widget locked to v1.3.0 (which v1.0.0, v1.1.0 and
// v1.2.0 lead up to), and gadget, a dependency OLM subscribes to, locked to v2.0.0.
var (
	widget = contract.Subscription{Name: "widget", Package: "widget", Channel: "stable", Locked: "widget.v1.3.0",
		Steps: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}}
	gadget = contract.Subscription{Name: "gadget-stable-community-olm", Generated: true, Package: "gadget", Channel: "stable",
		Locked: "gadget.v2.0.0", Steps: []string{"gadget.v1.0.0"}}
)

// contractNS returns the contract of namespace ns over the Subscriptions.
func contractNS(ns string, subs ...contract.Subscription) *contract.Namespace {
	return &contract.Namespace{Namespace: ns, Subscriptions: subs}
}

// contractIn returns the Contract the approver reads for namespace ns and the Subscriptions.
func contractIn(ns string, subs ...contract.Subscription) Contract {
	return Contract{Namespace: ns, Found: true, Contract: contractNS(ns, subs...)}
}

// contractMap returns the contract ConfigMap of namespace ns and the Subscriptions.
func contractMap(t *testing.T, ns string, subs ...contract.Subscription) *corev1.ConfigMap {
	t.Helper()
	cm, err := contract.ConfigMap(*contractNS(ns, subs...))
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// planOpt changes a plan.
type planOpt func(*v1alpha1.InstallPlan)

// planT is an InstallPlan, for short.
type planT = v1alpha1.InstallPlan

// waitingPlan returns a Manual plan of namespace ns waiting for approval, generation 1.
func waitingPlan(ns, name string, csvs []string, opts ...planOpt) *v1alpha1.InstallPlan {
	p := &v1alpha1.InstallPlan{
		TypeMeta:   typeMeta(v1alpha1.InstallPlanKind),
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), CreationTimestamp: metav1.NewTime(time.Unix(1000, 0))},
		Spec:       v1alpha1.InstallPlanSpec{ClusterServiceVersionNames: csvs, Approval: v1alpha1.ApprovalManual, Generation: 1},
		Status:     v1alpha1.InstallPlanStatus{Phase: v1alpha1.InstallPlanPhaseRequiresApproval},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// approved marks a plan approved, in phase.
func approved(phase v1alpha1.InstallPlanPhase) planOpt {
	return func(p *v1alpha1.InstallPlan) { p.Spec.Approved, p.Status.Phase = true, phase }
}

// automatic makes a plan Automatic (and so approved, by OLM), in phase Installing.
func automatic(p *v1alpha1.InstallPlan) {
	p.Spec.Approval, p.Spec.Approved, p.Status.Phase = v1alpha1.ApprovalAutomatic, true, v1alpha1.InstallPlanPhaseInstalling
}

// generation sets a plan's generation.
func generation(g int) planOpt {
	return func(p *v1alpha1.InstallPlan) { p.Spec.Generation = g }
}

// subOpt changes a Subscription.
type subOpt func(*v1alpha1.Subscription)

// subscription returns a Subscription of namespace ns that installed installed (none: "") and
// whose current CSV is current, with the InstallPlan plan (none: "").
func subscription(ns, name, installed, current, plan string, opts ...subOpt) v1alpha1.Subscription {
	s := v1alpha1.Subscription{
		TypeMeta:   typeMeta(v1alpha1.SubscriptionKind),
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       &v1alpha1.SubscriptionSpec{Package: name, Channel: "stable", CatalogSource: "community", CatalogSourceNamespace: "olm", InstallPlanApproval: v1alpha1.ApprovalManual},
		Status:     v1alpha1.SubscriptionStatus{InstalledCSV: installed, CurrentCSV: current},
	}
	if plan != "" {
		s.Status.InstallPlanRef = &corev1.ObjectReference{Namespace: ns, Name: plan, Kind: v1alpha1.InstallPlanKind}
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// resolutionFailed sets the Subscription's ResolutionFailed condition.
func resolutionFailed(msg string) subOpt {
	return func(s *v1alpha1.Subscription) {
		s.Status.Conditions = append(s.Status.Conditions, v1alpha1.SubscriptionCondition{
			Type: v1alpha1.SubscriptionResolutionFailed, Status: corev1.ConditionTrue, Message: msg})
	}
}

// csv returns a CSV of namespace ns in phase.
func csv(ns, name string, phase v1alpha1.ClusterServiceVersionPhase) v1alpha1.ClusterServiceVersion {
	return v1alpha1.ClusterServiceVersion{
		TypeMeta:   typeMeta(v1alpha1.ClusterServiceVersionKind),
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Status:     v1alpha1.ClusterServiceVersionStatus{Phase: phase},
	}
}

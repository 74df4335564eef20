package importer

import (
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// snapshot is what Read found in the cluster.
type snapshot struct {
	subscriptions  []*subscription
	groups         []*unstructured.Unstructured
	catalogSources []*catalogSource
	csvs           []*csvInfo
	// copyNamespaces hold copies of the installed CSVs.
	copyNamespaces []string
	installPlans   []*installPlanInfo
	configs        []*unstructured.Unstructured
	// catalogPods are the pods of each CatalogSource given by a tag, by "namespace/name".
	catalogPods map[string][]*corev1.Pod
	namespaces  []*unstructured.Unstructured
	// conditions are the OperatorConditions of the imported namespaces.
	conditions []*unstructured.Unstructured
}

// subscription is a live Subscription, typed, and as read.
type subscription struct {
	*v1alpha1.Subscription
	raw *unstructured.Unstructured
}

// catalogSource is a live CatalogSource, typed, and as read.
type catalogSource struct {
	*v1alpha1.CatalogSource
	raw *unstructured.Unstructured
}

// csvInfo is what an import needs of an installed CSV (CSVs are read field by field: a typed
// decode of a whole CSV fails on the oddities bundles ship).
type csvInfo struct {
	Namespace, Name   string
	Version, Replaces string
	Phase             v1alpha1.ClusterServiceVersionPhase
	Reason, Message   string
}

// installPlanInfo is what an import needs of an InstallPlan.
type installPlanInfo struct {
	Namespace, Name string
	Approval        v1alpha1.Approval
	Approved        bool
	CSVNames        []string
	Phase           v1alpha1.InstallPlanPhase
}

// typedAll converts every item.
func typedAll[T any](items []*unstructured.Unstructured, conv func(*unstructured.Unstructured) (T, error)) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, u := range items {
		t, err := conv(u)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// decode converts an object into its typed form.
func decode[T any](u *unstructured.Unstructured) (*T, error) {
	var t T
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t); err != nil {
		return nil, fmt.Errorf("decoding %s %s: %w", u.GetKind(), qualified(u.GetNamespace(), u.GetName()), err)
	}
	return &t, nil
}

func toSubscription(u *unstructured.Unstructured) (*subscription, error) {
	t, err := decode[v1alpha1.Subscription](u)
	if err != nil {
		return nil, err
	}
	if t.Spec == nil {
		t.Spec = &v1alpha1.SubscriptionSpec{}
	}
	return &subscription{Subscription: t, raw: u}, nil
}

func toCatalogSource(u *unstructured.Unstructured) (*catalogSource, error) {
	t, err := decode[v1alpha1.CatalogSource](u)
	if err != nil {
		return nil, err
	}
	return &catalogSource{CatalogSource: t, raw: u}, nil
}

func toPod(u *unstructured.Unstructured) (*corev1.Pod, error) {
	return decode[corev1.Pod](u)
}

func toCSV(u *unstructured.Unstructured) (*csvInfo, error) {
	return &csvInfo{
		Namespace: u.GetNamespace(),
		Name:      u.GetName(),
		Version:   nestedString(u, "spec", "version"),
		Replaces:  nestedString(u, "spec", "replaces"),
		Phase:     v1alpha1.ClusterServiceVersionPhase(nestedString(u, "status", "phase")),
		Reason:    nestedString(u, "status", "reason"),
		Message:   nestedString(u, "status", "message"),
	}, nil
}

func toInstallPlan(u *unstructured.Unstructured) (*installPlanInfo, error) {
	names, _, err := unstructured.NestedStringSlice(u.Object, "spec", "clusterServiceVersionNames")
	if err != nil {
		return nil, fmt.Errorf("InstallPlan %s: spec.clusterServiceVersionNames: %w", qualified(u.GetNamespace(), u.GetName()), err)
	}
	approved, _, err := unstructured.NestedBool(u.Object, "spec", "approved")
	if err != nil {
		return nil, fmt.Errorf("InstallPlan %s: spec.approved: %w", qualified(u.GetNamespace(), u.GetName()), err)
	}
	return &installPlanInfo{
		Namespace: u.GetNamespace(),
		Name:      u.GetName(),
		Approval:  v1alpha1.Approval(nestedString(u, "spec", "approval")),
		Approved:  approved,
		CSVNames:  names,
		Phase:     v1alpha1.InstallPlanPhase(nestedString(u, "status", "phase")),
	}, nil
}

// nestedString returns a string field, "" when it is missing or not a string.
func nestedString(u *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, fields...)
	return s
}

// installPlanName is the InstallPlan a Subscription points at, if any.
func installPlanName(sub *subscription) string {
	switch {
	case sub.Status.InstallPlanRef != nil:
		return sub.Status.InstallPlanRef.Name
	case sub.Status.Install != nil:
		return sub.Status.Install.Name
	}
	return ""
}

// sourceKeys lists the CatalogSources the Subscriptions name, as "namespace/name", sorted.
func (s *snapshot) sourceKeys() []string {
	var keys []string
	for _, sub := range s.subscriptions {
		keys = append(keys, qualified(sourceNamespace(sub), sub.Spec.CatalogSource))
	}
	return sortedUnique(keys)
}

// sourceNamespace is the namespace of a Subscription's CatalogSource (its own when unset).
func sourceNamespace(sub *subscription) string {
	if sub.Spec.CatalogSourceNamespace != "" {
		return sub.Spec.CatalogSourceNamespace
	}
	return sub.Namespace
}

// csvNamespaces lists the namespaces holding installed CSVs, sorted.
func (s *snapshot) csvNamespaces() []string {
	var out []string
	for _, c := range s.csvs {
		out = append(out, c.Namespace)
	}
	return sortedUnique(out)
}

// installedCSV returns the installed CSV namespace/name, or nil.
func (s *snapshot) installedCSV(ns, name string) *csvInfo {
	for _, c := range s.csvs {
		if c.Namespace == ns && c.Name == name {
			return c
		}
	}
	return nil
}

// catalogSource returns the CatalogSource namespace/name, or nil.
func (s *snapshot) catalogSource(ns, name string) *catalogSource {
	for _, c := range s.catalogSources {
		if c.Namespace == ns && c.Name == name {
			return c
		}
	}
	return nil
}

// installPlan returns the InstallPlan namespace/name, or nil.
func (s *snapshot) installPlan(ns, name string) *installPlanInfo {
	for _, ip := range s.installPlans {
		if ip.Namespace == ns && ip.Name == name {
			return ip
		}
	}
	return nil
}

// namespaceNames lists the Namespaces an import holds: those of the imported objects, those an
// OperatorGroup targets, and those holding copies of the installed CSVs.
func (s *snapshot) namespaceNames() []string {
	var names []string
	for _, sub := range s.subscriptions {
		names = append(names, sub.Namespace)
	}
	for _, cs := range s.catalogSources {
		names = append(names, cs.Namespace)
	}
	for _, g := range s.groups {
		names = append(names, g.GetNamespace())
		targets, _, _ := unstructured.NestedStringSlice(g.Object, "status", "namespaces")
		names = append(names, targets...)
	}
	names = append(names, s.copyNamespaces...)
	return sortedUnique(names)
}

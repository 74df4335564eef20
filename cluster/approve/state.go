package approve

import (
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The OLM resources the approver reads, through the dynamic client (OLM's typed clientset is no
// dependency of this module).
var (
	installPlansResource  = v1alpha1.SchemeGroupVersion.WithResource("installplans")
	subscriptionsResource = v1alpha1.SchemeGroupVersion.WithResource("subscriptions")
	csvsResource          = v1alpha1.SchemeGroupVersion.WithResource("clusterserviceversions")
)

// notCopied selects the CSVs OLM did not copy from another namespace: a copied CSV is no
// Subscription's, and every namespace an AllNamespaces operator targets holds one.
const notCopied = "!" + v1alpha1.CopiedLabelKey

// State is what the approver reads of one namespace.
type State struct {
	Namespace string
	Contract  Contract
	// ConfigMap is the namespace's contract ConfigMap, nil when it has none.
	ConfigMap     *corev1.ConfigMap
	Plans         []v1alpha1.InstallPlan
	Subscriptions []v1alpha1.Subscription
	CSVs          []v1alpha1.ClusterServiceVersion
}

// newState returns the state of a namespace with its contract ConfigMap (nil: none).
func newState(namespace string, cm *corev1.ConfigMap) *State {
	return &State{Namespace: namespace, ConfigMap: cm, Contract: ContractOf(namespace, cm)}
}

// add adds an OLM object, read through the dynamic client, to the state.
func (s *State) add(u *unstructured.Unstructured) error {
	switch u.GetKind() {
	case v1alpha1.InstallPlanKind:
		var p v1alpha1.InstallPlan
		if err := fromUnstructured(u, &p); err != nil {
			return err
		}
		p.TypeMeta = typeMeta(v1alpha1.InstallPlanKind)
		s.Plans = append(s.Plans, p)
	case v1alpha1.SubscriptionKind:
		var sub v1alpha1.Subscription
		if err := fromUnstructured(u, &sub); err != nil {
			return err
		}
		s.Subscriptions = append(s.Subscriptions, sub)
	case v1alpha1.ClusterServiceVersionKind:
		var csv v1alpha1.ClusterServiceVersion
		if err := fromUnstructured(u, &csv); err != nil {
			return err
		}
		s.CSVs = append(s.CSVs, csv)
	}
	return nil
}

// fromUnstructured converts an OLM object, trimmed to what the approver reads, to its type.
func fromUnstructured(u *unstructured.Unstructured, into any) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(trim(u).Object, into); err != nil {
		return fmt.Errorf("reading %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

// typeMeta is the TypeMeta of an operators.coreos.com/v1alpha1 kind: Events name the object
// by it.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: kind}
}

// trim returns what the approver reads of an OLM object: its identity, and of an InstallPlan its
// spec and phase, of a Subscription its spec and status, of a CSV its phase and why. The rest
// (a CSV's whole spec and its alm-examples, an InstallPlan's manifests) can be large, and a
// controller keeps every object it watches in memory.
func trim(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind(), "metadata": trimMeta(u)}
	spec, _ := u.Object["spec"].(map[string]any)
	status, _ := u.Object["status"].(map[string]any)
	switch u.GetKind() {
	case v1alpha1.InstallPlanKind:
		status = pick(status, "phase", "message")
	case v1alpha1.ClusterServiceVersionKind:
		spec, status = nil, pick(status, "phase", "reason", "message")
	}
	if spec != nil {
		out["spec"] = spec
	}
	if status != nil {
		out["status"] = status
	}
	return &unstructured.Unstructured{Object: out}
}

// trimMeta keeps the metadata the approver reads.
func trimMeta(u *unstructured.Unstructured) map[string]any {
	meta, _ := u.Object["metadata"].(map[string]any)
	return pick(meta, "name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "labels", "ownerReferences")
}

// pick returns the given keys of a map, nil for a nil map.
func pick(m map[string]any, keys ...string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// transform trims an object an informer stores (see trim); anything else passes.
func transform(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return trim(u), nil
	}
	return obj, nil
}

package render

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/rbac"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
)

// installSet collects the objects of one install in the order OLM writes them, with the effect
// OLM's writers have on an object that already exists, and whether the CSV owns each one (by an
// ownerReference or by owner labels: what OLM's adoption controller looks for).
type installSet struct {
	csv   *v1alpha1.ClusterServiceVersion
	objs  []*unstructured.Unstructured
	owned []bool
	index map[emit.Key]int
	errs  []error
}

// create writes obj as an InstallPlan step does (the catalog operator's StepEnsurer): created,
// or, when an earlier step wrote the same object, updated to this one. An update keeps what the
// ensurer keeps: a ServiceAccount's secrets, annotations and owners; the CSV as owner label of a
// ClusterRole or ClusterRoleBinding (EnsureClusterRole, EnsureClusterRoleBinding).
func (s *installSet) create(obj any, owned bool) {
	u, k, ok := s.key(obj)
	if !ok {
		return
	}
	i, exists := s.index[k]
	if !exists {
		s.append(k, u, owned)
		return
	}
	prev := s.objs[i]
	switch u.GetKind() {
	case "ServiceAccount":
		u = mergeServiceAccount(prev, u)
		owned = owned || s.owned[i]
	case "ClusterRole", "ClusterRoleBinding":
		setLabel(u, rbac.OwnerLabel, s.csv.Name)
	}
	if err := immutableRoleRef(prev, u); err != nil {
		s.errs = append(s.errs, err)
		return
	}
	s.objs[i], s.owned[i] = u, owned
}

// apply writes obj as the olm-operator's server-side apply (field manager olm.install, forced)
// writes its webhook and APIService objects. Onto an object an earlier step wrote, a Service is
// merged as the API server merges it (labels and annotations by key, ports by port and protocol,
// the selector atomic); any other kind is replaced.
func (s *installSet) apply(obj any, owned bool) {
	u, k, ok := s.key(obj)
	if !ok {
		return
	}
	i, exists := s.index[k]
	if !exists {
		s.append(k, u, owned)
		return
	}
	if u.GetKind() == "Service" {
		u = applyService(s.objs[i], u)
	}
	s.objs[i], s.owned[i] = u, owned || s.owned[i]
}

// ensure writes obj as the olm-operator's get-then-create does: only when absent
// (ensureSingletonRBAC).
func (s *installSet) ensure(obj any, owned bool) {
	u, k, ok := s.key(obj)
	if !ok {
		return
	}
	if _, exists := s.index[k]; !exists {
		s.append(k, u, owned)
	}
}

func (s *installSet) key(obj any) (*unstructured.Unstructured, emit.Key, bool) {
	u, err := toUnstructured(obj)
	if err != nil {
		s.errs = append(s.errs, err)
		return nil, emit.Key{}, false
	}
	return u, emit.KeyOf(u), true
}

func (s *installSet) append(k emit.Key, u *unstructured.Unstructured, owned bool) {
	if s.index == nil {
		s.index = map[emit.Key]int{}
	}
	s.index[k] = len(s.objs)
	s.objs = append(s.objs, u)
	s.owned = append(s.owned, owned)
}

// adopt applies OLM's adoption controller (adoption_controller.go, adoptees): the component
// label goes on every object of a component kind the CSV owns, and on the CRDs the CSV lists as
// owned.
func (s *installSet) adopt(label string) {
	owned := map[string]bool{}
	for _, d := range s.csv.Spec.CustomResourceDefinitions.Owned {
		owned[d.Name] = true
	}
	for i, u := range s.objs {
		gk := u.GroupVersionKind().GroupKind()
		if !componentKinds[gk] {
			continue
		}
		if s.owned[i] || gk.Kind == "CustomResourceDefinition" && owned[u.GetName()] {
			setLabel(u, label, "")
		}
	}
}

// componentKinds are the kinds the adoption controller lists (OLM components.go).
var componentKinds = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}:                               true,
	{Kind: "Service"}:                                                 true,
	{Kind: "Namespace"}:                                               true,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:             true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: true,
	{Group: "operators.coreos.com", Kind: "Subscription"}:             true,
	{Group: "operators.coreos.com", Kind: "InstallPlan"}:              true,
	{Group: "operators.coreos.com", Kind: "ClusterServiceVersion"}:    true,
	{Group: "operators.coreos.com", Kind: "OperatorCondition"}:        true,
	{Kind: "Secret"}:         true,
	{Kind: "ConfigMap"}:      true,
	{Kind: "ServiceAccount"}: true,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               true,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: true,
}

// applyService merges an applied Service onto an existing one as server-side apply does.
func applyService(prev, applied *unstructured.Unstructured) *unstructured.Unstructured {
	out := prev.DeepCopy()
	for _, field := range []string{"labels", "annotations"} {
		m, _, _ := unstructured.NestedStringMap(out.Object, "metadata", field)
		add, _, _ := unstructured.NestedStringMap(applied.Object, "metadata", field)
		if len(add) == 0 {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		maps.Copy(m, add)
		_ = unstructured.SetNestedStringMap(out.Object, m, "metadata", field)
	}
	if sel, ok, _ := unstructured.NestedFieldCopy(applied.Object, "spec", "selector"); ok {
		_ = unstructured.SetNestedField(out.Object, sel, "spec", "selector")
	}
	ports, _, _ := unstructured.NestedSlice(out.Object, "spec", "ports")
	add, _, _ := unstructured.NestedSlice(applied.Object, "spec", "ports")
	for _, p := range add {
		pm, _ := p.(map[string]any)
		if j := portIndex(ports, pm); j >= 0 {
			merged, _ := ports[j].(map[string]any)
			maps.Copy(merged, pm)
			continue
		}
		ports = append(ports, p)
	}
	if len(ports) > 0 {
		_ = unstructured.SetNestedSlice(out.Object, ports, "spec", "ports")
	}
	return out
}

// portIndex finds a Service port by its merge key, port and protocol (TCP when unset).
func portIndex(ports []any, p map[string]any) int {
	protocol := func(m map[string]any) any {
		if v, ok := m["protocol"]; ok && v != "" {
			return v
		}
		return "TCP"
	}
	for j, q := range ports {
		qm, _ := q.(map[string]any)
		if fmt.Sprint(qm["port"]) == fmt.Sprint(p["port"]) && protocol(qm) == protocol(p) {
			return j
		}
	}
	return -1
}

// mergeServiceAccount is EnsureServiceAccount's update of prev by next: next, with prev's
// secrets and the annotations of prev that next lacks.
func mergeServiceAccount(prev, next *unstructured.Unstructured) *unstructured.Unstructured {
	out := next.DeepCopy()
	if secrets, ok := prev.Object["secrets"]; ok {
		out.Object["secrets"] = secrets
	} else {
		delete(out.Object, "secrets")
	}
	annotations := out.GetAnnotations()
	for k, v := range prev.GetAnnotations() {
		if _, ok := annotations[k]; !ok {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[k] = v
		}
	}
	if annotations != nil {
		out.SetAnnotations(annotations)
	}
	return out
}

// immutableRoleRef fails an update that changes a binding's roleRef: the API server refuses it,
// and with it OLM's InstallPlan.
func immutableRoleRef(prev, next *unstructured.Unstructured) error {
	if k := next.GetKind(); k != "RoleBinding" && k != "ClusterRoleBinding" {
		return nil
	}
	a, _, _ := unstructured.NestedMap(prev.Object, "roleRef")
	b, _, _ := unstructured.NestedMap(next.Object, "roleRef")
	if !equality.Semantic.DeepEqual(a, b) {
		return fmt.Errorf("%s %s is written twice with different roleRefs: the API server refuses the second (roleRef is immutable), so OLM's InstallPlan fails", next.GetKind(), next.GetName())
	}
	return nil
}

func setLabel(u *unstructured.Unstructured, key, value string) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[key] = value
	u.SetLabels(labels)
}

// stepKinds are the kinds of bundle objects OLM's InstallPlan writes: those its ExecutePlan
// handles by name, and the supportedKinds of its default case (catalog/supportedresources.go).
// Any other kind fails the InstallPlan (StepStatusUnsupportedResource).
var stepKinds = []string{
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ServiceAccount",
	"Service", "ConfigMap", "Secret",
	"PrometheusRule", "ServiceMonitor", "PodDisruptionBudget", "PriorityClass", "VerticalPodAutoscaler",
	"ConsoleYAMLSample", "ConsoleQuickStart", "ConsoleCLIDownload", "ConsoleLink", "ConsolePlugin", "NetworkPolicy",
}

// setAlongside adds the installed-alongside annotation of a CSV: its key is the FNV-64a hash of
// namespace/name (OLM's internal/alongside).
func setAlongside(annotations map[string]string, ns, csv string) {
	key := ns + "/" + csv
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	annotations[fmt.Sprintf("%s%x", installedAlongsidePrefix, h.Sum64())] = key
}

// installedProvides reports whether the CSV an upgrade replaces provided the API of a CRD (an
// olm.gvk property of its bundle with the CRD's group and kind): it installed that CRD.
func installedProvides(sel *resolver.Selection, crd *unstructured.Unstructured) bool {
	if sel.Catalog == nil || sel.Catalog.Catalog == nil {
		return false
	}
	pkg := sel.Catalog.Catalog.Package(sel.Bundle.Package)
	if pkg == nil {
		return false
	}
	b := pkg.Bundle(sel.Installed)
	if b == nil {
		return false
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	for _, p := range b.Properties {
		var v catalog.GVKValue
		if p.Type == catalog.TypeGVK && json.Unmarshal(p.Value, &v) == nil && v.Group == group && v.Kind == kind {
			return true
		}
	}
	return false
}

// bundleObject prepares a non-CSV bundle object as the InstallPlan step for its kind writes it
// (catalog operator.go, ExecutePlan), and reports whether the CSV then owns it: CRDs get the
// installed-alongside annotation; ClusterRoles, ClusterRoleBindings, Roles, RoleBindings and
// ServiceAccounts only olm.managed; Services, ConfigMaps, Secrets and the namespaced supported
// kinds an ownerReference to the CSV; the cluster-scoped supported kinds its owner labels.
func bundleObject(in *install, src *unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
	kind := src.GetKind()
	if !slices.Contains(stepKinds, kind) {
		return nil, false, fmt.Errorf("the bundle ships %s %s, a kind OLM's InstallPlan does not install (UnsupportedResource: OLM's catalog/supportedresources.go), so OLM fails the install", kind, src.GetName())
	}
	u, err := typedObject(src.DeepCopy())
	if err != nil {
		return nil, false, err
	}
	// The API server drops a null creationTimestamp and ignores status on create.
	dropTimestamp(u.Object)
	delete(u.Object, "status")
	setLabel(u, managedLabel, "true")
	owned := false
	switch {
	case kind == "CustomResourceDefinition":
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		setAlongside(annotations, in.ns, in.csv.Name)
		// On an upgrade the step updates the CRD the replaced CSV installed, keeping the
		// references to CSVs that still exist, and the replaced one still does (catalog
		// step.go, setInstalledAlongsideAnnotation).
		if in.sel.Installed != "" && in.sel.Installed != in.csv.Name && installedProvides(in.sel, u) {
			setAlongside(annotations, in.ns, in.sel.Installed)
		}
		u.SetAnnotations(annotations)
	case kind == "ClusterRole" || kind == "ClusterRoleBinding":
	case kind == "Role" || kind == "RoleBinding" || kind == "ServiceAccount":
		u.SetNamespace(in.ns)
	case namespaced(u):
		u.SetNamespace(in.ns)
		owned = true
	default:
		setLabel(u, rbac.OwnerLabel, in.csv.Name)
		setLabel(u, rbac.OwnerNamespaceLabel, in.ns)
		setLabel(u, rbac.OwnerKindLabel, v1alpha1.ClusterServiceVersionKind)
		owned = true
	}
	return u, owned, nil
}

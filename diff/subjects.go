package diff

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const rbacGroup = "rbac.authorization.k8s.io"

// isRBAC reports whether u is a Role, ClusterRole, RoleBinding or ClusterRoleBinding.
func isRBAC(u *unstructured.Unstructured) bool {
	if u == nil || u.GroupVersionKind().Group != rbacGroup {
		return false
	}
	switch u.GetKind() {
	case "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding":
		return true
	}
	return false
}

// isBinding reports whether u is a RoleBinding or ClusterRoleBinding.
func isBinding(u *unstructured.Unstructured) bool {
	return isRBAC(u) && strings.HasSuffix(u.GetKind(), "Binding")
}

// subjectIndex tells which subjects each role and binding of both renders concerns.
type subjectIndex struct {
	before, after map[string][]string
}

// newSubjectIndex indexes the subjects bound to every role of both renders.
func newSubjectIndex(before, after map[Key]*unstructured.Unstructured) *subjectIndex {
	return &subjectIndex{before: boundSubjects(before), after: boundSubjects(after)}
}

// of returns the sorted subjects of a binding, or of the bindings that refer to a role, joined
// by ","; "" for other objects.
func (s *subjectIndex) of(u *unstructured.Unstructured, old bool) string {
	if !isRBAC(u) {
		return ""
	}
	if isBinding(u) {
		return strings.Join(bindingSubjects(u), ",")
	}
	idx := s.after
	if old {
		idx = s.before
	}
	return strings.Join(idx[roleID(u.GetKind(), u.GetNamespace(), u.GetName())], ",")
}

// boundSubjects maps every role a binding refers to onto the sorted subjects bound to it.
func boundSubjects(objs map[Key]*unstructured.Unstructured) map[string][]string {
	out := map[string][]string{}
	for _, k := range sortedObjectKeys(objs) {
		u := objs[k]
		if !isBinding(u) {
			continue
		}
		kind, _, _ := unstructured.NestedString(u.Object, "roleRef", "kind")
		name, _, _ := unstructured.NestedString(u.Object, "roleRef", "name")
		ns := u.GetNamespace()
		if kind == "ClusterRole" {
			ns = ""
		}
		id := roleID(kind, ns, name)
		out[id] = append(out[id], bindingSubjects(u)...)
	}
	for id, subjects := range out {
		slices.Sort(subjects)
		out[id] = slices.Compact(subjects)
	}
	return out
}

// roleID names a role for boundSubjects.
func roleID(kind, namespace, name string) string {
	return kind + "/" + namespace + "/" + name
}

// bindingSubjects returns a binding's subjects, sorted and distinct: "ServiceAccount:ns/name"
// (a RoleBinding's namespace when the subject has none), or "Kind:name".
func bindingSubjects(u *unstructured.Unstructured) []string {
	list, _, _ := unstructured.NestedSlice(u.Object, "subjects")
	var out []string
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		ns, _ := m["namespace"].(string)
		if kind == "ServiceAccount" {
			name = cmp.Or(ns, u.GetNamespace()) + "/" + name
		}
		out = append(out, kind+":"+name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sortedObjectKeys returns the keys of objs in compareKeys order.
func sortedObjectKeys(objs map[Key]*unstructured.Unstructured) []Key {
	keys := make([]Key, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

package rbac

import (
	"maps"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CopyToNamespace returns the Roles and RoleBindings OLM's ensureTenantRBAC copies into one target
// namespace of a Single- or MultiNamespace OperatorGroup: each Role and RoleBinding of the CSV in
// operatorNamespace, moved to targetNamespace, relabelled to the copied CSV csvName there, with
// olm.copiedFrom: operatorNamespace and olm.managed: "true". RoleBinding subjects keep the
// ServiceAccount in operatorNamespace. Nothing is copied into the operator namespace itself, nor
// when the CSV's permissions are already met there (see the package documentation). ownerReferences
// (to the copied CSV) are omitted.
func CopyToNamespace(objs *Objects, csvName, operatorNamespace, targetNamespace string) ([]*rbacv1.Role, []*rbacv1.RoleBinding) {
	if targetNamespace == operatorNamespace || len(objs.Roles) == 0 {
		return nil, nil // OLM: same namespace is skipped; no roles is "owned roles not found in cache"
	}
	if met, valid := permissionsMet(objs); met || !valid {
		return nil, nil
	}
	labels := func(from map[string]string) map[string]string {
		out := maps.Clone(from)
		if out == nil {
			out = map[string]string{}
		}
		maps.Copy(out, ownerLabels(csvName, targetNamespace, csvKind))
		out[CopiedFromLabel] = operatorNamespace
		return out
	}
	var roles []*rbacv1.Role
	for _, r := range objs.Roles {
		if r.Namespace != operatorNamespace {
			continue
		}
		roles = append(roles, &rbacv1.Role{
			TypeMeta:   r.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{Name: r.Name, Namespace: targetNamespace, Labels: labels(r.Labels)},
			Rules:      copyRules(r.Rules),
		})
	}
	var bindings []*rbacv1.RoleBinding
	for _, b := range objs.RoleBindings {
		if b.Namespace != operatorNamespace {
			continue
		}
		bindings = append(bindings, &rbacv1.RoleBinding{
			TypeMeta:   b.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{Name: b.Name, Namespace: targetNamespace, Labels: labels(b.Labels)},
			Subjects:   copySubjects(b.Subjects),
			RoleRef:    b.RoleRef,
		})
	}
	return sortByName(roles), sortByName(bindings)
}

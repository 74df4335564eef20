package rbac

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lift returns the ClusterRoles and ClusterRoleBindings OLM's ensureSingletonRBAC makes from the
// CSV's Roles and RoleBindings when its OperatorGroup targets all namespaces: same names and
// labels, each ClusterRole with the Role's rules plus get/list/watch on namespaces, each binding's
// roleRef turned to the ClusterRole. OLM lifts only when the CSV's permissions are not already met
// cluster-wide; see the package documentation for how that is decided offline. Both results are
// nil when nothing is lifted.
func Lift(objs *Objects) ([]*rbacv1.ClusterRole, []*rbacv1.ClusterRoleBinding) {
	if len(objs.Roles) == 0 {
		return nil, nil // OLM: "no owned roles found"
	}
	if met, valid := permissionsMet(objs); met || !valid {
		return nil, nil
	}
	roles := make([]*rbacv1.ClusterRole, 0, len(objs.Roles))
	for _, r := range objs.Roles {
		roles = append(roles, liftRole(r))
	}
	bindings := make([]*rbacv1.ClusterRoleBinding, 0, len(objs.RoleBindings))
	for _, b := range objs.RoleBindings {
		bindings = append(bindings, liftBinding(b))
	}
	return sortByName(roles), sortByName(bindings)
}

// liftRole copies a Role to a ClusterRole of the same name and labels and appends the namespaces
// rule.
func liftRole(r *rbacv1.Role) *rbacv1.ClusterRole {
	rules := append(copyRules(r.Rules), rbacv1.PolicyRule{
		Verbs:     verbsFor(ViewSuffix),
		APIGroups: []string{corev1.GroupName},
		Resources: []string{"namespaces"},
	})
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: r.Name, Labels: maps.Clone(r.Labels)},
		Rules:      rules,
	}
}

// liftBinding copies a RoleBinding to a ClusterRoleBinding of the same name, labels and subjects
// whose roleRef names the lifted ClusterRole.
func liftBinding(b *rbacv1.RoleBinding) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: b.Name, Labels: maps.Clone(b.Labels)},
		Subjects:   copySubjects(b.Subjects),
		RoleRef:    rbacv1.RoleRef{APIGroup: b.RoleRef.APIGroup, Kind: "ClusterRole", Name: b.RoleRef.Name},
	}
}

// copySubjects copies subjects, keeping nil as nil.
func copySubjects(subjects []rbacv1.Subject) []rbacv1.Subject {
	if subjects == nil {
		return nil
	}
	return append([]rbacv1.Subject{}, subjects...)
}

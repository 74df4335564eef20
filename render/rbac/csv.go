package rbac

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/render/hash"
)

// defaultServiceAccount is bound but never created: every namespace already has it.
const defaultServiceAccount = "default"

// Objects are the RBAC objects OLM's InstallPlan creates for one CSV, each list sorted by name.
type Objects struct {
	// ServiceAccounts holds one ServiceAccount per distinct serviceAccountName, except "default".
	ServiceAccounts []*corev1.ServiceAccount
	// Roles holds one Role per permissions entry, in the CSV namespace.
	Roles []*rbacv1.Role
	// RoleBindings binds each Role to its ServiceAccount.
	RoleBindings []*rbacv1.RoleBinding
	// ClusterRoles holds one ClusterRole per clusterPermissions entry.
	ClusterRoles []*rbacv1.ClusterRole
	// ClusterRoleBindings binds each ClusterRole to its ServiceAccount.
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
}

var (
	errNoNamespace        = errors.New("csv has no namespace")
	errNoServiceAccount   = errors.New("empty serviceAccountName")
	errUnknownInstallKind = errors.New("unrecognized install strategy")
)

// ForCSV returns the ServiceAccounts, Roles, RoleBindings, ClusterRoles and ClusterRoleBindings
// OLM's RBACForClusterServiceVersion derives from the CSV's permissions and clusterPermissions, as
// ExecutePlan creates them in csv.Namespace (with olm.managed: "true", without ownerReferences).
func ForCSV(csv *v1alpha1.ClusterServiceVersion) (*Objects, error) {
	if csv.Namespace == "" {
		return nil, fmt.Errorf("csv %q: %w", csv.Name, errNoNamespace)
	}
	if name := csv.Spec.InstallStrategy.StrategyName; name != v1alpha1.InstallStrategyNameDeployment {
		return nil, fmt.Errorf("csv %q: %w %q", csv.Name, errUnknownInstallKind, name)
	}
	strategy := csv.Spec.InstallStrategy.StrategySpec
	objs := &Objects{}
	accounts := map[string]bool{}
	for i, perm := range strategy.Permissions {
		if perm.ServiceAccountName == "" {
			return nil, fmt.Errorf("csv %q: permissions[%d]: %w", csv.Name, i, errNoServiceAccount)
		}
		accounts[perm.ServiceAccountName] = true
		role := namespacedRole(csv, perm)
		objs.Roles = append(objs.Roles, role)
		objs.RoleBindings = append(objs.RoleBindings, namespacedBinding(csv, role.Name, perm.ServiceAccountName))
	}
	for i, perm := range strategy.ClusterPermissions {
		if perm.ServiceAccountName == "" {
			return nil, fmt.Errorf("csv %q: clusterPermissions[%d]: %w", csv.Name, i, errNoServiceAccount)
		}
		accounts[perm.ServiceAccountName] = true
		role := clusterRole(csv, perm)
		objs.ClusterRoles = append(objs.ClusterRoles, role)
		objs.ClusterRoleBindings = append(objs.ClusterRoleBindings, clusterBinding(csv, role.Name, perm.ServiceAccountName))
	}
	objs.ServiceAccounts = serviceAccounts(csv.Namespace, accounts)
	objs.sort()
	return objs, nil
}

// namespacedRole builds the Role for one permissions entry.
func namespacedRole(csv *v1alpha1.ClusterServiceVersion, perm v1alpha1.StrategyDeploymentPermissions) *rbacv1.Role {
	name := hash.GenerateName(csv.Name+"-"+perm.ServiceAccountName, struct {
		Name       string                                 `json:"name,omitempty"`
		Permission v1alpha1.StrategyDeploymentPermissions `json:"permission"`
	}{Name: csv.Name, Permission: perm})
	labels := ownerLabels(csv.Name, csv.Namespace, csvKind)
	labels[PermissionsHashLabel] = RulesHash(perm.Rules)
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: csv.Namespace, Labels: labels},
		Rules:      copyRules(perm.Rules),
	}
}

// namespacedBinding binds the Role named role to the ServiceAccount sa.
func namespacedBinding(csv *v1alpha1.ClusterServiceVersion, role, sa string) *rbacv1.RoleBinding {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role}
	subjects := accountSubjects(sa, csv.Namespace)
	labels := ownerLabels(csv.Name, csv.Namespace, csvKind)
	labels[PermissionsHashLabel] = BindingHash(ref, subjects)
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: role, Namespace: csv.Namespace, Labels: labels},
		RoleRef:    ref,
		Subjects:   subjects,
	}
}

// clusterRole builds the ClusterRole for one clusterPermissions entry; the CSV namespace is part
// of the hashed input, so the name is unique per install namespace.
func clusterRole(csv *v1alpha1.ClusterServiceVersion, perm v1alpha1.StrategyDeploymentPermissions) *rbacv1.ClusterRole {
	name := hash.GenerateName(csv.Name, struct {
		Name       string                                 `json:"name,omitempty"`
		Namespace  string                                 `json:"namespace,omitempty"`
		Permission v1alpha1.StrategyDeploymentPermissions `json:"permission"`
	}{Name: csv.Name, Namespace: csv.Namespace, Permission: perm})
	labels := ownerLabels(csv.Name, csv.Namespace, csvKind)
	labels[PermissionsHashLabel] = RulesHash(perm.Rules)
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Rules:      copyRules(perm.Rules),
	}
}

// clusterBinding binds the ClusterRole named role to the ServiceAccount sa. OLM also sets
// metadata.namespace on it, which the apiserver drops for a cluster-scoped kind; so do we.
func clusterBinding(csv *v1alpha1.ClusterServiceVersion, role, sa string) *rbacv1.ClusterRoleBinding {
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}
	subjects := accountSubjects(sa, csv.Namespace)
	labels := ownerLabels(csv.Name, csv.Namespace, csvKind)
	labels[PermissionsHashLabel] = BindingHash(ref, subjects)
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: role, Labels: labels},
		RoleRef:    ref,
		Subjects:   subjects,
	}
}

// accountSubjects is the single ServiceAccount subject OLM binds (no apiGroup).
func accountSubjects(sa, namespace string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: namespace}}
}

// serviceAccounts returns one ServiceAccount per name except "default", sorted by name.
func serviceAccounts(namespace string, names map[string]bool) []*corev1.ServiceAccount {
	sorted := make([]string, 0, len(names))
	for name := range names {
		if name != defaultServiceAccount {
			sorted = append(sorted, name)
		}
	}
	slices.Sort(sorted)
	out := make([]*corev1.ServiceAccount, 0, len(sorted))
	for _, name := range sorted {
		out = append(out, &corev1.ServiceAccount{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{
				Name:      name,
				Namespace: namespace,
				Labels:    map[string]string{ManagedLabel: ManagedValue},
			},
		})
	}
	return out
}

// sort orders every list by name and drops same-named duplicates. Two entries with the same name
// come from identical permission entries (the name hashes the whole entry); OLM creates the first
// and updates it with the identical second.
func (o *Objects) sort() {
	o.Roles = sortByName(o.Roles)
	o.RoleBindings = sortByName(o.RoleBindings)
	o.ClusterRoles = sortByName(o.ClusterRoles)
	o.ClusterRoleBindings = sortByName(o.ClusterRoleBindings)
}

// sortByName sorts objects by namespace then name and keeps the last of each same-named run.
func sortByName[T metav1.Object](objs []T) []T {
	slices.SortStableFunc(objs, compareObjects)
	out := objs[:0]
	for i, obj := range objs {
		if i+1 < len(objs) && compareObjects(obj, objs[i+1]) == 0 {
			continue
		}
		out = append(out, obj)
	}
	return out
}

func compareObjects[T metav1.Object](a, b T) int {
	return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
}

// copyRules deep-copies rules so outputs never alias the input CSV; nil stays nil and an empty
// slice stays empty (they encode differently: null vs []).
func copyRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	if rules == nil {
		return nil
	}
	out := make([]rbacv1.PolicyRule, len(rules))
	for i := range rules {
		rules[i].DeepCopyInto(&out[i])
	}
	return out
}

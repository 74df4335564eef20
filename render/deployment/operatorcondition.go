package deployment

import (
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OperatorCondition returns the OperatorCondition OLM creates for a (non-copied) CSV, named like
// it, with the Role and RoleBinding that let the operator's ServiceAccounts update it
// (OLM's operatorconditiongenerator and operatorcondition controllers).
func OperatorCondition(csv *v1alpha1.ClusterServiceVersion) (*operatorsv2.OperatorCondition, *rbacv1.Role, *rbacv1.RoleBinding) {
	strategy := csv.Spec.InstallStrategy.StrategySpec
	var accounts []string
	for _, p := range strategy.ClusterPermissions {
		accounts = append(accounts, p.ServiceAccountName)
	}
	for _, p := range strategy.Permissions {
		accounts = append(accounts, p.ServiceAccountName)
	}
	if len(accounts) == 0 {
		accounts = []string{"default"}
	}
	var deployments []string
	for _, d := range strategy.DeploymentSpecs {
		deployments = append(deployments, d.Name)
	}
	managed := map[string]string{ManagedLabel: "true"}
	oc := &operatorsv2.OperatorCondition{
		TypeMeta:   metav1.TypeMeta{APIVersion: operatorsv2.GroupVersion.String(), Kind: "OperatorCondition"},
		ObjectMeta: metav1.ObjectMeta{Name: csv.Name, Namespace: csv.Namespace},
		Spec:       operatorsv2.OperatorConditionSpec{ServiceAccounts: accounts, Deployments: deployments},
	}
	role := &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: csv.Name, Namespace: csv.Namespace, Labels: managed},
		Rules: []rbacv1.PolicyRule{{
			Verbs:         []string{"get", "update", "patch"},
			APIGroups:     []string{"operators.coreos.com"},
			Resources:     []string{"operatorconditions"},
			ResourceNames: []string{csv.Name},
		}},
	}
	var subjects []rbacv1.Subject
	for _, sa := range accounts {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: sa})
	}
	binding := &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: csv.Name, Namespace: csv.Namespace, Labels: map[string]string{ManagedLabel: "true"}},
		Subjects:   subjects,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: csv.Name},
	}
	return oc, role, binding
}

package rbac

import (
	"slices"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// maxResourceName is Kubernetes' object name limit (OLM kubeResourceNameLimit).
	maxResourceName = 253
	// ogRoleFixedChars counts the characters of "olm.og.%s.%s-%s" without its verbs.
	ogRoleFixedChars = len("olm.og..-")
)

// OperatorGroupClusterRoles returns the admin, edit and view ClusterRoles OLM's
// ensureOpGroupClusterRoles keeps for every OperatorGroup, sorted by name. apis is the group's API
// set (its olm.providedAPIs annotation united with the APIs of its non-copied CSVs); each role's
// aggregationRule selects the per-API ClusterRoles of that set and is nil when it is empty. The
// roles carry no rules: Kubernetes' aggregation controller fills them.
func OperatorGroupClusterRoles(og *operatorsv1.OperatorGroup, apis []schema.GroupVersionKind) []*rbacv1.ClusterRole {
	roles := make([]*rbacv1.ClusterRole, 0, len(suffixes))
	for _, suffix := range suffixes {
		labels := ownerLabels(og.Name, og.Namespace, operatorGroupKind)
		roles = append(roles, &rbacv1.ClusterRole{
			TypeMeta:        metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
			ObjectMeta:      metav1.ObjectMeta{Name: OperatorGroupClusterRoleName(og.Namespace, og.Name, suffix), Labels: labels},
			AggregationRule: aggregationRule(apis, suffix),
		})
	}
	return sortByName(roles)
}

// OperatorGroupClusterRoleName is OLM's getClusterRoleName: "olm.og.<name>.<suffix>-<hash>" with
// hash the base62 SHA-224 of "<namespace>/<name>/<suffix>", the group name cut so the whole name
// fits in 253 characters.
func OperatorGroupClusterRoleName(namespace, name, suffix string) string {
	hash := stringHash(namespace + "/" + name + "/" + suffix)
	limit := maxResourceName - ogRoleFixedChars - len(suffix) - len(hash)
	if len(name) >= limit {
		name = name[:limit]
	}
	return "olm.og." + name + "." + suffix + "-" + hash
}

// aggregationRule is OLM's getClusterRoleAggregationRule: nil for no APIs, else one matchLabels
// selector per distinct aggregation label, sorted by label.
func aggregationRule(apis []schema.GroupVersionKind, suffix string) *rbacv1.AggregationRule {
	if len(apis) == 0 {
		return nil
	}
	labels := make([]string, 0, len(apis))
	for _, api := range apis {
		labels = append(labels, aggregationLabel(api, suffix))
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	selectors := make([]metav1.LabelSelector, 0, len(labels))
	for _, label := range labels {
		selectors = append(selectors, metav1.LabelSelector{MatchLabels: map[string]string{label: "true"}})
	}
	return &rbacv1.AggregationRule{ClusterRoleSelectors: selectors}
}

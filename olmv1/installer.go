package olmv1

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// installerName names the ServiceAccount a ClusterExtension installs with (up to v1.10), and
// its ClusterRole, Roles and bindings: <extension>-installer.
func installerName(extension string) string { return extension + "-installer" }

// resources are the API resources of the kinds operator-controller creates for a registry+v1
// bundle (other kinds are named <kind, lower-case>s).
var resources = map[string]string{
	"CustomResourceDefinition": "customresourcedefinitions", "ClusterRole": "clusterroles",
	"ClusterRoleBinding": "clusterrolebindings", "Role": "roles", "RoleBinding": "rolebindings",
	"ServiceAccount": "serviceaccounts", "Service": "services", "Secret": "secrets", "ConfigMap": "configmaps",
	"Deployment": "deployments", "ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
	"MutatingWebhookConfiguration": "mutatingwebhookconfigurations", "PrometheusRule": "prometheusrules",
	"ServiceMonitor": "servicemonitors", "PodMonitor": "podmonitors", "PodDisruptionBudget": "poddisruptionbudgets",
	"PriorityClass": "priorityclasses", "VerticalPodAutoscaler": "verticalpodautoscalers",
	"ConsoleYAMLSample": "consoleyamlsamples", "ConsoleQuickStart": "consolequickstarts",
	"ConsoleCLIDownload": "consoleclidownloads", "ConsoleLink": "consolelinks", "ConsolePlugin": "consoleplugins",
	"NetworkPolicy": "networkpolicies", "Issuer": "issuers", "Certificate": "certificates",
}

// resourceKey is an API group and resource.
type resourceKey struct{ group, resource string }

// resourceOf returns the group and resource of an object.
func resourceOf(u *unstructured.Unstructured) resourceKey {
	gvk := u.GroupVersionKind()
	res, ok := resources[gvk.Kind]
	if !ok {
		res = strings.ToLower(gvk.Kind) + "s"
	}
	return resourceKey{gvk.Group, res}
}

// installer returns the ServiceAccount a ClusterExtension installs with up to v1.10, and the
// RBAC it needs (docs/howto/derive-service-account.md @v1.10.0): create on every kind it
// creates, get/update/patch/delete on each object by name, list and watch cluster-wide (the Helm
// applier's informers), every rule the bundle's RBAC grants (no escalation), and update on the
// ClusterExtension's finalizers. Cluster-scoped objects go in a ClusterRole, namespaced ones in a
// Role of their namespace.
func installer(ext extension, objs []*unstructured.Unstructured) ([]any, error) {
	cluster, roles, err := installerRules(ext, objs)
	if err != nil {
		return nil, err
	}
	name := installerName(ext.name)
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ext.namespace, Name: name}}
	out := []any{
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ext.namespace}},
		&rbacv1.ClusterRole{TypeMeta: typeMeta("ClusterRole"), ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: cluster},
		&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("ClusterRoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name},
			Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}},
	}
	for _, ns := range sortedKeys(roles) {
		out = append(out,
			&rbacv1.Role{TypeMeta: typeMeta("Role"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: roles[ns]},
			&rbacv1.RoleBinding{TypeMeta: typeMeta("RoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})
	}
	return out, nil
}

// installerRules returns the rules of the installer's ClusterRole, and of its Role in each
// namespace the bundle creates objects in.
func installerRules(ext extension, objs []*unstructured.Unstructured) ([]rbacv1.PolicyRule, map[string][]rbacv1.PolicyRule, error) {
	cluster := []rbacv1.PolicyRule{{APIGroups: []string{"olm.operatorframework.io"}, Resources: []string{"clusterextensions/finalizers"},
		Verbs: []string{"update"}, ResourceNames: []string{ext.name}}}
	names := map[resourceKey]map[string][]string{} // resource → namespace → names
	roles := map[string][]rbacv1.PolicyRule{}      // namespace → granted rules
	for _, o := range objs {
		key, ns := resourceOf(o), o.GetNamespace()
		if names[key] == nil {
			names[key] = map[string][]string{}
		}
		names[key][ns] = append(names[key][ns], o.GetName())
		granted, err := grantedRules(o)
		if err != nil {
			return nil, nil, err
		}
		if ns == "" {
			cluster = append(cluster, granted...)
		} else {
			roles[ns] = append(roles[ns], granted...)
		}
	}
	keys := slices.SortedFunc(maps.Keys(names), func(a, b resourceKey) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.resource, b.resource))
	})
	for _, key := range keys {
		cluster = append(cluster, rule(key, []string{"list", "watch"}, nil))
		for _, ns := range sortedKeys(names[key]) {
			rules := []rbacv1.PolicyRule{rule(key, []string{"create"}, nil), rule(key, []string{"delete", "get", "patch", "update"}, names[key][ns])}
			if ns == "" {
				cluster = append(cluster, rules...)
			} else {
				roles[ns] = append(rules, roles[ns]...)
			}
		}
	}
	return cluster, roles, nil
}

// rule grants verbs on a resource, restricted to names when given.
func rule(key resourceKey, verbs, names []string) rbacv1.PolicyRule {
	r := rbacv1.PolicyRule{APIGroups: []string{key.group}, Resources: []string{key.resource}, Verbs: verbs}
	if len(names) > 0 {
		r.ResourceNames = slices.Compact(slices.Sorted(slices.Values(names)))
	}
	return r
}

// grantedRules returns the rules a Role or ClusterRole grants: the installer must hold them
// to create it (the API server's escalation check).
func grantedRules(u *unstructured.Unstructured) ([]rbacv1.PolicyRule, error) {
	if kind := u.GetKind(); kind != "Role" && kind != "ClusterRole" {
		return nil, nil
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	var role struct {
		Rules []rbacv1.PolicyRule `json:"rules"`
	}
	if err := json.Unmarshal(data, &role); err != nil {
		return nil, fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return role.Rules, nil
}

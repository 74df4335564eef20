package permissions

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Tiny builders of RBAC objects, as a decoder would produce them (JSON-like values only).

const rbacAPIVersion = "rbac.authorization.k8s.io/v1"

// obj returns an object of kind with the given top-level fields.
func obj(kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	o := map[string]any{"apiVersion": rbacAPIVersion, "kind": kind, "metadata": meta}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

// strs returns a JSON-like list of strings.
func strs(s ...string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// rule returns a resource PolicyRule.
func rule(groups, resources []string, verbs ...string) map[string]any {
	return map[string]any{"apiGroups": strs(groups...), "resources": strs(resources...), "verbs": strs(verbs...)}
}

// named returns r restricted to resourceNames.
func named(r map[string]any, names ...string) map[string]any {
	r["resourceNames"] = strs(names...)
	return r
}

// urlRule returns a non-resource PolicyRule.
func urlRule(urls []string, verbs ...string) map[string]any {
	return map[string]any{"nonResourceURLs": strs(urls...), "verbs": strs(verbs...)}
}

// rulesOf returns rules as a JSON-like list.
func rulesOf(rules []map[string]any) []any {
	out := make([]any, len(rules))
	for i, r := range rules {
		out[i] = r
	}
	return out
}

// role returns a Role.
func role(ns, name string, rules ...map[string]any) *unstructured.Unstructured {
	return obj("Role", ns, name, map[string]any{"rules": rulesOf(rules)})
}

// clusterRole returns a ClusterRole.
func clusterRole(name string, rules ...map[string]any) *unstructured.Unstructured {
	return obj("ClusterRole", "", name, map[string]any{"rules": rulesOf(rules)})
}

// withLabels sets labels on u.
func withLabels(u *unstructured.Unstructured, kv ...string) *unstructured.Unstructured {
	labels := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		labels[kv[i]] = kv[i+1]
	}
	u.SetLabels(labels)
	return u
}

// aggregating makes a ClusterRole aggregate the ClusterRoles labelled key=value.
func aggregating(u *unstructured.Unstructured, key, value string) *unstructured.Unstructured {
	u.Object["aggregationRule"] = map[string]any{"clusterRoleSelectors": []any{
		map[string]any{"matchLabels": map[string]any{key: value}},
	}}
	return u
}

// sa returns a ServiceAccount subject.
func sa(ns, name string) map[string]any {
	s := map[string]any{"kind": "ServiceAccount", "name": name}
	if ns != "" {
		s["namespace"] = ns
	}
	return s
}

// user returns a User subject.
func user(name string) map[string]any {
	return map[string]any{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}
}

// bindingFields returns a binding's roleRef and subjects.
func bindingFields(roleKind, roleName string, subjects []map[string]any) map[string]any {
	subs := make([]any, len(subjects))
	for i, s := range subjects {
		subs[i] = s
	}
	return map[string]any{
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": roleName},
		"subjects": subs,
	}
}

// roleBinding returns a RoleBinding.
func roleBinding(ns, name, roleKind, roleName string, subjects ...map[string]any) *unstructured.Unstructured {
	return obj("RoleBinding", ns, name, bindingFields(roleKind, roleName, subjects))
}

// clusterRoleBinding returns a ClusterRoleBinding.
func clusterRoleBinding(name, roleName string, subjects ...map[string]any) *unstructured.Unstructured {
	return obj("ClusterRoleBinding", "", name, bindingFields("ClusterRole", roleName, subjects))
}

// objs returns its arguments as a slice.
func objs(o ...*unstructured.Unstructured) []*unstructured.Unstructured {
	return o
}

// g returns a resource grant.
func g(subject, ns, group, resource, verb string) Grant {
	return Grant{Subject: subject, Namespace: ns, APIGroup: group, Resource: resource, Verb: verb}
}

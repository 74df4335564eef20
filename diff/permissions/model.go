package permissions

import (
	"fmt"
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// Kinds of the RBAC objects this package reads.
const (
	kindRole               = "Role"
	kindClusterRole        = "ClusterRole"
	kindRoleBinding        = "RoleBinding"
	kindClusterRoleBinding = "ClusterRoleBinding"
)

// policyRule is a parsed PolicyRule.
type policyRule struct {
	apiGroups, resources, resourceNames, urls, verbs []string
}

// selector is one clusterRoleSelector of an aggregated ClusterRole.
type selector struct {
	text     string
	selector labels.Selector
}

// rbacRole is a parsed Role or ClusterRole.
type rbacRole struct {
	key        roleKey
	rules      []policyRule
	labels     labels.Set
	aggregated bool
	selectors  []selector
}

// roleKey identifies a role as a binding's roleRef does (Namespace is "" for a ClusterRole).
type roleKey struct {
	Kind, Namespace, Name string
}

// binding is a parsed RoleBinding or ClusterRoleBinding.
type binding struct {
	namespace string // "" for a ClusterRoleBinding
	roleRef   roleKey
	subjects  []string
}

// model holds the RBAC objects of one render.
type model struct {
	roles        map[roleKey]*rbacRole
	clusterRoles []*rbacRole // in input order, for aggregation
	bindings     []binding
}

// newModel parses the RBAC objects among objs.
func newModel(objs []*unstructured.Unstructured) (*model, error) {
	m := &model{roles: map[roleKey]*rbacRole{}}
	for i, u := range objs {
		if u == nil {
			return nil, fmt.Errorf("object %d: nil object", i)
		}
		if err := m.add(u); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// add parses u into m if it is an RBAC object.
func (m *model) add(u *unstructured.Unstructured) error {
	if u.GroupVersionKind().Group != rbacv1.GroupName {
		return nil
	}
	switch u.GetKind() {
	case kindRole, kindClusterRole:
		return m.addRole(u)
	case kindRoleBinding, kindClusterRoleBinding:
		b, err := parseBinding(u)
		if err == nil {
			m.bindings = append(m.bindings, b)
		}
		return err
	}
	return nil
}

// addRole parses a Role or ClusterRole into m.
func (m *model) addRole(u *unstructured.Unstructured) error {
	r, err := parseRole(u)
	if err != nil {
		return err
	}
	if _, dup := m.roles[r.key]; dup {
		return &MalformedError{Object: objectID(u), Field: "metadata.name", Reason: "duplicate object"}
	}
	m.roles[r.key] = r
	if r.key.Kind == kindClusterRole {
		m.clusterRoles = append(m.clusterRoles, r)
	}
	return nil
}

// parseRole parses a Role or ClusterRole.
func parseRole(u *unstructured.Unstructured) (*rbacRole, error) {
	f := fields{id: objectID(u)}
	r := &rbacRole{key: roleKey{Kind: u.GetKind(), Name: u.GetName()}}
	namespaced := r.key.Kind == kindRole
	var err error
	if r.labels, err = checkMeta(f, u, namespaced); err != nil {
		return nil, err
	}
	if namespaced {
		r.key.Namespace = u.GetNamespace()
	}
	if r.rules, err = parseRules(f, u.Object["rules"], namespaced); err != nil {
		return nil, err
	}
	if !namespaced {
		err = parseAggregation(f, u.Object["aggregationRule"], r)
	}
	return r, err
}

// checkMeta requires a name, and a namespace for a namespaced kind, and returns the labels.
func checkMeta(f fields, u *unstructured.Unstructured, namespaced bool) (labels.Set, error) {
	meta, err := f.object(u.Object["metadata"], "metadata")
	if err != nil {
		return nil, err
	}
	if _, err := f.required(meta, "name", "metadata.name"); err != nil {
		return nil, err
	}
	if ns, err := f.str(meta["namespace"], "metadata.namespace"); err != nil || (namespaced && ns == "") {
		return nil, cmpOrErr(err, f.fail("metadata.namespace", "required for a %s", u.GetKind()))
	}
	return parseMatchLabels(f, meta["labels"], "metadata.labels")
}

// parseRules parses a list of PolicyRules.
func parseRules(f fields, v any, namespaced bool) ([]policyRule, error) {
	items, err := f.list(v, "rules")
	if err != nil {
		return nil, err
	}
	out := make([]policyRule, 0, len(items))
	for i, item := range items {
		r, err := parseRule(f, item, fmt.Sprintf("rules[%d]", i), namespaced)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// parseRule parses one PolicyRule and validates it as the API server does.
func parseRule(f fields, v any, field string, namespaced bool) (policyRule, error) {
	m, err := f.object(v, field)
	if err != nil || m == nil {
		return policyRule{}, cmpOrErr(err, f.fail(field, "want an object, got null"))
	}
	var r policyRule
	lists := []struct {
		key        string
		dst        *[]string
		allowEmpty bool
	}{
		{"apiGroups", &r.apiGroups, true}, {"resources", &r.resources, false},
		{"resourceNames", &r.resourceNames, false}, {"nonResourceURLs", &r.urls, false},
		{"verbs", &r.verbs, false},
	}
	for _, l := range lists {
		if *l.dst, err = f.strings(m, l.key, field+"."+l.key, l.allowEmpty); err != nil {
			return policyRule{}, err
		}
	}
	return r, validateRule(f, r, field, namespaced)
}

// cmpOrErr returns err if set, else fallback.
func cmpOrErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// validateRule applies the API server's PolicyRule validation.
func validateRule(f fields, r policyRule, field string, namespaced bool) error {
	switch {
	case len(r.verbs) == 0:
		return f.fail(field+".verbs", "required")
	case len(r.urls) > 0 && namespaced:
		return f.fail(field+".nonResourceURLs", "not allowed in a namespaced role")
	case len(r.urls) > 0 && len(r.apiGroups)+len(r.resources)+len(r.resourceNames) > 0:
		return f.fail(field+".nonResourceURLs", "cannot be mixed with apiGroups, resources or resourceNames")
	case len(r.urls) > 0:
		return nil
	case len(r.apiGroups) == 0:
		return f.fail(field+".apiGroups", "required for a resource rule")
	case len(r.resources) == 0:
		return f.fail(field+".resources", "required for a resource rule")
	}
	return nil
}

// parseAggregation parses a ClusterRole's aggregationRule into r.
func parseAggregation(f fields, v any, r *rbacRole) error {
	m, err := f.object(v, "aggregationRule")
	if err != nil || m == nil {
		return err
	}
	r.aggregated = true
	items, err := f.list(m["clusterRoleSelectors"], "aggregationRule.clusterRoleSelectors")
	for i := 0; err == nil && i < len(items); i++ {
		var s selector
		s, err = parseSelector(f, items[i], fmt.Sprintf("aggregationRule.clusterRoleSelectors[%d]", i))
		r.selectors = append(r.selectors, s)
	}
	return err
}

// parseSelector parses one label selector.
func parseSelector(f fields, v any, field string) (selector, error) {
	m, err := f.object(v, field)
	if err != nil || m == nil {
		return selector{}, cmpOrErr(err, f.fail(field, "want an object, got null"))
	}
	var ls metav1.LabelSelector
	if ls.MatchLabels, err = parseMatchLabels(f, m["matchLabels"], field+".matchLabels"); err != nil {
		return selector{}, err
	}
	if ls.MatchExpressions, err = parseExpressions(f, m["matchExpressions"], field+".matchExpressions"); err != nil {
		return selector{}, err
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return selector{}, f.fail(field, "%v", err)
	}
	text := metav1.FormatLabelSelector(&ls)
	if sel.Empty() {
		text = "any labels"
	}
	return selector{text: text, selector: sel}, nil
}

// parseMatchLabels parses a selector's matchLabels.
func parseMatchLabels(f fields, v any, field string) (map[string]string, error) {
	m, err := f.object(v, field)
	if err != nil || m == nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if out[k], err = f.str(m[k], field+"."+k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseExpressions parses a selector's matchExpressions.
func parseExpressions(f fields, v any, field string) ([]metav1.LabelSelectorRequirement, error) {
	items, err := f.list(v, field)
	if err != nil {
		return nil, err
	}
	out := make([]metav1.LabelSelectorRequirement, 0, len(items))
	for i, item := range items {
		req, err := parseExpression(f, item, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}

// parseExpression parses one label selector requirement.
func parseExpression(f fields, v any, field string) (metav1.LabelSelectorRequirement, error) {
	var req metav1.LabelSelectorRequirement
	m, err := f.object(v, field)
	if err != nil || m == nil {
		return req, cmpOrErr(err, f.fail(field, "want an object, got null"))
	}
	if req.Key, err = f.str(m["key"], field+".key"); err != nil {
		return req, err
	}
	op, err := f.str(m["operator"], field+".operator")
	req.Operator = metav1.LabelSelectorOperator(op)
	if err == nil {
		req.Values, err = f.strings(m, "values", field+".values", true)
	}
	return req, err
}

// parseBinding parses a RoleBinding or ClusterRoleBinding.
func parseBinding(u *unstructured.Unstructured) (binding, error) {
	f := fields{id: objectID(u)}
	namespaced := u.GetKind() == kindRoleBinding
	if _, err := checkMeta(f, u, namespaced); err != nil {
		return binding{}, err
	}
	b := binding{}
	if namespaced {
		b.namespace = u.GetNamespace()
	}
	var err error
	if b.roleRef, err = parseRoleRef(f, u.Object["roleRef"], b.namespace); err != nil {
		return binding{}, err
	}
	b.subjects, err = parseSubjects(f, u.Object["subjects"], b.namespace)
	return b, err
}

// parseRoleRef parses a binding's roleRef into the key of the role it names.
func parseRoleRef(f fields, v any, namespace string) (roleKey, error) {
	m, err := f.object(v, "roleRef")
	if err != nil || m == nil {
		return roleKey{}, cmpOrErr(err, f.fail("roleRef", "required"))
	}
	group, err := f.str(m["apiGroup"], "roleRef.apiGroup")
	if err == nil && group != "" && group != rbacv1.GroupName {
		err = f.fail("roleRef.apiGroup", "want %q, got %q", rbacv1.GroupName, group)
	}
	if err != nil {
		return roleKey{}, err
	}
	key := roleKey{}
	if key.Kind, err = f.required(m, "kind", "roleRef.kind"); err != nil {
		return roleKey{}, err
	}
	if key.Name, err = f.required(m, "name", "roleRef.name"); err != nil {
		return roleKey{}, err
	}
	return checkRoleRef(f, key, namespace)
}

// checkRoleRef checks the kind a roleRef names: a ClusterRoleBinding (namespace "") may only
// name a ClusterRole; a RoleBinding's Role lives in the binding's namespace.
func checkRoleRef(f fields, key roleKey, namespace string) (roleKey, error) {
	switch {
	case key.Kind == kindClusterRole:
		return key, nil
	case key.Kind == kindRole && namespace != "":
		key.Namespace = namespace
		return key, nil
	}
	return roleKey{}, f.fail("roleRef.kind", "unsupported role kind %q", key.Kind)
}

// parseSubjects parses a binding's subjects into subject names.
func parseSubjects(f fields, v any, namespace string) ([]string, error) {
	items, err := f.list(v, "subjects")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		s, err := parseSubject(f, item, fmt.Sprintf("subjects[%d]", i), namespace)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// parseSubject parses one subject: "namespace/name" for a ServiceAccount (defaulting to the
// binding's namespace), "User:name" or "Group:name" otherwise.
func parseSubject(f fields, v any, field, namespace string) (string, error) {
	m, err := f.object(v, field)
	if err != nil || m == nil {
		return "", cmpOrErr(err, f.fail(field, "want an object, got null"))
	}
	kind, err := f.required(m, "kind", field+".kind")
	if err != nil {
		return "", err
	}
	name, err := f.required(m, "name", field+".name")
	if err != nil {
		return "", err
	}
	switch kind {
	case rbacv1.UserKind, rbacv1.GroupKind:
		return kind + ":" + name, nil
	case rbacv1.ServiceAccountKind:
		return serviceAccount(f, m, field, namespace, name)
	}
	return "", f.fail(field+".kind", "unsupported subject kind %q", kind)
}

// serviceAccount names a ServiceAccount subject "namespace/name".
func serviceAccount(f fields, m map[string]any, field, namespace, name string) (string, error) {
	ns, err := f.str(m["namespace"], field+".namespace")
	if err != nil {
		return "", err
	}
	if ns == "" {
		ns = namespace
	}
	if ns == "" {
		return "", f.fail(field+".namespace", "required for a ServiceAccount of a ClusterRoleBinding")
	}
	return ns + "/" + name, nil
}

package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// account is a ServiceAccount by namespace and name.
type account struct{ namespace, name string }

// requirement is one rule a ServiceAccount needs (one rule of one permissions or
// clusterPermissions entry).
type requirement struct {
	account account
	rule    rbacv1.PolicyRule
}

// attributes is one request OLM's rule checker asks the RBAC authorizer about.
type attributes struct {
	verb, group, resource, name, path string
}

// permissionsMet reports whether every rule the CSV asks for, namespaced and cluster-wide, is
// already granted by the cluster-wide ClusterRoleBindings in objs — OLM's permissionStatus as its
// rule checker answers it when the only RBAC in the cluster is the CSV's own. It also returns false
// when a rule is invalid: OLM's check then fails with an error and nothing is lifted or copied.
// The answer is the same for the cluster scope (AllNamespaces lift) and for any target namespace
// other than the operator's (tenant copies), since no RoleBinding of the CSV lives there yet.
func permissionsMet(objs *Objects) (met, valid bool) {
	auth := newAuthorizer(objs)
	met = true
	for _, req := range requirements(objs, auth) {
		if !ruleValid(req.rule) {
			return false, false
		}
		if !auth.ruleSatisfied(req.account, req.rule) {
			met = false
		}
	}
	return met, true
}

// requirements lists what the CSV asks for, recovered from its bindings: each subject of each
// RoleBinding and ClusterRoleBinding needs every rule of the role it references.
func requirements(objs *Objects, auth *authorizer) []requirement {
	roles := map[string][]rbacv1.PolicyRule{}
	for _, r := range objs.Roles {
		roles[r.Namespace+"/"+r.Name] = r.Rules
	}
	var reqs []requirement
	for _, b := range objs.RoleBindings {
		reqs = appendRequirements(reqs, b.Subjects, b.Namespace, roles[b.Namespace+"/"+b.RoleRef.Name])
	}
	for _, b := range objs.ClusterRoleBindings {
		reqs = appendRequirements(reqs, b.Subjects, "", auth.clusterRoles[b.RoleRef.Name])
	}
	return reqs
}

func appendRequirements(reqs []requirement, subjects []rbacv1.Subject, namespace string, rules []rbacv1.PolicyRule) []requirement {
	for _, s := range subjects {
		if s.Kind != rbacv1.ServiceAccountKind {
			continue
		}
		ns := s.Namespace
		if ns == "" {
			ns = namespace
		}
		for _, rule := range rules {
			reqs = append(reqs, requirement{account: account{namespace: ns, name: s.Name}, rule: rule})
		}
	}
	return reqs
}

// authorizer answers like Kubernetes' RBAC authorizer restricted to cluster-wide grants: a request
// is allowed when a rule of a ClusterRole bound by a ClusterRoleBinding to the user allows it. The
// user is the ServiceAccount's username with no groups, as OLM's rule checker builds it.
type authorizer struct {
	clusterRoles map[string][]rbacv1.PolicyRule
	bindings     []*rbacv1.ClusterRoleBinding
}

func newAuthorizer(objs *Objects) *authorizer {
	a := &authorizer{clusterRoles: map[string][]rbacv1.PolicyRule{}, bindings: objs.ClusterRoleBindings}
	for _, r := range objs.ClusterRoles {
		a.clusterRoles[r.Name] = r.Rules
	}
	return a
}

// ruleSatisfied is OLM's CSVRuleChecker.RuleSatisfied: every attribute set the rule expands to
// must be allowed.
func (a *authorizer) ruleSatisfied(sa account, rule rbacv1.PolicyRule) bool {
	for _, attrs := range expand(rule) {
		if !a.allows(sa, attrs) {
			return false
		}
	}
	return true
}

func (a *authorizer) allows(sa account, attrs attributes) bool {
	for _, b := range a.bindings {
		if b.RoleRef.Kind != "ClusterRole" || !bindsAccount(b.Subjects, sa) {
			continue
		}
		for i := range a.clusterRoles[b.RoleRef.Name] {
			if ruleAllows(&a.clusterRoles[b.RoleRef.Name][i], attrs) {
				return true
			}
		}
	}
	return false
}

// bindsAccount is the RBAC authorizer's appliesTo for a cluster-wide binding and a user with no
// groups: a ServiceAccount subject with that namespace and name, or a User subject with its
// username.
func bindsAccount(subjects []rbacv1.Subject, sa account) bool {
	username := "system:serviceaccount:" + sa.namespace + ":" + sa.name
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.Namespace != "" && s.Namespace == sa.namespace && s.Name == sa.name {
				return true
			}
		case rbacv1.UserKind:
			if s.Name == username {
				return true
			}
		}
	}
	return false
}

// expand is OLM's toAttributesSet: verbs × apiGroups × resources × resourceNames ×
// nonResourceURLs, an empty list standing for the single value "".
func expand(rule rbacv1.PolicyRule) []attributes {
	var out []attributes
	for _, verb := range rule.Verbs {
		for _, group := range orEmpty(rule.APIGroups) {
			for _, resource := range orEmpty(rule.Resources) {
				for _, name := range orEmpty(rule.ResourceNames) {
					for _, path := range orEmpty(rule.NonResourceURLs) {
						out = append(out, attributes{verb: verb, group: group, resource: resource, name: name, path: path})
					}
				}
			}
		}
	}
	return out
}

func orEmpty(values []string) []string {
	if len(values) == 0 {
		return []string{""}
	}
	return values
}

// ruleValid is OLM's rule checker ruleValid: at least one verb, and not both resources and
// non-resource URLs.
func ruleValid(rule rbacv1.PolicyRule) bool {
	if len(rule.Verbs) == 0 {
		return false
	}
	resources := len(rule.APIGroups) + len(rule.Resources) + len(rule.ResourceNames)
	return resources == 0 || len(rule.NonResourceURLs) == 0
}

// ruleAllows is Kubernetes' rbac RuleAllows for the attributes OLM builds: a request with an empty
// path is a resource request whose resource carries no separate subresource.
func ruleAllows(rule *rbacv1.PolicyRule, attrs attributes) bool {
	if attrs.path == "" {
		return matches(rule.Verbs, attrs.verb, rbacv1.VerbAll) &&
			matches(rule.APIGroups, attrs.group, rbacv1.APIGroupAll) &&
			matches(rule.Resources, attrs.resource, rbacv1.ResourceAll) &&
			(len(rule.ResourceNames) == 0 || matches(rule.ResourceNames, attrs.name, ""))
	}
	return matches(rule.Verbs, attrs.verb, rbacv1.VerbAll) && nonResourceURLMatches(rule.NonResourceURLs, attrs.path)
}

// matches reports whether values holds want or the wildcard (an empty wildcard matches nothing
// extra).
func matches(values []string, want, wildcard string) bool {
	for _, v := range values {
		if v == want || (wildcard != "" && v == wildcard) {
			return true
		}
	}
	return false
}

// nonResourceURLMatches is Kubernetes' NonResourceURLMatches: "*", an exact match, or a "prefix*"
// rule whose prefix starts the URL.
func nonResourceURLMatches(rules []string, url string) bool {
	for _, r := range rules {
		if r == rbacv1.NonResourceAll || r == url {
			return true
		}
		if strings.HasSuffix(r, "*") && strings.HasPrefix(url, strings.TrimRight(r, "*")) {
			return true
		}
	}
	return false
}

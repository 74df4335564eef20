package permissions

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MaxGrants bounds the grants (before deduplication) one render may expand to; beyond it,
// Permissions fails rather than exhaust memory. Real renders expand to a few thousand.
const MaxGrants = 1 << 18

// Permissions returns every grant of objs, deduplicated and sorted (deterministic). Objects
// that are not RBAC objects are ignored.
func Permissions(objs []*unstructured.Unstructured) ([]Grant, error) {
	m, err := newModel(objs)
	if err != nil {
		return nil, fmt.Errorf("read rbac objects: %w", err)
	}
	c := &collector{}
	for _, b := range m.bindings {
		if err := m.expandBinding(b, c); err != nil {
			return nil, fmt.Errorf("expand bindings: %w", err)
		}
	}
	return sortGrants(c.grants), nil
}

// collector accumulates grants up to MaxGrants.
type collector struct {
	grants []Grant
}

// add appends g, or fails once MaxGrants is reached.
func (c *collector) add(g Grant) error {
	if len(c.grants) >= MaxGrants {
		return fmt.Errorf("more than %d grants", MaxGrants)
	}
	c.grants = append(c.grants, g)
	return nil
}

// expandBinding adds the grants b gives each of its subjects: a marker when its role is
// missing, else the grants of its role's rules (and markers for aggregation selectors).
func (m *model) expandBinding(b binding, c *collector) error {
	r, ok := m.roles[b.roleRef]
	if !ok {
		return expandMarkers(c, b, func(s string) Grant {
			return unknownRole(s, b.namespace, b.roleRef.Kind, b.roleRef.Name)
		})
	}
	rules, selectors := m.effectiveRules(r)
	for _, sel := range selectors {
		err := expandMarkers(c, b, func(s string) Grant { return aggregationMarker(s, b.namespace, sel) })
		if err != nil {
			return err
		}
	}
	return expandRules(c, b, rules)
}

// expandMarkers adds the marker marker returns for each subject of b.
func expandMarkers(c *collector, b binding, marker func(subject string) Grant) error {
	for _, s := range b.subjects {
		if err := c.add(marker(s)); err != nil {
			return err
		}
	}
	return nil
}

// expandRules adds every subject's grants from rules in b's scope.
func expandRules(c *collector, b binding, rules []policyRule) error {
	for _, s := range b.subjects {
		for _, r := range rules {
			if err := expandRule(c, Grant{Subject: s, Namespace: b.namespace}, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// expandRule adds the atomic grants of r for base's subject and scope. Non-resource URLs are
// skipped in a namespace, where the authorizer ignores them.
func expandRule(c *collector, base Grant, r policyRule) error {
	if len(r.urls) > 0 {
		if base.Namespace != "" {
			return nil
		}
		return expandURLs(c, base, r)
	}
	names := r.resourceNames
	if len(names) == 0 {
		names = []string{""}
	}
	for _, group := range r.apiGroups {
		for _, res := range r.resources {
			for _, name := range names {
				g := base
				g.APIGroup, g.Resource, g.ResourceName = group, res, name
				if err := expandVerbs(c, g, r.verbs); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// expandURLs adds the non-resource grants of r.
func expandURLs(c *collector, base Grant, r policyRule) error {
	for _, url := range r.urls {
		g := base
		g.NonResourceURL = url
		if err := expandVerbs(c, g, r.verbs); err != nil {
			return err
		}
	}
	return nil
}

// expandVerbs adds g once per verb.
func expandVerbs(c *collector, g Grant, verbs []string) error {
	for _, v := range verbs {
		g.Verb = v
		if err := c.add(g); err != nil {
			return err
		}
	}
	return nil
}

// effectiveRules returns the rules a binding to r grants and, for an aggregated ClusterRole,
// the text of the selectors that may also select roles outside the render. An aggregated
// role's rules are its own plus those of every ClusterRole of the render it selects,
// transitively (see the package documentation).
func (m *model) effectiveRules(r *rbacRole) ([]policyRule, []string) {
	if !r.aggregated {
		return r.rules, nil
	}
	a := &aggregator{m: m, seen: map[*rbacRole]bool{r: true}}
	a.rules = append(a.rules, r.rules...)
	a.visit(r)
	return a.rules, a.selectors
}

// aggregator walks the clusterRoleSelectors of aggregated ClusterRoles.
type aggregator struct {
	m         *model
	seen      map[*rbacRole]bool
	rules     []policyRule
	selectors []string
}

// visit adds the rules of the ClusterRoles r selects, and of those they select in turn.
func (a *aggregator) visit(r *rbacRole) {
	for _, s := range r.selectors {
		a.selectors = append(a.selectors, s.text)
		for _, cr := range a.m.clusterRoles {
			if a.seen[cr] || !s.selector.Matches(cr.labels) {
				continue
			}
			a.seen[cr] = true
			a.rules = append(a.rules, cr.rules...)
			if cr.aggregated {
				a.visit(cr)
			}
		}
	}
}

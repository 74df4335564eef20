package permissions

import (
	"cmp"
	"iter"
	"slices"
	"strings"
)

// Grant is one atomic permission of a subject.
type Grant struct {
	// Subject is "namespace/name" for a ServiceAccount, "User:name" or "Group:name" otherwise.
	Subject string
	// Namespace is where the grant applies: the RoleBinding's namespace, or "" for cluster-wide
	// (ClusterRoleBinding).
	Namespace string
	// APIGroup is "" for the core group and "*" for all groups.
	APIGroup string
	// Resource is a resource such as "secrets", "deployments/scale" or "*"; it is "" for a
	// non-resource URL, and reads "<...>" for a marker of permissions that cannot be known (see
	// the package documentation).
	Resource string
	// ResourceName is "" for any name.
	ResourceName string
	// NonResourceURL is set for a non-resource grant such as "/healthz" or "/apis*".
	NonResourceURL string
	// Verb is a verb such as "get" or "*"; it is "" only for a marker.
	Verb string
}

// isMarker reports whether g stands for permissions that cannot be known (an unknown role or
// an aggregation beyond the render).
func isMarker(g Grant) bool {
	return g.Verb == "" && strings.HasPrefix(g.Resource, "<")
}

// unknownRole returns the marker of a subject bound to a role missing from the render.
func unknownRole(subject, namespace, kind, name string) Grant {
	return Grant{Subject: subject, Namespace: namespace, Resource: "<unknown " + kind + "/" + name + ">"}
}

// aggregationMarker returns the marker of a subject bound to an aggregated ClusterRole whose
// selector may select roles outside the render.
func aggregationMarker(subject, namespace, selector string) Grant {
	return Grant{Subject: subject, Namespace: namespace, Resource: "<aggregated ClusterRoles matching " + selector + ">"}
}

// compareGrants orders grants by subject, scope, apiGroup, resource, name, URL, then verb.
func compareGrants(a, b Grant) int {
	return cmp.Or(
		strings.Compare(a.Subject, b.Subject),
		strings.Compare(a.Namespace, b.Namespace),
		strings.Compare(a.APIGroup, b.APIGroup),
		strings.Compare(a.Resource, b.Resource),
		strings.Compare(a.ResourceName, b.ResourceName),
		strings.Compare(a.NonResourceURL, b.NonResourceURL),
		strings.Compare(a.Verb, b.Verb),
	)
}

// sortGrants sorts grants and removes duplicates.
func sortGrants(grants []Grant) []Grant {
	slices.SortFunc(grants, compareGrants)
	return slices.Compact(grants)
}

// grantSet is a set of grants that answers whether a grant is covered by a member.
type grantSet struct {
	all map[Grant]struct{}
	// namespaced holds the namespaced members with Namespace cleared, to detect widening.
	namespaced map[Grant]struct{}
}

// newGrantSet indexes grants.
func newGrantSet(grants []Grant) grantSet {
	s := grantSet{all: map[Grant]struct{}{}, namespaced: map[Grant]struct{}{}}
	for _, g := range grants {
		s.all[g] = struct{}{}
		if g.Namespace != "" {
			g.Namespace = ""
			s.namespaced[g] = struct{}{}
		}
	}
	return s
}

// covers reports whether a member grants at least what g grants: the same content or a
// wildcard over it, in g's namespace or cluster-wide.
func (s grantSet) covers(g Grant) bool {
	for c := range coveringContents(g) {
		for _, ns := range []string{g.Namespace, ""} {
			c.Namespace = ns
			if _, ok := s.all[c]; ok {
				return true
			}
		}
	}
	return false
}

// coversInSomeNamespace reports whether a namespaced member covers g's content (ignoring g's
// scope).
func (s grantSet) coversInSomeNamespace(g Grant) bool {
	for c := range coveringContents(g) {
		c.Namespace = ""
		if _, ok := s.namespaced[c]; ok {
			return true
		}
	}
	return false
}

// coveringContents yields every grant, in g's namespace, whose content covers g's content.
// RBAC wildcards are few, so they can be enumerated instead of matched.
func coveringContents(g Grant) iter.Seq[Grant] {
	return func(yield func(Grant) bool) {
		switch {
		case isMarker(g):
			yield(g)
		case g.NonResourceURL != "":
			yieldNonResource(g, yield)
		default:
			yieldResource(g, yield)
		}
	}
}

// yieldResource yields the resource grants covering g until yield returns false.
func yieldResource(g Grant, yield func(Grant) bool) {
	for _, group := range orWildcard(g.APIGroup, "*") {
		for _, res := range resourceCovering(g.Resource) {
			for _, name := range orWildcard(g.ResourceName, "") {
				for _, verb := range orWildcard(g.Verb, "*") {
					c := Grant{Subject: g.Subject, Namespace: g.Namespace,
						APIGroup: group, Resource: res, ResourceName: name, Verb: verb}
					if !yield(c) {
						return
					}
				}
			}
		}
	}
}

// yieldNonResource yields the non-resource grants covering g until yield returns false.
func yieldNonResource(g Grant, yield func(Grant) bool) {
	for _, url := range urlCovering(g.NonResourceURL) {
		for _, verb := range orWildcard(g.Verb, "*") {
			if !yield(Grant{Subject: g.Subject, Namespace: g.Namespace, NonResourceURL: url, Verb: verb}) {
				return
			}
		}
	}
}

// orWildcard returns value and the wildcard that covers it.
func orWildcard(value, wildcard string) []string {
	if value == wildcard {
		return []string{value}
	}
	return []string{value, wildcard}
}

// resourceCovering returns the resource patterns matching res: itself, "*", and for a
// subresource "*/subresource".
func resourceCovering(res string) []string {
	out := orWildcard(res, "*")
	if _, sub, ok := strings.Cut(res, "/"); ok && res != "*/"+sub {
		out = append(out, "*/"+sub)
	}
	return out
}

// urlCovering returns the non-resource URL patterns matching url: itself, "*" and every
// "prefix*" of it (including url+"*", which matches url).
func urlCovering(url string) []string {
	out := orWildcard(url, "*")
	for i := 1; i <= len(url); i++ {
		if p := url[:i] + "*"; p != url {
			out = append(out, p)
		}
	}
	return out
}

package permissions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Kinds of Change.
const (
	// Added is a grant of the new render that no grant of the old render covers.
	Added = "added"
	// Removed is a grant of the old render that no grant of the new render covers.
	Removed = "removed"
	// Widened is a cluster-wide grant of the new render that the old render only gave in some
	// namespace.
	Widened = "widened"
)

// Change is a difference between two renders' permissions, grouped for review.
type Change struct {
	// Subject is the subject whose permissions changed (see Grant.Subject).
	Subject string
	// Kind is Added, Removed or Widened.
	Kind string
	// Grants are the grants concerned, sorted; for Widened, the new cluster-wide grants.
	Grants []Grant
	// Sensitive lists, sorted, the reasons this change matters, such as "secrets: get",
	// "wildcard verb", "escalate", "cluster-wide" or "create pods/exec"; nil when not sensitive.
	Sensitive []string
}

// Compare returns the changes from before to after, sorted by Subject, Kind, then first grant.
func Compare(before, after []*unstructured.Unstructured) ([]Change, error) {
	old, err := Permissions(before)
	if err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	cur, err := Permissions(after)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	return group(classify(old, cur)), nil
}

// Grew reports whether any change adds permissions (added or widened).
func Grew(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Kind == Added || c.Kind == Widened })
}

// item is one grant classified as a change of some kind.
type item struct {
	kind  string
	grant Grant
}

// classify returns the grants of cur not covered by old (added or widened) and the grants of
// old not covered by cur (removed).
func classify(old, cur []Grant) []item {
	oldSet, curSet := newGrantSet(old), newGrantSet(cur)
	var out []item
	for _, g := range cur {
		switch {
		case oldSet.covers(g):
		case g.Namespace == "" && !isMarker(g) && oldSet.coversInSomeNamespace(g):
			out = append(out, item{Widened, g})
		default:
			out = append(out, item{Added, g})
		}
	}
	for _, g := range old {
		if !curSet.covers(g) {
			out = append(out, item{Removed, g})
		}
	}
	return out
}

// group turns classified grants into Changes: the verbs of each target (everything but the
// verb) are gathered, then targets of the same subject, kind, scope, apiGroup and
// resourceName sharing the same verbs form one Change.
func group(items []item) []Change {
	slices.SortFunc(items, compareItems)
	var changes []Change
	index := map[bucket]int{}
	for start := 0; start < len(items); {
		end := targetEnd(items, start)
		key := bucketOf(items[start:end])
		i, ok := index[key]
		if !ok {
			i = len(changes)
			index[key] = i
			changes = append(changes, Change{Subject: key.subject, Kind: key.kind})
		}
		for _, it := range items[start:end] {
			changes[i].Grants = append(changes[i].Grants, it.grant)
		}
		start = end
	}
	return finish(changes)
}

// compareItems orders items by kind, then grant.
func compareItems(a, b item) int {
	return cmp.Or(strings.Compare(a.kind, b.kind), compareGrants(a.grant, b.grant))
}

// sameTarget reports whether a and b differ at most by verb.
func sameTarget(a, b item) bool {
	a.grant.Verb, b.grant.Verb = "", ""
	return a == b
}

// targetEnd returns the end of the run of items starting at start with the same target.
func targetEnd(items []item, start int) int {
	end := start + 1
	for end < len(items) && sameTarget(items[start], items[end]) {
		end++
	}
	return end
}

// bucket is what the targets merged into one Change share.
type bucket struct {
	kind, subject, namespace, apiGroup, resourceName string
	nonResource                                      bool
	marker                                           string // a marker is never merged
	verbs                                            string
}

// bucketOf returns the bucket of one target's items (sorted, so verbs are sorted).
func bucketOf(items []item) bucket {
	g := items[0].grant
	b := bucket{kind: items[0].kind, subject: g.Subject, namespace: g.Namespace,
		apiGroup: g.APIGroup, resourceName: g.ResourceName, nonResource: g.NonResourceURL != ""}
	if isMarker(g) {
		b.marker = g.Resource
	}
	verbs := make([]string, len(items))
	for i, it := range items {
		verbs[i] = it.grant.Verb
	}
	b.verbs = strings.Join(verbs, "\x00")
	return b
}

// finish sorts each change's grants, fills in Sensitive and sorts the changes.
func finish(changes []Change) []Change {
	for i := range changes {
		c := &changes[i]
		c.Grants = sortGrants(c.Grants)
		c.Sensitive = sensitive(*c)
	}
	slices.SortFunc(changes, func(a, b Change) int {
		return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Kind, b.Kind),
			compareGrants(a.Grants[0], b.Grants[0]))
	})
	return changes
}

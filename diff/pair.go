package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// csvPair is an operator CSV and the CSV that replaces it in the same namespace; From == To for
// a CSV changed in place.
type csvPair struct {
	Namespace, From, To string
	// Edge is "replaces", "skips", "skipRange" or "" (same package only, or in place).
	Edge          string
	before, after *unstructured.Unstructured
}

// edgeRank orders edges from the most to the least specific.
func edgeRank(edge string) int {
	return slices.Index([]string{"replaces", "skips", "skipRange", ""}, edge)
}

// pairCSVs pairs every added operator CSV with the deleted operator CSV of the same namespace
// it upgrades from (preferring replaces, then skips, then skipRange, then the same package), and
// lists every modified operator CSV as changed in place. The result is sorted.
func pairCSVs(changes []*Change) []csvPair {
	var pairs []csvPair
	used := map[*Change]bool{}
	for _, added := range changes {
		switch {
		case added.Action == Modified && added.From == nil && isOperatorCSV(added.after):
			pairs = append(pairs, csvPair{Namespace: added.Key.Namespace, From: added.Key.Name, To: added.Key.Name,
				before: added.before, after: added.after})
		case added.Action == Added && isOperatorCSV(added.after):
			if p, ok := bestPredecessor(changes, added, used); ok {
				pairs = append(pairs, p)
			}
		}
	}
	slices.SortFunc(pairs, func(a, b csvPair) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	return pairs
}

// bestPredecessor finds the unused deleted CSV the added one upgrades from, and marks it used.
func bestPredecessor(changes []*Change, added *Change, used map[*Change]bool) (csvPair, bool) {
	var best *Change
	bestEdge := ""
	for _, deleted := range changes {
		if deleted.Action != Deleted || used[deleted] || !isOperatorCSV(deleted.before) || deleted.Key.Namespace != added.Key.Namespace {
			continue
		}
		edge, ok := upgradeEdge(added.after, deleted.before)
		if ok && (best == nil || edgeRank(edge) < edgeRank(bestEdge)) {
			best, bestEdge = deleted, edge
		}
	}
	if best == nil {
		return csvPair{}, false
	}
	used[best] = true
	return csvPair{Namespace: added.Key.Namespace, From: best.Key.Name, To: added.Key.Name, Edge: bestEdge,
		before: best.before, after: added.after}, true
}

// owners maps the CSVs of every pair (and their copies) to the pair.
type owners struct {
	exact  map[ownerRef]int
	byName map[string][]int
}

// newOwners registers both CSVs of every pair, in their own namespace and in every namespace
// that holds a copy of them on both sides.
func newOwners(pairs []csvPair, changes []*Change) *owners {
	o := &owners{exact: map[ownerRef]int{}, byName: map[string][]int{}}
	for i, p := range pairs {
		for _, ns := range append([]string{p.Namespace}, copyNamespaces(p, changes)...) {
			o.add(ownerRef{ns, p.From}, i)
			o.add(ownerRef{ns, p.To}, i)
		}
	}
	return o
}

func (o *owners) add(ref ownerRef, pair int) {
	if _, ok := o.exact[ref]; ok {
		return
	}
	o.exact[ref] = pair
	o.byName[ref.Name] = append(o.byName[ref.Name], pair)
}

// lookup returns the pair an object's owner belongs to and the owner's name. An owner without
// a namespace (a cluster-scoped object without olm.owner.namespace) is found by name when that
// is unambiguous.
func (o *owners) lookup(u *unstructured.Unstructured) (int, string, bool) {
	ref := ownerOf(u)
	if i, ok := o.exact[ref]; ok {
		return i, ref.Name, true
	}
	if ref.Namespace == "" && len(o.byName[ref.Name]) == 1 {
		return o.byName[ref.Name][0], ref.Name, true
	}
	return 0, "", false
}

// copyNamespaces lists the namespaces that held a copy of p.From before and hold a copy of p.To
// after, both copied from p's namespace.
func copyNamespaces(p csvPair, changes []*Change) []string {
	var from, to []string
	for _, c := range changes {
		if isCopyOf(c.before, p.Namespace, p.From) {
			from = append(from, c.before.GetNamespace())
		}
		if isCopyOf(c.after, p.Namespace, p.To) {
			to = append(to, c.after.GetNamespace())
		}
	}
	var out []string
	for _, ns := range from {
		if slices.Contains(to, ns) {
			out = append(out, ns)
		}
	}
	return distinctSorted(out)
}

// isCopyOf reports whether u is a copy of the CSV name copied from namespace.
func isCopyOf(u *unstructured.Unstructured, namespace, name string) bool {
	return isCopiedCSV(u) && copiedFrom(u) == namespace && u.GetName() == name
}

// groupKey gathers the deleted and added objects that may pair: same pair, group, kind and
// namespace.
type groupKey struct {
	pair                   int
	group, kind, namespace string
}

// candidates are the deleted (old) and added (new) objects of one group, in key order.
type candidates struct {
	old, new []*Change
}

// pairRenamed replaces each deleted object and the added object that is its renamed successor
// by one modification whose From is the old key, and returns the changes sorted again.
func (c *comparer) pairRenamed(changes []*Change, pairs []csvPair) ([]*Change, error) {
	own := newOwners(pairs, changes)
	groups, order := groupCandidates(changes, pairs, own)
	subj := newSubjectIndex(c.before, c.after)
	var matches []match
	for _, gk := range order {
		matches = append(matches, matchGroup(groups[gk], pairs[gk.pair], subj)...)
	}
	return c.applyMatches(changes, matches)
}

// applyMatches replaces the deleted and added change of each match by one modification whose
// From is the old key, and returns the changes sorted again.
func (c *comparer) applyMatches(changes []*Change, matches []match) ([]*Change, error) {
	gone := map[*Change]bool{}
	var out []*Change
	for _, m := range matches {
		ch, err := c.compareOne(m[0].Key, m[1].Key, m[0].before, m[1].after)
		if err != nil {
			return nil, err
		}
		gone[m[0]], gone[m[1]] = true, true
		out = append(out, ch)
	}
	for _, ch := range changes {
		if !gone[ch] {
			out = append(out, ch)
		}
	}
	slices.SortFunc(out, func(a, b *Change) int { return compareKeys(a.Key, b.Key) })
	return out, nil
}

// groupCandidates sorts the deleted objects owned by the old CSV of a pair and the added
// objects owned by its new CSV into groups, returned with their keys in first-seen order.
func groupCandidates(changes []*Change, pairs []csvPair, own *owners) (map[groupKey]*candidates, []groupKey) {
	groups := map[groupKey]*candidates{}
	var order []groupKey
	for _, ch := range changes {
		i, ok := candidateOf(ch, pairs, own)
		if !ok {
			continue
		}
		gk := groupKey{pair: i, group: ch.Key.Group, kind: ch.Key.Kind, namespace: ch.Key.Namespace}
		if groups[gk] == nil {
			groups[gk] = &candidates{}
			order = append(order, gk)
		}
		if ch.Action == Deleted {
			groups[gk].old = append(groups[gk].old, ch)
		} else {
			groups[gk].new = append(groups[gk].new, ch)
		}
	}
	return groups, order
}

// candidateOf returns the pair whose old CSV owns a deleted object, or whose new CSV owns an
// added one. Operator CSVs only pair with their own pair's CSVs.
func candidateOf(ch *Change, pairs []csvPair, own *owners) (int, bool) {
	if ch.Action == Modified {
		return 0, false
	}
	u := ch.object()
	i, owner, ok := own.lookup(u)
	if !ok {
		return 0, false
	}
	p := pairs[i]
	want := p.To
	if ch.Action == Deleted {
		want = p.From
	}
	if owner != want || (isOperatorCSV(u) && !isPairCSV(p, u)) {
		return 0, false
	}
	return i, true
}

// isPairCSV reports whether u is one of the pair's own operator CSVs.
func isPairCSV(p csvPair, u *unstructured.Unstructured) bool {
	return u.GetNamespace() == p.Namespace && (u.GetName() == p.From || u.GetName() == p.To)
}

// match is a deleted change and the added change that succeeds it.
type match [2]*Change

// scored is a possible match with how well its names and contents agree.
type scored struct {
	old, new int
	name     int
	content  float64
}

// matchGroup pairs the old and new objects of one group: only objects with the same
// ServiceAccount subjects and the same shape of name (exactly the CSV's name, or the CSV's name
// and a suffix) may pair; among those, names whose middle parts agree and then the most similar
// contents win, ties going to key order.
func matchGroup(g *candidates, p csvPair, subj *subjectIndex) []match {
	var all []scored
	similar := len(g.old) > 1 || len(g.new) > 1
	for i, o := range g.old {
		for j, n := range g.new {
			if subj.of(o.before, true) != subj.of(n.after, false) {
				continue
			}
			level := nameAgreement(o.Key.Name, p.From, n.Key.Name, p.To)
			if level < 0 {
				continue
			}
			s := scored{old: i, new: j, name: level}
			if similar {
				s.content = similarity(o.before, n.after)
			}
			all = append(all, s)
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.name, a.name), cmp.Compare(b.content, a.content), cmp.Compare(a.old, b.old), cmp.Compare(a.new, b.new))
	})
	return greedy(all, g)
}

// greedy takes the best-scored matches whose ends are both still free.
func greedy(all []scored, g *candidates) []match {
	usedOld, usedNew := map[int]bool{}, map[int]bool{}
	var out []match
	for _, s := range all {
		if usedOld[s.old] || usedNew[s.new] {
			continue
		}
		usedOld[s.old], usedNew[s.new] = true, true
		out = append(out, match{g.old[s.old], g.new[s.new]})
	}
	return out
}

// nameAgreement compares two names relative to their CSVs: -1 when they cannot be the same
// object (one is the CSV's name and the other is not), 2 when their middle parts (between the
// CSV name and the trailing hash) are equal, 1 when one is a prefix of the other (OLM cuts long
// names), 0 otherwise.
func nameAgreement(oldName, oldCSV, newName, newCSV string) int {
	om, oExact := middle(oldName, oldCSV)
	nm, nExact := middle(newName, newCSV)
	switch {
	case oExact != nExact:
		return -1
	case om == nm:
		return 2
	case strings.HasPrefix(om, nm) || strings.HasPrefix(nm, om):
		return 1
	}
	return 0
}

// middle returns what a name holds between its CSV's name and its trailing "-<hash>", and
// whether the name is exactly the CSV's name. A name that does not start with the CSV's name
// is its own middle.
func middle(name, csv string) (string, bool) {
	if name == csv {
		return "", true
	}
	rest, ok := strings.CutPrefix(name, csv+"-")
	if !ok {
		return name, false
	}
	if i := strings.LastIndex(rest, "-"); i >= 0 {
		return rest[:i], false
	}
	return "", false
}

// similarity is the share of YAML lines two objects have in common, between 0 and 1.
func similarity(a, b *unstructured.Unstructured) float64 {
	ay, err1 := yaml.Marshal(a.Object)
	by, err2 := yaml.Marshal(b.Object)
	if err1 != nil || err2 != nil {
		return 0
	}
	m := difflib.NewMatcher(splitLines(string(ay)), splitLines(string(by)))
	return m.Ratio()
}

package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Action says what happened to an object between two renders.
type Action string

// Actions.
const (
	Added    Action = "added"
	Deleted  Action = "deleted"
	Modified Action = "modified"
)

// Options tune a comparison.
type Options struct {
	// IgnoreKinds drops objects of these kinds from both sides: "Kind" (any group) or
	// "group/Kind", e.g. "CustomResourceDefinition" or "apiextensions.k8s.io/CustomResourceDefinition".
	IgnoreKinds []string
	// IgnoreFields removes these fields from every object before comparing: JSON Pointers
	// ("/metadata/labels/olm.deployment-spec-hash") or dotted paths with bracketed segments
	// (`metadata.labels["olm.deployment-spec-hash"]`).
	IgnoreFields []string
	// Context is the number of unchanged lines shown around each change (default 3).
	Context int
}

// Change is one object that differs.
type Change struct {
	Action Action `json:"action"`
	Key    Key    `json:"key"`
	// From is the object's key before the change when OLM renamed it (a CSV, its copies, and
	// the RBAC and OperatorCondition named after it, paired across an upgrade); nil otherwise.
	From *Key `json:"from,omitempty"`
	// Diff is a unified diff of the normalised YAML (Secret values masked).
	Diff string `json:"diff"`
	// Added and Removed count the diff's + and - lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`

	before, after *unstructured.Unstructured
}

// Part is a set of changes, the operator upgrades they amount to and what no upgrade accounts
// for: the whole of a report, or one of its two parts where OLM keeps running.
type Part struct {
	// Changes are sorted by kind rank, kind, group, namespace and name.
	Changes []*Change `json:"changes"`
	// Upgrades are the operator upgrades the changes amount to, with what each changes
	// (images, permissions, CRDs, webhooks, dependencies, install modes), sorted.
	Upgrades []Upgrade `json:"upgrades,omitempty"`
	// Other holds what no upgrade accounts for: operators installed or removed, and the
	// permission, CRD and webhook changes of objects no upgraded CSV owns; nil when empty.
	Other *Details `json:"other,omitempty"`
}

// Changed reports whether anything differs.
func (p *Part) Changed() bool { return len(p.Changes) > 0 }

// Count returns the number of changes with the given action.
func (p *Part) Count(a Action) int {
	n := 0
	for _, c := range p.Changes {
		if c.Action == a {
			n++
		}
	}
	return n
}

// Report is the outcome of a comparison. Its Part holds every change.
type Report struct {
	Part
	// Findings are the reasons each gate (except any-change) would fire, sorted.
	Findings []Finding `json:"findings,omitempty"`
	// Applied and OLM split the report when either render is for a cluster where OLM keeps
	// running (--olm=running: it holds objects marked olm-render.dev/prediction). Applied is
	// what Git applies (Subscriptions, CatalogSources, approval contracts, everything not
	// predicted); OLM is what OLM will do (in words, then the predicted objects). The report's
	// Changes, Upgrades and Findings then hold both parts'; its Other is nil, each part holding
	// its own. Both are nil otherwise.
	Applied *Part    `json:"applied,omitempty"`
	OLM     *OLMPart `json:"olm,omitempty"`
}

// Compare compares two renders object by object. Objects OLM names after a CSV are paired
// across an upgrade (see the package documentation) and shown as modifications. When either
// render holds a prediction (--olm=running), the report has two parts (Report.Applied,
// Report.OLM), each compared on its own.
func Compare(before, after []*unstructured.Unstructured, opts Options) (*Report, error) {
	if holdsPrediction(before) || holdsPrediction(after) {
		return compareRunning(before, after, opts)
	}
	return compareObjects(before, after, opts)
}

// compareObjects compares two sets of objects as one report.
func compareObjects(before, after []*unstructured.Unstructured, opts Options) (*Report, error) {
	c, err := newComparer(before, after, opts)
	if err != nil {
		return nil, err
	}
	changes, err := c.compareAll()
	if err != nil {
		return nil, err
	}
	pairs := pairCSVs(changes)
	if changes, err = c.pairRenamed(changes, pairs); err != nil {
		return nil, err
	}
	if changes, err = c.pairExtensionRenamed(changes); err != nil {
		return nil, err
	}
	r := &Report{Part: Part{Changes: changes, Upgrades: explainUpgrades(changes, pairs)}}
	analyze(r, c.before, c.after)
	return r, nil
}

// comparer holds the two indexed renders and the options of one comparison.
type comparer struct {
	before, after map[Key]*unstructured.Unstructured
	ignore        []fieldPath
	context       int
}

func newComparer(before, after []*unstructured.Unstructured, opts Options) (*comparer, error) {
	ignore, err := parseFieldPaths(opts.IgnoreFields)
	if err != nil {
		return nil, err
	}
	c := &comparer{ignore: ignore, context: cmp.Or(max(opts.Context, 0), 3)}
	if c.before, err = index(before, opts.IgnoreKinds); err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	if c.after, err = index(after, opts.IgnoreKinds); err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	return c, nil
}

// compareAll compares every key of either side with itself.
func (c *comparer) compareAll() ([]*Change, error) {
	var out []*Change
	for _, k := range unionKeys(c.before, c.after) {
		ch, err := c.compareOne(k, k, c.before[k], c.after[k])
		if err != nil {
			return nil, err
		}
		if ch != nil {
			out = append(out, ch)
		}
	}
	return out, nil
}

func parseFieldPaths(in []string) ([]fieldPath, error) {
	out := make([]fieldPath, 0, len(in))
	for _, s := range in {
		p, err := parseFieldPath(s)
		if err != nil {
			return nil, fmt.Errorf("ignore field: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

func index(objs []*unstructured.Unstructured, ignoreKinds []string) (map[Key]*unstructured.Unstructured, error) {
	m := make(map[Key]*unstructured.Unstructured, len(objs))
	for _, o := range objs {
		k := KeyOf(o)
		if slices.ContainsFunc(ignoreKinds, func(p string) bool { return matchesKind(k, p) }) {
			continue
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("%s appears twice", k)
		}
		m[k] = o
	}
	return m, nil
}

func unionKeys(a, b map[Key]*unstructured.Unstructured) []Key {
	keys := make([]Key, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareKeys)
	return keys
}

// compareOne diffs the object from had before with the object to has after (either may be
// nil); nil when their normalised forms are equal. A pair of different keys is a rename.
func (c *comparer) compareOne(from, to Key, before, after *unstructured.Unstructured) (*Change, error) {
	b, a, err := prepare(before, after, c.ignore)
	if err != nil {
		return nil, err
	}
	by, err := toYAML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	ay, err := toYAML(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", to, err)
	}
	if by == ay && from == to {
		return nil, nil
	}
	ch := &Change{Key: to, Action: Modified, before: before, after: after}
	switch {
	case before == nil:
		ch.Action = Added
	case after == nil:
		ch.Action = Deleted
	case from != to:
		ch.From = &from
	}
	if ch.Diff, err = unified(from, to, by, ay, c.context); err != nil {
		return nil, fmt.Errorf("%s: %w", to, err)
	}
	ch.Added, ch.Removed = countLines(ch.Diff)
	return ch, nil
}

func toYAML(u *unstructured.Unstructured) (string, error) {
	if u == nil {
		return "", nil
	}
	out, err := yaml.Marshal(u.Object)
	if err != nil {
		return "", fmt.Errorf("encoding YAML: %w", err)
	}
	return string(out), nil
}

func unified(from, to Key, before, after string, context int) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(before),
		B:        splitLines(after),
		FromFile: "a/" + from.String(),
		ToFile:   "b/" + to.String(),
		Context:  context,
	})
}

func countLines(d string) (added, removed int) {
	for _, line := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}

// splitLines splits YAML into lines for difflib; an absent object has no lines at all.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return difflib.SplitLines(strings.TrimSuffix(s, "\n"))
}

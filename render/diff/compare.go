package diff

import (
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
	// Diff is a unified diff of the normalised YAML (Secret values masked).
	Diff string `json:"diff"`
	// Added and Removed count the diff's + and - lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`

	before, after *unstructured.Unstructured
}

// Report is the outcome of a comparison.
type Report struct {
	// Changes are sorted by kind rank, kind, group, namespace and name.
	Changes []*Change `json:"changes"`
	// Upgrades are the operator upgrades the changes amount to, sorted.
	Upgrades []Upgrade `json:"upgrades,omitempty"`
}

// Changed reports whether anything differs.
func (r *Report) Changed() bool { return len(r.Changes) > 0 }

// Count returns the number of changes with the given action.
func (r *Report) Count(a Action) int {
	n := 0
	for _, c := range r.Changes {
		if c.Action == a {
			n++
		}
	}
	return n
}

// Compare compares two renders object by object.
func Compare(before, after []*unstructured.Unstructured, opts Options) (*Report, error) {
	ignore, err := parseFieldPaths(opts.IgnoreFields)
	if err != nil {
		return nil, err
	}
	if opts.Context <= 0 {
		opts.Context = 3
	}
	b, err := index(before, opts.IgnoreKinds)
	if err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	a, err := index(after, opts.IgnoreKinds)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	keys := unionKeys(b, a)
	r := &Report{}
	for _, k := range keys {
		c, err := compareOne(k, b[k], a[k], ignore, opts.Context)
		if err != nil {
			return nil, err
		}
		if c != nil {
			r.Changes = append(r.Changes, c)
		}
	}
	r.Upgrades = explainUpgrades(r.Changes)
	return r, nil
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
		if slices.ContainsFunc(ignoreKinds, k.matchesKind) {
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

func compareOne(k Key, before, after *unstructured.Unstructured, ignore []fieldPath, context int) (*Change, error) {
	b, a, err := prepare(before, after, ignore)
	if err != nil {
		return nil, err
	}
	by, err := toYAML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	ay, err := toYAML(a)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	if by == ay {
		return nil, nil
	}
	c := &Change{Key: k, Action: Modified, before: before, after: after}
	switch {
	case before == nil:
		c.Action = Added
	case after == nil:
		c.Action = Deleted
	}
	c.Diff, err = unified(k, by, ay, context)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	c.Added, c.Removed = countLines(c.Diff)
	return c, nil
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

func unified(k Key, before, after string, context int) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(before),
		B:        splitLines(after),
		FromFile: "a/" + k.String(),
		ToFile:   "b/" + k.String(),
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

package diff

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/diff/crdcompat"
)

// CRDChange is a CustomResourceDefinition added, removed or changed in its schema or versions.
type CRDChange struct {
	Name   string `json:"name"`
	Action Action `json:"action"`
	// Breaking lists the changes that can break custom resources already stored, such as
	// "v1alpha1: field spec.rbac.enabled: removed". A removed CRD is breaking.
	Breaking []string `json:"breaking,omitempty"`
	// NonBreaking counts the other differences crdcompat found.
	NonBreaking int `json:"nonBreaking,omitempty"`
}

// String reads "hawtios.hawt.io: 1 breaking change, 12 other changes", "x: 2 non-breaking
// changes", "x: added" or "x: removed (breaking)".
func (c CRDChange) String() string {
	switch {
	case c.Action == Added:
		return c.Name + ": added"
	case c.Action == Deleted:
		return c.Name + ": removed (breaking)"
	case len(c.Breaking) == 0:
		return fmt.Sprintf("%s: %d non-breaking %s", c.Name, c.NonBreaking, plural(c.NonBreaking, "change", "changes"))
	}
	s := fmt.Sprintf("%s: %d breaking %s", c.Name, len(c.Breaking), plural(len(c.Breaking), "change", "changes"))
	if c.NonBreaking > 0 {
		s += fmt.Sprintf(", %d other %s", c.NonBreaking, plural(c.NonBreaking, "change", "changes"))
	}
	return s
}

const (
	crdGroup       = "apiextensions.k8s.io"
	crdKind        = "CustomResourceDefinition"
	crdRemovedNote = "CRD removed from the render: pruning it deletes every stored custom resource"
)

// addCRDs judges every changed CRD with crdcompat and hands it to the upgrades whose CSVs own it.
func addCRDs(a *attribution, changes []*Change) {
	for _, ch := range changes {
		if ch.Key.Group != crdGroup || ch.Key.Kind != crdKind {
			continue
		}
		c, ok := crdChange(ch)
		if !ok {
			continue
		}
		for _, d := range a.targets(func(p csvPair) bool { return slices.Contains(ownedCRDs(p), c.Name) }) {
			d.CRDs = append(d.CRDs, c)
		}
	}
}

// crdChange describes one CRD change; false when only fields crdcompat ignores changed.
func crdChange(ch *Change) (CRDChange, bool) {
	c := CRDChange{Name: ch.Key.Name, Action: ch.Action}
	switch ch.Action {
	case Added:
		return c, true
	case Deleted:
		c.Breaking = []string{crdRemovedNote}
		return c, true
	}
	found, err := crdcompat.Compare(ch.before, ch.after)
	if err != nil {
		c.Breaking = []string{fmt.Sprintf("could not be compared: %v", err)}
		return c, true
	}
	for _, f := range found {
		if f.Breaking {
			c.Breaking = append(c.Breaking, crdMessage(f))
		} else {
			c.NonBreaking++
		}
	}
	return c, len(found) > 0
}

// crdMessage prefixes a change with its version, unless the message names it already.
func crdMessage(f crdcompat.Change) string {
	if f.Version == "" || strings.HasPrefix(f.Message, "version ") {
		return f.Message
	}
	return f.Version + ": " + f.Message
}

// ownedCRDs returns the names of the CRDs the pair's CSVs own, sorted.
func ownedCRDs(p csvPair) []string {
	var out []string
	for _, csv := range p.csvs() {
		list, _, _ := unstructured.NestedSlice(csv.Object, "spec", "customresourcedefinitions", "owned")
		for _, item := range list {
			if m, ok := item.(map[string]any); ok {
				name, _ := m["name"].(string)
				out = append(out, name)
			}
		}
	}
	return distinctSorted(out)
}

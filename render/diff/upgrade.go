package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Upgrade is an operator moving from one CSV to another in a namespace.
type Upgrade struct {
	Namespace string `json:"namespace"`
	From      string `json:"from"`
	To        string `json:"to"`
	// Edge is the upgrade-graph edge that connects them: "replaces", "skips" or "skipRange";
	// empty when the new CSV names no edge to the old one.
	Edge string `json:"edge,omitempty"`
	// Objects is the number of changed objects that belong to the operator, both CSVs included.
	Objects int `json:"objects"`
}

// String reads "etcdoperator.v0.9.2 → etcdoperator.v0.9.4 (replaces), 7 objects changed".
func (u Upgrade) String() string {
	edge := ""
	if u.Edge != "" {
		edge = " (" + u.Edge + ")"
	}
	noun := "objects"
	if u.Objects == 1 {
		noun = "object"
	}
	return fmt.Sprintf("%s → %s%s, %d %s changed", u.From, u.To, edge, u.Objects, noun)
}

const (
	csvGroup       = "operators.coreos.com"
	csvKind        = "ClusterServiceVersion"
	copiedFromKey  = "olm.copiedFrom"
	ownerLabel     = "olm.owner"
	ownerKindLabel = "olm.owner.kind"
	skipRangeKey   = "olm.skipRange"
)

// explainUpgrades pairs each added CSV with the deleted CSV of the same namespace it upgrades
// from, and counts the changed objects that belong to either.
func explainUpgrades(changes []*Change) []Upgrade {
	var ups []Upgrade
	for _, added := range changes {
		if added.Action != Added || !isOperatorCSV(added.after) {
			continue
		}
		for _, deleted := range changes {
			if deleted.Action != Deleted || !isOperatorCSV(deleted.before) || deleted.Key.Namespace != added.Key.Namespace {
				continue
			}
			edge, ok := upgradeEdge(added.after, deleted.before)
			if !ok {
				continue
			}
			u := Upgrade{Namespace: added.Key.Namespace, From: deleted.Key.Name, To: added.Key.Name, Edge: edge}
			u.Objects = countOwned(changes, u.From, u.To)
			ups = append(ups, u)
		}
	}
	slices.SortFunc(ups, func(a, b Upgrade) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	return ups
}

// isOperatorCSV reports whether u is a CSV that is not a copy.
func isOperatorCSV(u *unstructured.Unstructured) bool {
	if u == nil || u.GetKind() != csvKind || u.GroupVersionKind().Group != csvGroup {
		return false
	}
	_, copied := u.GetLabels()[copiedFromKey]
	return !copied
}

// upgradeEdge tells how newCSV upgrades from oldCSV: by spec.replaces, spec.skips or the
// olm.skipRange annotation; or by belonging to the same package (no edge named) when both
// carry the same operators.coreos.com/<package>.<namespace> label.
func upgradeEdge(newCSV, oldCSV *unstructured.Unstructured) (string, bool) {
	old := oldCSV.GetName()
	if r, _, _ := unstructured.NestedString(newCSV.Object, "spec", "replaces"); r == old {
		return "replaces", true
	}
	skips, _, _ := unstructured.NestedStringSlice(newCSV.Object, "spec", "skips")
	if slices.Contains(skips, old) {
		return "skips", true
	}
	if inSkipRange(newCSV.GetAnnotations()[skipRangeKey], oldCSV) {
		return "skipRange", true
	}
	if pkg := packageLabel(newCSV); pkg != "" && pkg == packageLabel(oldCSV) {
		return "", true
	}
	return "", false
}

func inSkipRange(r string, oldCSV *unstructured.Unstructured) bool {
	if r == "" {
		return false
	}
	rng, err := semver.ParseRange(r)
	if err != nil {
		return false
	}
	v, _, _ := unstructured.NestedString(oldCSV.Object, "spec", "version")
	ver, err := semver.ParseTolerant(v)
	return err == nil && rng(ver)
}

// packageLabel returns the operators.coreos.com/<package>.<namespace> label key, if any.
func packageLabel(u *unstructured.Unstructured) string {
	for k := range u.GetLabels() {
		if strings.HasPrefix(k, "operators.coreos.com/") {
			return k
		}
	}
	return ""
}

// countOwned counts the changes that belong to the operator moving from one CSV to another:
// the CSVs and their copies, objects labelled with either as olm.owner, and objects carrying the
// same package label as either CSV.
func countOwned(changes []*Change, from, to string) int {
	var pkgs []string
	for _, c := range changes {
		if u := c.object(); isOperatorCSV(u) && (u.GetName() == from || u.GetName() == to) {
			if p := packageLabel(u); p != "" {
				pkgs = append(pkgs, p)
			}
		}
	}
	n := 0
	for _, c := range changes {
		if belongs(c.object(), from, to, pkgs) {
			n++
		}
	}
	return n
}

func belongs(u *unstructured.Unstructured, from, to string, pkgs []string) bool {
	if u.GetKind() == csvKind && (u.GetName() == from || u.GetName() == to) {
		return true
	}
	labels := u.GetLabels()
	if owner := labels[ownerLabel]; (owner == from || owner == to) && labels[ownerKindLabel] == csvKind {
		return true
	}
	for _, p := range pkgs {
		if _, ok := labels[p]; ok {
			return true
		}
	}
	return false
}

// object returns the object after the change, or before it for deletions.
func (c *Change) object() *unstructured.Unstructured {
	if c.after != nil {
		return c.after
	}
	return c.before
}

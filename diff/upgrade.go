package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Upgrade is an operator moving from one CSV to another in a namespace, or its CSV changing in
// place (From == To), with what the move changes.
type Upgrade struct {
	Namespace string `json:"namespace"`
	// Package is the operator's package, when the CSVs say.
	Package string `json:"package,omitempty"`
	From    string `json:"from"`
	To      string `json:"to"`
	// Edge is the upgrade-graph edge that connects them: "replaces", "skips" or "skipRange";
	// empty when the new CSV names no edge to the old one.
	Edge string `json:"edge,omitempty"`
	// Downgrade is true when the new CSV's version is older than the old one's (FromVersion,
	// ToVersion): where OLM runs, OLM never takes such a step.
	Downgrade   bool   `json:"downgrade,omitempty"`
	FromVersion string `json:"fromVersion,omitempty"`
	ToVersion   string `json:"toVersion,omitempty"`
	// Objects is the number of changed objects that belong to the operator, both CSVs included.
	Objects int `json:"objects"`
	Details

	pair csvPair
}

// String reads "etcdoperator.v0.9.2 → etcdoperator.v0.9.4 (replaces), 7 objects changed",
// "etcdoperator.v0.9.4 → etcdoperator.v0.9.2 (downgrade), 7 objects changed", or
// "etcdoperator.v0.9.4 (changed in place), 2 objects changed".
func (u Upgrade) String() string {
	step := u.From + " → " + u.To
	var notes []string
	if u.Edge != "" {
		notes = append(notes, u.Edge)
	}
	if u.Downgrade {
		notes = append(notes, "downgrade")
	}
	if len(notes) > 0 {
		step += " (" + strings.Join(notes, "; ") + ")"
	}
	if u.From == u.To {
		step = u.To + " (changed in place)"
	}
	return fmt.Sprintf("%s, %d %s changed", step, u.Objects, plural(u.Objects, "object", "objects"))
}

// Operator names the operator for gate reasons: "namespace/package", or "namespace/csv" when
// the package is unknown.
func (u Upgrade) Operator() string {
	if u.Package != "" {
		return u.Namespace + "/" + u.Package
	}
	return u.Namespace + "/" + u.To
}

// csvObject names the upgrade's new CSV: "ClusterServiceVersion/namespace/name".
func (u Upgrade) csvObject() string {
	return Key{Group: csvGroup, Kind: csvKind, Namespace: u.Namespace, Name: u.To}.String()
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// explainUpgrades turns the CSV pairs into upgrades and counts the changed objects that belong
// to each.
func explainUpgrades(changes []*Change, pairs []csvPair) []Upgrade {
	ups := make([]Upgrade, 0, len(pairs))
	for _, p := range pairs {
		u := Upgrade{Namespace: p.Namespace, From: p.From, To: p.To, Edge: p.Edge, pair: p}
		u.Package = cmp.Or(packageOf(p.after), packageOf(p.before))
		u.Objects = countOwned(changes, p)
		ups = append(ups, u)
	}
	markDowngrades(ups)
	return ups
}

// upgradeEdge tells how newCSV upgrades from oldCSV: by spec.replaces, spec.skips or the
// olm.skipRange annotation; or by belonging to the same package (no edge named).
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
	if pkg := packageOf(newCSV); pkg != "" && pkg == packageOf(oldCSV) {
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

// countOwned counts the changes that belong to the operator of a pair (see belongs).
func countOwned(changes []*Change, p csvPair) int {
	pkgs := ownedPackageLabels(p)
	n := 0
	for _, c := range changes {
		if belongs(c, p, pkgs) {
			n++
		}
	}
	return n
}

// ownedPackageLabels returns the package labels of the pair's CSVs.
func ownedPackageLabels(p csvPair) []string {
	var pkgs []string
	for _, u := range []*unstructured.Unstructured{p.before, p.after} {
		if l := packageLabel(u); l != "" && !slices.Contains(pkgs, l) {
			pkgs = append(pkgs, l)
		}
	}
	return pkgs
}

// belongs reports whether a change is the operator's: either CSV or a copy of it, an object
// whose olm.owner labels or own name name either CSV, or an object carrying the package label
// of either CSV.
func belongs(c *Change, p csvPair, pkgs []string) bool {
	for _, u := range []*unstructured.Unstructured{c.before, c.after} {
		if u != nil && ownedBy(u, p, pkgs) {
			return true
		}
	}
	return false
}

func ownedBy(u *unstructured.Unstructured, p csvPair, pkgs []string) bool {
	named := func(name string) bool { return name == p.From || name == p.To }
	if isCSV(u) && named(u.GetName()) && (u.GetNamespace() == p.Namespace || copiedFrom(u) == p.Namespace) {
		return true
	}
	if ref := ownerOf(u); named(ref.Name) {
		return true
	}
	labels := u.GetLabels()
	return slices.ContainsFunc(pkgs, func(l string) bool { _, ok := labels[l]; return ok })
}

// object returns the object after the change, or before it for deletions.
func (c *Change) object() *unstructured.Unstructured {
	if c.after != nil {
		return c.after
	}
	return c.before
}

package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/olm-render/olm-render/resolver/contract"
)

// Move says what OLM will do with a Subscription's CSV.
type Move string

// Moves.
const (
	// MoveInstall: a new Subscription; OLM installs its locked CSV.
	MoveInstall Move = "install"
	// MoveUpgrade: the lock moved to a newer CSV; OLM installs it in place of the old one.
	MoveUpgrade Move = "upgrade"
	// MoveDowngrade: the lock moved to an older CSV of the package, which OLM never installs.
	MoveDowngrade Move = "downgrade"
	// MoveRemove: the Subscription is gone; OLM leaves its CSV installed.
	MoveRemove Move = "remove"
	// MoveKeep: the lock stayed; what the approval contract admits or holds changed.
	MoveKeep Move = "keep"
)

// OLMChange is what OLM will do for one Subscription, declared or generated for a dependency,
// read from the Subscriptions and approval contracts of both renders.
type OLMChange struct {
	Namespace string `json:"namespace"`
	// Subscription names the Subscription, where OLM v0 runs; Extension the ClusterExtension,
	// where OLM v1 runs (its Namespace is spec.namespace, From and To are versions).
	Subscription string `json:"subscription,omitempty"`
	Extension    string `json:"extension,omitempty"`
	Package      string `json:"package,omitempty"`
	// Generated is true for a Subscription OLM creates for a dependency.
	Generated bool `json:"generated,omitempty"`
	Move      Move `json:"move"`
	// From and To are the locked CSVs before and after (From empty on an install, To on a
	// removal).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Edge is the upgrade-graph edge from From to To the prediction shows: "replaces", "skips"
	// or "skipRange"; empty when To does not name From.
	Edge string `json:"edge,omitempty"`
	// Admits are the CSVs the approval contract newly admits for the Subscription, steps first,
	// the locked CSV last: what olm-render approve will approve now and did not before.
	Admits []string `json:"admits,omitempty"`
	// Released is the step held before that the contract now admits: the InstallPlan OLM
	// already proposed, which olm-render approve approves once the new contract is applied.
	Released string `json:"released,omitempty"`
	// Held is the step past the lock OLM will propose and olm-render approve will hold, when
	// the pinned catalog offers one (the contract ConfigMap's olm-render.dev/held).
	Held string `json:"held,omitempty"`
	// Text says it in words (String).
	Text string `json:"text"`

	fromVersion, toVersion string
	// selfCertified: the ClusterExtension's upgradeConstraintPolicy is SelfCertified.
	selfCertified bool
}

// String reads "OLM will install kube-green.v0.7.0 → kube-green.v0.7.1 (replaces); approve
// admits kube-green.v0.7.1; held: kube-green.v0.7.2", or says why OLM will not.
func (c OLMChange) String() string {
	if c.Extension != "" {
		return c.extensionText()
	}
	switch c.Move {
	case MoveDowngrade:
		return fmt.Sprintf("OLM will not install %s: OLM never downgrades an installed CSV, so %s stays; see docs/upgrades.md, Going back", c.To, c.From)
	case MoveRemove:
		if c.Generated {
			return fmt.Sprintf("OLM will leave %s installed: nothing requires it any more, but OLM removes neither a dependency nor its Subscription", c.From)
		}
		return fmt.Sprintf("OLM will leave %s installed: it never deletes a CSV with its Subscription; to uninstall, delete the CSV (docs/upgrades.md, Going back)", c.From)
	}
	s := "OLM keeps " + c.To
	switch c.Move {
	case MoveInstall:
		s = "OLM will install " + c.To
	case MoveUpgrade:
		s = "OLM will install " + c.From + " → " + c.To
		if c.Edge != "" {
			s += " (" + c.Edge + ")"
		}
	}
	if c.Generated && c.Move != MoveKeep {
		s += " as a dependency"
	}
	if len(c.Admits) > 0 {
		s += "; approve admits " + admitsList(c.Admits)
	}
	switch {
	case c.Released != "" && len(c.Admits) == 1:
		s += ", which it held until now"
	case c.Released != "":
		s += " (it held " + c.Released + " until now)"
	}
	if c.Held != "" {
		s += "; held: " + c.Held
	}
	return s
}

// maxAdmitsListed is the most admitted CSVs a sentence names one by one.
const maxAdmitsListed = 3

// admitsList names the admitted CSVs, or for a long list the last (the locked CSV) and how many
// lead up to it.
func admitsList(admits []string) string {
	if len(admits) <= maxAdmitsListed {
		return strings.Join(admits, ", ")
	}
	n := len(admits) - 1
	return admits[n] + " and " + strconv.Itoa(n) + " CSVs that lead up to it"
}

// olmSub is what one render says of a Subscription.
type olmSub struct {
	namespace, name, pkg string
	generated            bool
	// locked is the contract's locked CSV, else the Subscription's spec.startingCSV.
	locked string
	// admitted are the CSVs the contract admits for it: the steps, then the locked CSV.
	admitted []string
	held     string
}

// olmSide is what one render says of its Subscriptions (by "namespace/name"), the CSVs each
// namespace's approval contract admits, and the versions of its CSVs ("namespace/name").
type olmSide struct {
	subs map[string]*olmSub
	// extensions are the ClusterExtensions, by name, where OLM v1 runs.
	extensions map[string]*olmExt
	allowed    map[string][]string
	versions   map[string]semver.Version
}

// newOLMSide reads the approval contracts, Subscriptions, CSVs and ClusterExtensions of a
// render.
func newOLMSide(objs []*unstructured.Unstructured) (*olmSide, error) {
	s := &olmSide{subs: map[string]*olmSub{}, extensions: map[string]*olmExt{}, allowed: map[string][]string{}, versions: map[string]semver.Version{}}
	for _, u := range objs {
		if isContractMap(u) {
			if err := s.addContract(u); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range objs {
		switch {
		case isSubscription(u):
			s.addSubscription(u)
		case isClusterExtension(u):
			s.addExtension(u)
		case isOperatorCSV(u):
			if v, ok := csvVersion(u); ok {
				s.versions[u.GetNamespace()+"/"+u.GetName()] = v
			}
		}
	}
	return s, nil
}

// isContractMap reports whether an object is an approval contract ConfigMap.
func isContractMap(u *unstructured.Unstructured) bool {
	return u.GetKind() == "ConfigMap" && u.GroupVersionKind().Group == "" &&
		u.GetName() == contract.ConfigMapName && u.GetLabels()[contract.Label] == "true"
}

// addContract records what a contract ConfigMap admits and holds for each Subscription.
func (s *olmSide) addContract(u *unstructured.Unstructured) error {
	var cm corev1.ConfigMap
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cm); err != nil {
		return fmt.Errorf("ConfigMap %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	n, err := contract.FromConfigMap(&cm)
	if err != nil {
		return err
	}
	held, err := contract.HeldOf(&cm)
	if err != nil {
		return err
	}
	s.allowed[n.Namespace] = n.Allowed()
	for _, c := range n.Subscriptions {
		s.subs[n.Namespace+"/"+c.Name] = &olmSub{namespace: n.Namespace, name: c.Name, pkg: c.Package, generated: c.Generated,
			locked: c.Locked, admitted: append(slices.Clone(c.Steps), c.Locked), held: held[c.Name]}
	}
	return nil
}

// addSubscription records a Subscription the contracts do not describe, locked at its
// spec.startingCSV.
func (s *olmSide) addSubscription(u *unstructured.Unstructured) {
	key := u.GetNamespace() + "/" + u.GetName()
	if s.subs[key] != nil {
		return
	}
	pkg, _, _ := unstructured.NestedString(u.Object, "spec", "name")
	starting, _, _ := unstructured.NestedString(u.Object, "spec", "startingCSV")
	s.subs[key] = &olmSub{namespace: u.GetNamespace(), name: u.GetName(), pkg: pkg, generated: predicted(u), locked: starting}
}

// version returns a CSV's version: its spec.version when the render holds it, else the one
// its name carries.
func (s *olmSide) version(namespace, csv string) (semver.Version, bool) {
	if v, ok := s.versions[namespace+"/"+csv]; ok {
		return v, true
	}
	return nameVersion(csv)
}

// olmChanges says what OLM will do for every Subscription of either side whose lock moved or
// whose contract admits or holds something new, sorted by namespace and Subscription. The
// prediction's upgrades name the edges.
func olmChanges(before, after *olmSide, upgrades []Upgrade) []OLMChange {
	keys := make([]string, 0, len(before.subs)+len(after.subs))
	for k := range before.subs {
		keys = append(keys, k)
	}
	for k := range after.subs {
		if before.subs[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []OLMChange
	for _, k := range keys {
		if c, ok := olmChangeOf(before, after, before.subs[k], after.subs[k], upgrades); ok {
			c.Text = c.String()
			out = append(out, c)
		}
	}
	return out
}

// olmChangeOf says what OLM will do for one Subscription, b before and a after (either nil);
// false when nothing changes for it.
func olmChangeOf(before, after *olmSide, b, a *olmSub, upgrades []Upgrade) (OLMChange, bool) {
	if a == nil {
		return OLMChange{Namespace: b.namespace, Subscription: b.name, Package: b.pkg, Generated: b.generated, Move: MoveRemove, From: b.locked}, true
	}
	c := OLMChange{Namespace: a.namespace, Subscription: a.name, Package: a.pkg, Generated: a.generated, Move: MoveInstall,
		To: a.locked, Admits: newlyAdmitted(a, before.allowed[a.namespace]), Held: a.held}
	if b == nil {
		return c, true
	}
	c.From = b.locked
	if slices.Contains(c.Admits, b.held) {
		c.Released = b.held
	}
	from, okFrom := before.version(b.namespace, b.locked)
	to, okTo := after.version(a.namespace, a.locked)
	switch {
	case b.locked == a.locked:
		c.Move, c.From = MoveKeep, ""
		return c, len(c.Admits) > 0 || a.held != b.held
	case b.pkg == a.pkg && okFrom && okTo && to.LT(from):
		c.Move, c.fromVersion, c.toVersion = MoveDowngrade, from.String(), to.String()
	default:
		c.Move, c.Edge = MoveUpgrade, edgeBetween(upgrades, a.namespace, b.locked, a.locked)
	}
	return c, true
}

// newlyAdmitted returns the CSVs a Subscription's contract admits that its namespace's contract
// did not before, in the contract's order.
func newlyAdmitted(s *olmSub, before []string) []string {
	var out []string
	for _, csv := range s.admitted {
		if !slices.Contains(before, csv) {
			out = append(out, csv)
		}
	}
	return out
}

// edgeBetween returns the edge of the predicted upgrade from one CSV to another in a namespace;
// "" when the prediction pairs no such upgrade or it names no edge.
func edgeBetween(upgrades []Upgrade, namespace, from, to string) string {
	i := slices.IndexFunc(upgrades, func(u Upgrade) bool { return u.Namespace == namespace && u.From == from && u.To == to })
	if i < 0 {
		return ""
	}
	return upgrades[i].Edge
}

// olmDowngradeFindings returns a downgrade finding for each Subscription whose lock goes back.
func olmDowngradeFindings(changes []OLMChange) []Finding {
	var out []Finding
	for _, c := range changes {
		if c.Extension != "" || c.Move != MoveDowngrade {
			continue
		}
		out = append(out, Finding{Gate: GateDowngrade, Operator: c.Namespace + "/" + cmp.Or(c.Package, c.Subscription),
			Object:  Key{Group: csvGroup, Kind: "Subscription", Namespace: c.Namespace, Name: c.Subscription}.String(),
			Message: fmt.Sprintf("the lock (spec.startingCSV) goes back from %s (%s) to %s (%s): OLM never downgrades an installed CSV, so it will not install it", c.From, c.fromVersion, c.To, c.toVersion)})
	}
	return out
}

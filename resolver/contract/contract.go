// Package contract computes the approval contract of a resolution, for clusters where OLM keeps
// running: for each namespace, the CSVs OLM may install there. That is the locked CSV of every
// Subscription (the declared ones and those OLM generates for dependencies), and every CSV OLM
// may step through on the way up to it along the channel's upgrade graph: every bundle of the
// Subscription's channel from which an upgrade path leads to the locked one (an edge from X to
// Y when Y replaces X, skips X, or its skipRange holds X's version: OLM's own notion of an
// upgrade, resolver/cache's replaces and skip predicates). The locked CSV is the ceiling:
// nothing an upgrade could reach past it is in the contract.
//
// An approver (cluster/approve) approves an InstallPlan only when every CSV it installs is in
// the contract of its namespace, as ACM's OperatorPolicy approves only plans whose
// clusterServiceVersionNames are all on its allowed list.
package contract

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
)

// Contract holds the CSVs OLM may install, by namespace.
type Contract struct {
	// Namespaces are sorted by name.
	Namespaces []Namespace `json:"namespaces"`
}

// Namespace is the contract of one namespace.
type Namespace struct {
	Namespace string `json:"namespace"`
	// Subscriptions are sorted by name.
	Subscriptions []Subscription `json:"subscriptions"`
}

// Subscription is what one Subscription may install.
type Subscription struct {
	// Name is the Subscription's name (for a dependency, the one OLM creates).
	Name      string `json:"name"`
	Generated bool   `json:"generated,omitempty"`
	Package   string `json:"package"`
	Channel   string `json:"channel"`
	// Locked is the locked CSV: the ceiling.
	Locked string `json:"locked"`
	// Steps are the CSVs below Locked that lead up to it, by version.
	Steps []string `json:"steps,omitempty"`
	// Held is the upgrade step past Locked that OLM's resolver will propose once Locked is
	// installed, when the channel offers one (resolver.NextStep): an InstallPlan the approver
	// holds until a lock moves to it. It is informational: not part of contract.yaml (an
	// approver never reads it, so it can never admit it), but recorded on the ConfigMap in
	// HeldAnnotation, for a review of the render to say what OLM will propose.
	Held string `json:"-"`
}

// Allowed returns every CSV the namespace's contract allows, sorted, each once.
func (n Namespace) Allowed() []string {
	var out []string
	for _, s := range n.Subscriptions {
		out = append(out, s.Locked)
		out = append(out, s.Steps...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Namespace returns the contract of a namespace, or nil.
func (c *Contract) Namespace(name string) *Namespace {
	for i := range c.Namespaces {
		if c.Namespaces[i].Namespace == name {
			return &c.Namespaces[i]
		}
	}
	return nil
}

// Build computes the contract of a resolution: each selection's bundle is the locked CSV of
// its Subscription.
func Build(res *resolver.Result) (*Contract, error) {
	c := &Contract{}
	for _, ns := range res.Namespaces {
		n := Namespace{Namespace: ns.Namespace}
		for _, sel := range ns.Selections {
			s, err := subscriptionOf(sel)
			if err != nil {
				return nil, err
			}
			n.Subscriptions = append(n.Subscriptions, s)
		}
		slices.SortFunc(n.Subscriptions, func(a, b Subscription) int { return cmp.Compare(a.Name, b.Name) })
		c.Namespaces = append(c.Namespaces, n)
	}
	slices.SortFunc(c.Namespaces, func(a, b Namespace) int { return cmp.Compare(a.Namespace, b.Namespace) })
	return c, nil
}

// subscriptionOf computes one selection's part of the contract.
func subscriptionOf(sel *resolver.Selection) (Subscription, error) {
	s := Subscription{Name: sel.Subscription.Name, Generated: sel.Generated, Package: sel.Bundle.Package,
		Channel: sel.Channel, Locked: sel.Bundle.Name}
	if sel.Catalog == nil || sel.Catalog.Catalog == nil {
		return s, nil
	}
	pkg := sel.Catalog.Catalog.Package(sel.Bundle.Package)
	if pkg == nil {
		return s, fmt.Errorf("Subscription %s/%s: package %s is not in catalog %s", sel.Subscription.Namespace, sel.Subscription.Name, sel.Bundle.Package, sel.Catalog.Key())
	}
	ch := pkg.Channel(sel.Channel)
	if ch == nil {
		return s, nil
	}
	steps, err := StepsTo(pkg, ch, sel.Bundle.Name)
	if err != nil {
		return s, fmt.Errorf("Subscription %s/%s: %w", sel.Subscription.Namespace, sel.Subscription.Name, err)
	}
	s.Steps = steps
	s.Held = heldStep(pkg, ch, s)
	return s, nil
}

// heldStep returns the step OLM proposes from the locked CSV when the contract does not admit
// it; "" when there is none. A channel OLM cannot order proposes nothing (OLM's resolution of it
// fails), so it holds nothing either.
func heldStep(pkg *catalog.Package, ch *catalog.Channel, s Subscription) string {
	next, err := resolver.NextStep(pkg, ch, s.Locked)
	if err != nil || next == s.Locked || slices.Contains(s.Steps, next) {
		return ""
	}
	return next
}

// StepsTo returns the bundles of a channel from which an upgrade path leads to the named one,
// ordered by version (then name): the CSVs OLM may install on its way up to it. None has a
// higher version than the named bundle.
func StepsTo(pkg *catalog.Package, ch *catalog.Channel, name string) ([]string, error) {
	type node struct {
		entry   catalog.ChannelEntry
		version *semver.Version
		rng     semver.Range
	}
	nodes := map[string]*node{}
	for _, e := range ch.Entries {
		n := &node{entry: e}
		if b := pkg.Bundle(e.Name); b != nil {
			v := b.Version
			n.version = &v
		}
		if e.SkipRange != "" {
			r, err := semver.ParseRange(e.SkipRange)
			if err != nil {
				return nil, fmt.Errorf("channel %s of package %s: entry %s: skipRange %q: %w", ch.Name, pkg.Name, e.Name, e.SkipRange, err)
			}
			n.rng = r
		}
		nodes[e.Name] = n
	}
	// upgrades reports whether y is an upgrade from x.
	upgrades := func(y, x *node) bool {
		switch {
		case y.entry.Replaces == x.entry.Name, slices.Contains(y.entry.Skips, x.entry.Name):
			return true
		case y.rng != nil && x.version != nil:
			return y.rng(*x.version)
		}
		return false
	}
	seen := map[string]bool{name: true}
	frontier := []string{name}
	for len(frontier) > 0 {
		y := nodes[frontier[0]]
		frontier = frontier[1:]
		if y == nil {
			continue
		}
		for xName, x := range nodes {
			if !seen[xName] && upgrades(y, x) {
				seen[xName] = true
				frontier = append(frontier, xName)
			}
		}
	}
	delete(seen, name)
	ceiling := nodes[name]
	out := make([]string, 0, len(seen))
	for n := range seen {
		// A step above the locked version would cross the ceiling, whatever the graph says.
		if v := nodes[n].version; ceiling != nil && ceiling.version != nil && v != nil && v.GT(*ceiling.version) {
			continue
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b string) int {
		va, vb := nodes[a].version, nodes[b].version
		if va != nil && vb != nil {
			if c := va.Compare(*vb); c != 0 {
				return c
			}
		}
		return cmp.Compare(a, b)
	})
	return out, nil
}

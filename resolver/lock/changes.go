package lock

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/olm-render/olm-render/schemas/inputs"
)

// Change is one difference between two locks: a Subscription's bundle, or (Catalog set) a
// CatalogSource's pinned index image.
type Change struct {
	Namespace, Subscription string
	// Catalog is "namespace/name" of a CatalogSource whose pin changed; From and To are then the
	// pins.
	Catalog string
	// From and To are the locked bundles; From is empty for an added Subscription, To for a
	// removed one.
	From, To string
	// FromDigest and ToDigest differ when the same bundle name changed content.
	FromDigest, ToDigest string
	// FromVersion and ToVersion are the bundles' versions; FromPackage and ToPackage their
	// packages.
	FromVersion, ToVersion string
	FromPackage, ToPackage string
}

// String describes the change, e.g. "ops/etcd: etcdoperator.v0.9.2 → etcdoperator.v0.9.4".
func (c Change) String() string {
	key := c.Namespace + "/" + c.Subscription
	if c.Catalog != "" {
		return fmt.Sprintf("CatalogSource %s: %s → %s", c.Catalog, orNone(c.From), orNone(c.To))
	}
	switch {
	case c.From == "":
		return fmt.Sprintf("%s: added %s", key, c.To)
	case c.To == "":
		return fmt.Sprintf("%s: removed %s", key, c.From)
	case c.From == c.To:
		return fmt.Sprintf("%s: %s changed content (%s → %s)", key, c.To, c.FromDigest, c.ToDigest)
	default:
		return fmt.Sprintf("%s: %s → %s", key, c.From, c.To)
	}
}

// Diff lists what changed from old to new, sorted by namespace and Subscription. A nil lock is
// empty.
func Diff(old, new *Lock) []Change {
	type pair struct{ old, new *Entry }
	all := map[[2]string]*pair{}
	add := func(l *Lock, isNew bool) {
		if l == nil {
			return
		}
		for _, ns := range l.Namespaces {
			for i := range ns.Subscriptions {
				k := [2]string{ns.Namespace, ns.Subscriptions[i].Subscription}
				if all[k] == nil {
					all[k] = &pair{}
				}
				if isNew {
					all[k].new = &ns.Subscriptions[i]
				} else {
					all[k].old = &ns.Subscriptions[i]
				}
			}
		}
	}
	add(old, false)
	add(new, true)
	var out []Change
	for k, p := range all {
		c := Change{Namespace: k[0], Subscription: k[1]}
		if p.old != nil {
			c.From, c.FromDigest, c.FromVersion, c.FromPackage = p.old.Bundle, p.old.Digest, p.old.Version, p.old.Package
		}
		if p.new != nil {
			c.To, c.ToDigest, c.ToVersion, c.ToPackage = p.new.Bundle, p.new.Digest, p.new.Version, p.new.Package
		}
		if c.From == c.To && (c.FromDigest == c.ToDigest || !sameDigestKind(p.old, p.new)) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Change) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Subscription, b.Subscription))
	})
	return append(catalogChanges(old, new), out...)
}

// sameDigestKind reports whether two entries' digests were computed over the same thing: a lock
// written by an older olm-render may digest by manifests a bundle now digested by its image.
func sameDigestKind(a, b *Entry) bool { return a == nil || b == nil || a.DigestOf == b.DigestOf }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Stale lists why the lock no longer matches the declared Subscriptions: a Subscription
// declared but not locked, locked but no longer declared, or whose spec changed. Generated
// (dependency) entries are not compared with declarations.
func Stale(l *Lock, set *inputs.Set) []string {
	var out []string
	declared := map[[2]string]bool{}
	for _, sub := range set.Subscriptions {
		k := [2]string{sub.Namespace, sub.Name}
		declared[k] = true
		e := l.Entry(sub.Namespace, sub.Name)
		switch {
		case e == nil:
			out = append(out, fmt.Sprintf("Subscription %s/%s is not in the lock", sub.Namespace, sub.Name))
		case e.Intent != IntentOf(sub):
			out = append(out, fmt.Sprintf("Subscription %s/%s changed since it was locked (%s)", sub.Namespace, sub.Name, intentChange(e.Intent, IntentOf(sub))))
		}
	}
	for _, ns := range l.Namespaces {
		for _, e := range ns.Subscriptions {
			if !e.Generated && !declared[[2]string{ns.Namespace, e.Subscription}] {
				out = append(out, fmt.Sprintf("Subscription %s/%s is locked but no longer declared", ns.Namespace, e.Subscription))
			}
		}
	}
	slices.Sort(out)
	return out
}

func intentChange(old, new Intent) string {
	var parts []string
	for _, f := range []struct{ name, a, b string }{
		{"package", old.Package, new.Package},
		{"channel", old.Channel, new.Channel},
		{"source", old.Source, new.Source},
		{"sourceNamespace", old.SourceNamespace, new.SourceNamespace},
		{"startingCSV", old.StartingCSV, new.StartingCSV},
		{"installPlanApproval", old.InstallPlanApproval, new.InstallPlanApproval},
	} {
		if f.a != f.b {
			parts = append(parts, fmt.Sprintf("spec.%s %q → %q", f.name, f.a, f.b))
		}
	}
	return strings.Join(parts, ", ")
}

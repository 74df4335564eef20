package lock

import (
	"fmt"

	"github.com/blang/semver/v4"
)

// Downgrade reports whether a change moves a Subscription to an older version of the same
// package. OLM v0 never takes such a step: its resolver only replaces an installed CSV by one
// that replaces, skips or skipRange-covers it.
func (c Change) Downgrade() bool {
	if c.Catalog != "" || c.From == "" || c.To == "" || c.FromPackage != c.ToPackage {
		return false
	}
	from, err1 := semver.ParseTolerant(c.FromVersion)
	to, err2 := semver.ParseTolerant(c.ToVersion)
	return err1 == nil && err2 == nil && to.LT(from)
}

// Downgrades returns the changes that are downgrades.
func Downgrades(cs []Change) []Change {
	var out []Change
	for _, c := range cs {
		if c.Downgrade() {
			out = append(out, c)
		}
	}
	return out
}

// DowngradeError refuses downgrades where OLM keeps running (render --olm=running): OLM would
// never install the older CSV, so the lock would promise what the cluster cannot reach.
type DowngradeError struct {
	// Changes are the downgrades, each naming its Subscription and both versions.
	Changes []Change
}

func (e *DowngradeError) Error() string {
	msg := ""
	for i, c := range e.Changes {
		if i > 0 {
			msg += "\n"
		}
		msg += fmt.Sprintf("Subscription %s/%s: the lock would move %s %s back to %s: OLM v0 never downgrades an installed CSV, so where it keeps running (--olm=running) it would stay at %s; "+
			"to go back, uninstall and reinstall: delete the Subscription and the CSV %s (its CRDs and custom resources stay), then subscribe again with startingCSV %s (docs/upgrades.md, \"Going back\")",
			c.Namespace, c.Subscription, c.FromPackage, c.FromVersion, c.ToVersion, c.FromVersion, c.From, c.To)
	}
	return msg
}

// RefuseDowngrades returns a DowngradeError for the downgrades among cs, or nil.
func RefuseDowngrades(cs []Change) error {
	if d := Downgrades(cs); len(d) > 0 {
		return &DowngradeError{Changes: d}
	}
	return nil
}

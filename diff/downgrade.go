package diff

import (
	"strings"

	"github.com/blang/semver/v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// csvVersion returns a CSV's spec.version, parsed tolerantly.
func csvVersion(u *unstructured.Unstructured) (semver.Version, bool) {
	if u == nil {
		return semver.Version{}, false
	}
	v, _, _ := unstructured.NestedString(u.Object, "spec", "version")
	ver, err := semver.ParseTolerant(v)
	return ver, err == nil && v != ""
}

// nameVersion reads the version in a CSV's name, as operators name their CSVs
// ("<package>.v<version>": kube-green.v0.7.1), for a CSV the render does not hold.
func nameVersion(name string) (semver.Version, bool) {
	for i := strings.Index(name, ".v"); i >= 0; {
		if v, err := semver.ParseTolerant(name[i+2:]); err == nil {
			return v, true
		}
		next := strings.Index(name[i+2:], ".v")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return semver.Version{}, false
}

// markDowngrades sets Downgrade on each upgrade whose new CSV has an older spec.version than
// the CSV it follows.
func markDowngrades(ups []Upgrade) {
	for i := range ups {
		u := &ups[i]
		from, okFrom := csvVersion(u.pair.before)
		to, okTo := csvVersion(u.pair.after)
		if u.From != u.To && okFrom && okTo && to.LT(from) {
			u.Downgrade = true
			u.FromVersion, u.ToVersion = from.String(), to.String()
		}
	}
}

// downgradeFindings returns the downgrade finding of an upgrade that goes back.
func downgradeFindings(u Upgrade) []Finding {
	if !u.Downgrade {
		return nil
	}
	return []Finding{{Gate: GateDowngrade, Operator: u.Operator(), Object: u.csvObject(),
		Message: "goes back from " + u.From + " (" + u.FromVersion + ") to " + u.To + " (" + u.ToVersion + ")"}}
}

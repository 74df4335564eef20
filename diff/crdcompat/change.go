package crdcompat

import (
	"cmp"
	"fmt"
	"slices"
)

// Change is one difference between two versions of a CRD, with whether it breaks stored objects.
type Change struct {
	// Rule is a short stable id of the rule that found the change, such as "type" or
	// "stored-version-removed"; the package documentation lists them all.
	Rule string
	// Version is the CRD version (spec.versions[].name) the change is in, "" for CRD-wide
	// changes.
	Version string
	// Path is the field path in the schema, such as "spec.replicas" or "spec.items[*].name";
	// "" for CRD-wide and version-wide changes, and for the schema root.
	Path string
	// Breaking is true when the change can break objects already stored.
	Breaking bool
	// Message describes the change, such as
	// `field spec.size: type changed from "integer" to "string"`.
	Message string
}

// Breaking returns only the breaking changes, in their original order, or nil when there are
// none.
func Breaking(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		if c.Breaking {
			out = append(out, c)
		}
	}
	return out
}

// sortChanges orders changes by Version, Path, Rule, Message, then breaking first.
func sortChanges(changes []Change) {
	slices.SortStableFunc(changes, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(a.Version, b.Version),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
			compareBool(b.Breaking, a.Breaking),
		)
	})
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

// fieldLabel names a schema path in messages and errors.
func fieldLabel(path string) string {
	if path == "" {
		return "schema root"
	}
	return "field " + path
}

// versionChange builds a version-wide change.
func versionChange(rule, version string, breaking bool, msg string) Change {
	return Change{
		Rule:     rule,
		Version:  version,
		Breaking: breaking,
		Message:  fmt.Sprintf("version %q: %s", version, msg),
	}
}

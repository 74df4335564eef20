package crdcompat

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Compare returns every change from old to new, sorted by Version, Path, Rule (then Message),
// so the result is deterministic. It fails, with an error naming the field, when either CRD is
// structurally broken.
func Compare(old, new *unstructured.Unstructured) ([]Change, error) {
	o, err := parseCRD(old)
	if err != nil {
		return nil, fmt.Errorf("old crd: %w", err)
	}
	n, err := parseCRD(new)
	if err != nil {
		return nil, fmt.Errorf("new crd: %w", err)
	}
	changes := crdWideChanges(o, n)
	schemaChanges, err := schemaChanges(o, n)
	if err != nil {
		return nil, err
	}
	changes = append(changes, schemaChanges...)
	sortChanges(changes)
	return changes, nil
}

// crdWideChanges applies the rules that look at the CRD as a whole, not at schemas.
func crdWideChanges(o, n *crdView) []Change {
	var changes []Change
	if o.scope != n.scope {
		changes = append(changes, Change{
			Rule:     "scope",
			Breaking: true,
			Message:  fmt.Sprintf("scope changed from %q to %q", o.scope, n.scope),
		})
	}
	changes = append(changes, storedVersionChanges(o, n)...)
	changes = append(changes, servedVersionChanges(o, n)...)
	return append(changes, otherVersionChanges(o, n)...)
}

// storedVersionChanges reports the versions objects may be stored in that new drops. A stored
// version old's own spec.versions lacks is not one new drops: the API server holds
// status.storedVersions within spec.versions, so only a hand-written CRD lists one.
func storedVersionChanges(o, n *crdView) []Change {
	var changes []Change
	defined, kept := setOf(o.names()), setOf(n.names())
	for _, name := range missingFrom(o.stored(), kept) {
		if !defined[name] {
			continue
		}
		changes = append(changes, versionChange("stored-version-removed", name, true, "stored version removed"))
	}
	return changes
}

// servedVersionChanges reports the versions old serves that new drops or stops serving.
func servedVersionChanges(o, n *crdView) []Change {
	var changes []Change
	newVersions := n.byName()
	for _, v := range o.versions {
		nv, ok := newVersions[v.name]
		switch {
		case !v.served:
		case !ok:
			changes = append(changes, versionChange("served-version-removed", v.name, true, "served version removed"))
		case !nv.served:
			changes = append(changes, versionChange("served-version-removed", v.name, true, "no longer served"))
		}
	}
	return changes
}

// otherVersionChanges reports added versions and removed ones neither served nor stored.
func otherVersionChanges(o, n *crdView) []Change {
	var changes []Change
	oldNames, newNames := setOf(o.names()), setOf(n.names())
	for _, name := range missingFrom(n.names(), oldNames) {
		changes = append(changes, versionChange("version-added", name, false, "version added"))
	}
	stored := setOf(o.stored())
	for _, v := range o.versions {
		if !newNames[v.name] && !v.served && !stored[v.name] {
			changes = append(changes, versionChange("version-removed", v.name, false, "version removed (neither served nor stored)"))
		}
	}
	return changes
}

// names returns the version names in declared order.
func (c *crdView) names() []string {
	out := make([]string, 0, len(c.versions))
	for _, v := range c.versions {
		out = append(out, v.name)
	}
	return out
}

// schemaChanges walks the schemas of every version present in both CRDs.
func schemaChanges(o, n *crdView) ([]Change, error) {
	oldVersions, newVersions := o.byName(), n.byName()
	var changes []Change
	for _, name := range sortedNames(o) {
		nv, ok := newVersions[name]
		if !ok {
			continue
		}
		w := &walker{version: name}
		if err := w.compareRoot(oldVersions[name].schema, nv.schema); err != nil {
			return nil, fmt.Errorf("version %q: %w", name, err)
		}
		changes = append(changes, w.changes...)
	}
	return changes, nil
}

// sortedNames returns the version names sorted.
func sortedNames(c *crdView) []string {
	names := c.names()
	slices.Sort(names)
	return names
}

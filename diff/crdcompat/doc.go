// Package crdcompat decides whether replacing a CustomResourceDefinition by a newer one is safe
// for the custom resources already stored in a cluster.
//
// The rules follow OLM v1's CRD upgrade-safety preflight
// (operator-framework/operator-controller,
// internal/operator-controller/rukpak/preflights/crdupgradesafety/: validator.go for the
// CRD-wide checks, checks.go and change_validator.go for the per-field checks, themselves taken
// from carvel kapp's crdupgradesafety validators; newer releases run the same checks through
// sigs.k8s.io/crdify, configured in crdupgradesafety.go). The package works on
// *unstructured.Unstructured CRDs, so it needs no apiextensions types, and it reports every
// difference it finds as a Change, with Breaking telling whether the difference can break
// stored objects.
//
// # CRD-wide rules
//
//   - "scope": spec.scope changed (Namespaced <-> Cluster; an unset scope is Namespaced, as the
//     API server defaults it for v1beta1). Breaking.
//   - "stored-version-removed": a version listed in old's status.storedVersions, or marked
//     storage: true in old (rendered CRDs carry no status), is missing from new. Breaking.
//   - "served-version-removed": a version served by old is missing from new, or is still
//     listed but no longer served. Breaking.
//   - "version-removed": a version neither served nor stored by old is missing from new.
//     Not breaking.
//   - "version-added": a version is new. Not breaking.
//
// These changes carry the version name in Change.Version (empty for "scope") and an empty Path.
//
// # Schema rules
//
// For every version present in both CRDs, the openAPIV3Schema of the two versions is walked
// together, through properties, items and additionalProperties (when it is a schema). At each
// schema node present on both sides:
//
//   - "type": type changed (including set or unset). Breaking.
//   - "required": a name added to required. Breaking. A name dropped from required is reported
//     as not breaking.
//   - "enum": an enum set where there was none, or values removed. Breaking. Values only added,
//     or the enum dropped, is not breaking.
//   - "maximum", "max-length", "max-items", "max-properties": the bound lowered or newly set.
//     Breaking. Raised or dropped is not breaking.
//   - "minimum", "min-length", "min-items", "min-properties": the bound raised or newly set.
//     Breaking. Lowered or dropped is not breaking.
//   - "default": the default added, removed or changed. Breaking, as OLM v1's Default check.
//   - "preserve-unknown-fields": x-kubernetes-preserve-unknown-fields going from true to false
//     (or unset). Breaking. The other way is not breaking.
//   - "unhandled": any other keyword changed (pattern, format, nullable, oneOf, CEL rules...).
//     Reported, not breaking: unlike OLM v1, which refuses unknown changes, this package only
//     judges the rules above. "description" changes are ignored, as in OLM v1.
//
// A schema node present in old and missing from new is "field-removed" (breaking); one present
// only in new is "field-added" (not breaking; a newly required field is also reported by
// "required" on its parent).
//
// A v1beta1 CRD with a top-level spec.validation.openAPIV3Schema uses that schema for every
// version that has none of its own, and a v1beta1 CRD with only spec.version has that single
// version, served and stored.
//
// # Paths
//
// Change.Path names a schema node from the root of openAPIV3Schema, which is the empty path.
// Object properties are joined with "." ("spec.replicas"); a property whose name is empty or
// holds '.', '[', ']' or '"' is written as a quoted Go string in brackets
// (`metadata["example.com/key"]`). Array items are "[*]" ("spec.items[*].name"), the schemas
// of a list-form items keyword are "[0]", "[1]"..., and an additionalProperties schema is
// "[key]" ("spec.labels[key]").
//
// # Errors
//
// Compare never panics on malformed input. A structurally broken CRD (spec.versions not a list,
// a version without a name, a properties keyword that is not a map, a bound that is not a
// number...) yields an error naming the field, as does a schema nested deeper than 64 levels.
//
// Output is sorted by Version, Path, Rule, then Message, so it is deterministic.
package crdcompat

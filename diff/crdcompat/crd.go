package crdcompat

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// crdKind is the kind every compared object must have, when it has one.
const crdKind = "CustomResourceDefinition"

// defaultScope is the scope the API server gives a v1beta1 CRD that sets none.
const defaultScope = "Namespaced"

// crdView is the part of a CRD the rules read.
type crdView struct {
	scope          string
	versions       []versionView // in declared order, names unique
	storedVersions []string      // status.storedVersions
}

// versionView is one entry of spec.versions (or the single v1beta1 spec.version).
type versionView struct {
	name    string
	served  bool
	storage bool
	schema  map[string]any // openAPIV3Schema, nil when there is none
}

// byName returns the versions keyed by name.
func (c *crdView) byName() map[string]versionView {
	out := make(map[string]versionView, len(c.versions))
	for _, v := range c.versions {
		out[v.name] = v
	}
	return out
}

// stored returns the names of the versions objects may be stored in: status.storedVersions
// plus every version marked storage: true.
func (c *crdView) stored() []string {
	out := append([]string(nil), c.storedVersions...)
	for _, v := range c.versions {
		if v.storage {
			out = append(out, v.name)
		}
	}
	return out
}

// parseCRD reads the fields the rules need, failing on structurally broken input.
func parseCRD(u *unstructured.Unstructured) (*crdView, error) {
	if u == nil || u.Object == nil {
		return nil, errors.New("crd is nil")
	}
	if err := checkKind(u.Object); err != nil {
		return nil, err
	}
	spec, err := mapField(u.Object, "spec", "spec")
	if err != nil {
		return nil, err
	}
	if spec == nil {
		return nil, errors.New("spec: missing")
	}
	return parseSpec(u.Object, spec)
}

// parseSpec reads scope, versions and status.storedVersions.
func parseSpec(obj, spec map[string]any) (*crdView, error) {
	scope, err := stringField(spec, "scope", "spec.scope")
	if err != nil {
		return nil, err
	}
	if scope == "" {
		scope = defaultScope
	}
	versions, err := parseVersions(spec)
	if err != nil {
		return nil, err
	}
	stored, err := parseStoredVersions(obj)
	if err != nil {
		return nil, err
	}
	return &crdView{scope: scope, versions: versions, storedVersions: stored}, nil
}

// checkKind rejects objects whose kind is set to something other than a CRD.
func checkKind(obj map[string]any) error {
	kind, err := stringField(obj, "kind", "kind")
	if err != nil {
		return err
	}
	if kind != "" && kind != crdKind {
		return fmt.Errorf("kind: %q is not a %s", kind, crdKind)
	}
	return nil
}

// parseStoredVersions reads status.storedVersions, absent in rendered CRDs.
func parseStoredVersions(obj map[string]any) ([]string, error) {
	status, err := mapField(obj, "status", "status")
	if err != nil || status == nil {
		return nil, err
	}
	return stringList(status, "storedVersions", "status.storedVersions")
}

// topLevelSchema returns the v1beta1 spec.validation.openAPIV3Schema, nil when absent.
func topLevelSchema(spec map[string]any) (map[string]any, error) {
	validation, err := mapField(spec, "validation", "spec.validation")
	if err != nil || validation == nil {
		return nil, err
	}
	return mapField(validation, "openAPIV3Schema", "spec.validation.openAPIV3Schema")
}

// parseVersions reads spec.versions, or the v1beta1 spec.version when the list is empty.
func parseVersions(spec map[string]any) ([]versionView, error) {
	fallback, err := topLevelSchema(spec)
	if err != nil {
		return nil, err
	}
	list, err := listField(spec, "versions", "spec.versions")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return legacyVersion(spec, fallback)
	}
	return parseVersionList(list, fallback)
}

// parseVersionList reads every entry of spec.versions, rejecting duplicate names.
func parseVersionList(list []any, fallback map[string]any) ([]versionView, error) {
	out := make([]versionView, 0, len(list))
	seen := map[string]bool{}
	for i, item := range list {
		field := fmt.Sprintf("spec.versions[%d]", i)
		v, err := parseVersion(item, field, fallback)
		if err != nil {
			return nil, err
		}
		if seen[v.name] {
			return nil, fmt.Errorf("%s.name: duplicate version %q", field, v.name)
		}
		seen[v.name] = true
		out = append(out, v)
	}
	return out, nil
}

// legacyVersion reads the single v1beta1 spec.version, served and stored.
func legacyVersion(spec map[string]any, schema map[string]any) ([]versionView, error) {
	name, err := stringField(spec, "version", "spec.version")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("spec.versions: missing or empty, and no spec.version")
	}
	return []versionView{{name: name, served: true, storage: true, schema: schema}}, nil
}

// parseVersion reads one spec.versions entry; fallback is the schema used when it has none.
func parseVersion(item any, field string, fallback map[string]any) (versionView, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return versionView{}, fmt.Errorf("%s: expected a map, got %T", field, item)
	}
	var v versionView
	var err error
	if v.name, err = stringField(m, "name", field+".name"); err != nil {
		return versionView{}, err
	}
	if v.name == "" {
		return versionView{}, fmt.Errorf("%s.name: missing", field)
	}
	if v.served, err = boolField(m, "served", field+".served"); err != nil {
		return versionView{}, err
	}
	if v.storage, err = boolField(m, "storage", field+".storage"); err != nil {
		return versionView{}, err
	}
	v.schema, err = versionSchema(m, field, fallback)
	return v, err
}

// versionSchema returns a version's schema.openAPIV3Schema, or fallback when it has none.
func versionSchema(m map[string]any, field string, fallback map[string]any) (map[string]any, error) {
	schema, err := mapField(m, "schema", field+".schema")
	if err != nil {
		return nil, err
	}
	if schema == nil {
		return fallback, nil
	}
	own, err := mapField(schema, "openAPIV3Schema", field+".schema.openAPIV3Schema")
	if err != nil {
		return nil, err
	}
	if own == nil {
		return fallback, nil
	}
	return own, nil
}

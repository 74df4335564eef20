package crdcompat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds how deep the schema walk goes before giving up with an error.
const maxDepth = 64

// walker collects the changes between the schemas of one CRD version.
type walker struct {
	version string
	changes []Change
}

// schemaPair is a schema node at path in the old and new schemas; nil means absent.
type schemaPair struct {
	path     string
	old, new map[string]any
}

// add records a change at path; the message is prefixed with the field's name.
func (w *walker) add(rule, path string, breaking bool, format string, args ...any) {
	w.changes = append(w.changes, Change{
		Rule:     rule,
		Version:  w.version,
		Path:     path,
		Breaking: breaking,
		Message:  fieldLabel(path) + ": " + fmt.Sprintf(format, args...),
	})
}

// compareRoot compares two openAPIV3Schema roots, either of which may be nil.
func (w *walker) compareRoot(old, new map[string]any) error {
	return w.comparePair(schemaPair{old: old, new: new}, 0)
}

// comparePair reports a removed or added node, or compares a node present on both sides.
func (w *walker) comparePair(p schemaPair, depth int) error {
	switch {
	case p.old == nil && p.new == nil:
	case p.new == nil:
		w.add("field-removed", p.path, true, "removed")
	case p.old == nil:
		w.add("field-added", p.path, false, "added")
	default:
		return w.compareNode(p, depth)
	}
	return nil
}

// compareNode applies the keyword rules to a node, then walks its children.
func (w *walker) compareNode(p schemaPair, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: schema nested deeper than %d levels", fieldLabel(p.path), maxDepth)
	}
	if err := w.compareKeywords(p); err != nil {
		return fmt.Errorf("%s: %w", fieldLabel(p.path), err)
	}
	children, err := childPairs(p)
	if err != nil {
		return fmt.Errorf("%s: %w", fieldLabel(p.path), err)
	}
	for _, c := range children {
		if err := w.comparePair(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// childrenFunc returns the child schemas of a node, keyed by their paths.
type childrenFunc func(schema map[string]any, path string) (map[string]map[string]any, error)

// childPairs pairs the properties, items and additionalProperties schemas of both sides.
func childPairs(p schemaPair) ([]schemaPair, error) {
	var out []schemaPair
	for _, children := range []childrenFunc{propertyChildren, itemChildren, additionalChildren} {
		oldChildren, err := children(p.old, p.path)
		if err != nil {
			return nil, err
		}
		newChildren, err := children(p.new, p.path)
		if err != nil {
			return nil, err
		}
		for _, path := range sortedKeys(oldChildren, newChildren) {
			out = append(out, schemaPair{path: path, old: oldChildren[path], new: newChildren[path]})
		}
	}
	return out, nil
}

// propertyChildren returns the properties schemas; a null property is an empty schema.
func propertyChildren(schema map[string]any, path string) (map[string]map[string]any, error) {
	props, err := mapField(schema, "properties", "properties")
	if err != nil {
		return nil, err
	}
	out := make(map[string]map[string]any, len(props))
	for _, name := range sortedKeys(props) {
		child, err := asSchema(props[name], joinProperty("properties", name))
		if err != nil {
			return nil, err
		}
		out[joinProperty(path, name)] = child
	}
	return out, nil
}

// itemChildren returns the items schema ("[*]"), or the list-form items schemas ("[i]").
func itemChildren(schema map[string]any, path string) (map[string]map[string]any, error) {
	v, ok := lookup(schema, "items")
	if !ok {
		return nil, nil
	}
	switch items := v.(type) {
	case map[string]any:
		return map[string]map[string]any{path + "[*]": items}, nil
	case []any:
		return listItemChildren(items, path)
	default:
		return nil, fmt.Errorf("items: expected a map or a list, got %T", v)
	}
}

// listItemChildren returns the schemas of a list-form items keyword.
func listItemChildren(items []any, path string) (map[string]map[string]any, error) {
	out := make(map[string]map[string]any, len(items))
	for i, item := range items {
		child, err := asSchema(item, fmt.Sprintf("items[%d]", i))
		if err != nil {
			return nil, err
		}
		out[fmt.Sprintf("%s[%d]", path, i)] = child
	}
	return out, nil
}

// additionalChildren returns the additionalProperties schema ("[key]"); a boolean has none.
func additionalChildren(schema map[string]any, path string) (map[string]map[string]any, error) {
	v, ok := lookup(schema, "additionalProperties")
	if !ok {
		return nil, nil
	}
	switch additional := v.(type) {
	case map[string]any:
		return map[string]map[string]any{path + "[key]": additional}, nil
	case bool:
		return nil, nil
	default:
		return nil, fmt.Errorf("additionalProperties: expected a map or a boolean, got %T", v)
	}
}

// asSchema returns v as a schema node; null is an empty schema.
func asSchema(v any, field string) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a map, got %T", field, v)
	}
	return m, nil
}

// joinProperty appends a property name to a path, quoting names that would be ambiguous.
func joinProperty(path, name string) string {
	if name == "" || strings.ContainsAny(name, `.[]"`) {
		return path + "[" + strconv.Quote(name) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// sortedKeys returns the keys of the given maps, each once, sorted.
func sortedKeys[V any](maps ...map[string]V) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

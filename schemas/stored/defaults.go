package stored

import (
	"k8s.io/apimachinery/pkg/runtime"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// The API server's defaulting of custom resources, written after apiextensions-apiserver's
// schema/defaulting package (algorithm.go, prunenulls.go), whose package also holds CEL
// validation and would bring the whole of k8s.io/apiserver into this module.

// nonNullableNull reports whether x is a null the schema s does not allow.
func nonNullableNull(x any, s *structuralschema.Structural) bool {
	return x == nil && s != nil && !s.Generic.Nullable
}

// fieldSchema is the schema of a field of an object with schema s: a property's, else the
// additional properties', else nil.
func fieldSchema(field string, s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[field]; ok {
		return &p
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Structural
	}
	return nil
}

// pruneNulls removes the nulls the schema does not allow and has no default for (those with a
// default are defaulted next).
func pruneNulls(x any, s *structuralschema.Structural) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			fs := fieldSchema(k, s)
			if nonNullableNull(v, fs) && fs.Default.Object == nil {
				delete(x, k)
				continue
			}
			pruneNulls(v, fs)
		}
	case []any:
		var items *structuralschema.Structural
		if s != nil {
			items = s.Items
		}
		for _, v := range x {
			pruneNulls(v, items)
		}
	}
}

// applyDefaults sets every missing field, and every null the schema does not allow, that has
// a default to a copy of the default, recursively.
func applyDefaults(x any, s *structuralschema.Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, p := range s.Properties {
			if p.Default.Object == nil {
				continue
			}
			if v, found := x[k]; !found || nonNullableNull(v, &p) {
				x[k] = runtime.DeepCopyJSONValue(p.Default.Object)
			}
		}
		for k := range x {
			if p, found := s.Properties[k]; found {
				applyDefaults(x[k], &p)
			} else if ap := s.AdditionalProperties; ap != nil {
				if nonNullableNull(x[k], ap.Structural) {
					x[k] = runtime.DeepCopyJSONValue(ap.Structural.Default.Object)
				}
				applyDefaults(x[k], ap.Structural)
			}
		}
	case []any:
		for i := range x {
			if nonNullableNull(x[i], s.Items) {
				x[i] = runtime.DeepCopyJSONValue(s.Items.Default.Object)
			}
			applyDefaults(x[i], s.Items)
		}
	}
}

package inputs

import (
	"errors"
	"reflect"
	"strings"

	kjson "sigs.k8s.io/json"

	"github.com/olm-render/olm-render/schemas/diag"
)

// UnknownField is a field of a document that its Go type does not have.
type UnknownField struct {
	// Path is the field's path, e.g. spec.installPlanAproval or spec.config.env[0].nmae.
	Path string
	// Suggestion is the path of the known field closest to it (spec.installPlanApproval), or "".
	Suggestion string
}

// UnknownFields decodes the JSON document data into into as the API server's strict field
// validation reads it (field names case-sensitive) and returns the fields into's type does not
// have, each with the known field it most likely meant. The error is a decoding error: a value of
// the wrong type, or data that is not JSON.
func UnknownFields(data []byte, into any) ([]UnknownField, error) {
	strictErrs, err := kjson.UnmarshalStrict(data, into)
	if err != nil {
		return nil, err
	}
	var out []UnknownField
	for _, se := range strictErrs {
		var fe kjson.FieldError
		if !errors.As(se, &fe) {
			continue
		}
		f := UnknownField{Path: fe.FieldPath()}
		if !strings.Contains(se.Error(), "duplicate field") {
			f.Suggestion = suggestField(reflect.TypeOf(into), f.Path)
		}
		out = append(out, f)
	}
	return out, nil
}

// suggestField suggests the field an unknown field path (spec.chanel) meant, from the JSON
// field names of the Go type at its parent path: "spec.channel", or "".
func suggestField(t reflect.Type, fieldPath string) string {
	parts := strings.Split(fieldPath, ".")
	for _, part := range parts[:len(parts)-1] {
		if t = fieldType(t, stripIndex(part)); t == nil {
			return ""
		}
	}
	best := diag.Closest(stripIndex(parts[len(parts)-1]), jsonFields(t))
	if best == "" {
		return ""
	}
	return strings.Join(append(parts[:len(parts)-1:len(parts)-1], best), ".")
}

// stripIndex drops a list index from a path element (containers[0] → containers).
func stripIndex(part string) string {
	name, _, _ := strings.Cut(part, "[")
	return name
}

// deref returns the element type of pointers, slices and maps.
func deref(t reflect.Type) reflect.Type {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
		t = t.Elem()
	}
	return t
}

// fieldType returns the type of the struct field with the JSON name, following embedded
// structs, or nil.
func fieldType(t reflect.Type, name string) reflect.Type {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == name:
			return f.Type
		case f.Anonymous && (tag == "" || tag == "-"):
			if ft := fieldType(f.Type, name); ft != nil {
				return ft
			}
		}
	}
	return nil
}

// jsonFields lists the JSON field names of a struct type, embedded structs included.
func jsonFields(t reflect.Type) []string {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && (tag == "" || tag == "-"):
			out = append(out, jsonFields(f.Type)...)
		case tag != "" && tag != "-":
			out = append(out, tag)
		}
	}
	return out
}

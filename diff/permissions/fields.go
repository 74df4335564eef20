package permissions

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MalformedError reports an RBAC object this package cannot interpret.
type MalformedError struct {
	// Object is "Kind/namespace/name", or "Kind/name" for a cluster-scoped kind.
	Object string
	// Field is the path of the offending field, such as "rules[0].verbs[1]" or "roleRef".
	Field string
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("malformed %s: %s: %s", e.Object, e.Field, e.Reason)
}

// objectID names u as "Kind/namespace/name", or "Kind/name" without a namespace.
func objectID(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return u.GetKind() + "/" + ns + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetName()
}

// fields reads the JSON-like values of one object, turning every surprise into a
// *MalformedError naming the object and the field.
type fields struct {
	id string
}

// fail returns a *MalformedError for field.
func (f fields) fail(field, format string, args ...any) error {
	return &MalformedError{Object: f.id, Field: field, Reason: fmt.Sprintf(format, args...)}
}

// list returns v as a list; null or absent is an empty list.
func (f fields) list(v any, field string) ([]any, error) {
	switch l := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return l, nil
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, nil
	}
	return nil, f.fail(field, "want a list, got %s", typeName(v))
}

// object returns v as an object; null or absent is nil.
func (f fields) object(v any, field string) (map[string]any, error) {
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, f.fail(field, "want an object, got %s", typeName(v))
}

// str returns v as a string; null or absent is "".
func (f fields) str(v any, field string) (string, error) {
	switch s := v.(type) {
	case nil:
		return "", nil
	case string:
		return s, nil
	}
	return "", f.fail(field, "want a string, got %s", typeName(v))
}

// required returns m[key] as a non-empty string.
func (f fields) required(m map[string]any, key, field string) (string, error) {
	s, err := f.str(m[key], field)
	if err == nil && s == "" {
		err = f.fail(field, "required")
	}
	return s, err
}

// strings returns m[key] as a list of strings; empty strings are refused unless allowEmpty.
func (f fields) strings(m map[string]any, key, field string, allowEmpty bool) ([]string, error) {
	l, err := f.list(m[key], field)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			return nil, f.fail(fmt.Sprintf("%s[%d]", field, i), "want a string, got %s", typeName(v))
		}
		if s == "" && !allowEmpty {
			return nil, f.fail(fmt.Sprintf("%s[%d]", field, i), "empty string")
		}
		out = append(out, s)
	}
	return out, nil
}

// typeName names the JSON type of v.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int32, int64, float32, float64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

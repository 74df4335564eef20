package diag

import (
	"reflect"
	"strings"
)

// Want names what a Go type decodes from, in the words of whoever writes the YAML or JSON:
// a list of strings, an object, a number. Messages say it instead of the Go type.
func Want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "a list of " + plural(Want(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return Want(t.Elem())
	case reflect.Interface:
		return "a value"
	}
	return "a number"
}

// plural turns "an object" into "objects", "a string" into "strings".
func plural(s string) string {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "an "), "a ")
	switch {
	case strings.HasPrefix(s, "list of "):
		return "lists of " + strings.TrimPrefix(s, "list of ")
	case s == "true or false":
		return "booleans"
	case s == "base64 string":
		return "base64 strings"
	case s == "value":
		return "values"
	}
	return s + "s"
}

// Got names the JSON value encoding/json reports having met (json.UnmarshalTypeError.Value:
// "object", "array", "number 1e999"...) as Want names what was expected.
func Got(v string) string {
	switch word, _, _ := strings.Cut(v, " "); word {
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	}
	return v
}

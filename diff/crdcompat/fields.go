package crdcompat

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// lookup returns m[key], treating a nil value as absent.
func lookup(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// mapField returns m[key] as a map; nil when absent, an error naming field when not a map.
func mapField(m map[string]any, key, field string) (map[string]any, error) {
	v, ok := lookup(m, key)
	if !ok {
		return nil, nil
	}
	out, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a map, got %T", field, v)
	}
	return out, nil
}

// listField returns m[key] as a list; nil when absent, an error naming field when not a list.
func listField(m map[string]any, key, field string) ([]any, error) {
	v, ok := lookup(m, key)
	if !ok {
		return nil, nil
	}
	out, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: expected a list, got %T", field, v)
	}
	return out, nil
}

// stringField returns m[key] as a string; "" when absent, an error naming field otherwise.
func stringField(m map[string]any, key, field string) (string, error) {
	v, ok := lookup(m, key)
	if !ok {
		return "", nil
	}
	out, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: expected a string, got %T", field, v)
	}
	return out, nil
}

// boolField returns m[key] as a bool; false when absent, an error naming field otherwise.
func boolField(m map[string]any, key, field string) (bool, error) {
	v, ok := lookup(m, key)
	if !ok {
		return false, nil
	}
	out, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: expected a boolean, got %T", field, v)
	}
	return out, nil
}

// stringList returns m[key] as a list of strings; an error naming field on any other type.
func stringList(m map[string]any, key, field string) ([]string, error) {
	list, err := listField(m, key, field)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: expected a string, got %T", field, i, item)
		}
		out = append(out, s)
	}
	return out, nil
}

// numberField returns m[key] as a float64; ok is false when absent, err set when not a number.
func numberField(m map[string]any, key string) (n float64, ok bool, err error) {
	v, present := lookup(m, key)
	if !present {
		return 0, false, nil
	}
	n, ok = toFloat(v)
	if !ok || math.IsNaN(n) {
		return 0, false, fmt.Errorf("%s: expected a number, got %T", key, v)
	}
	return n, true, nil
}

// toFloat converts the numeric types JSON and YAML decoders produce.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float32:
		return float64(n), true
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	default:
		return 0, false
	}
}

// canonical renders a value as JSON (object keys sorted), for comparisons and messages.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// setOf returns the members of list as a set.
func setOf(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, s := range list {
		set[s] = true
	}
	return set
}

// missingFrom returns the sorted members of list that are not in set, each once.
func missingFrom(list []string, set map[string]bool) []string {
	var out []string
	for _, s := range list {
		if !set[s] {
			out = append(out, s)
		}
	}
	return sortedUnique(out)
}

// sortedUnique sorts list in place and drops duplicates.
func sortedUnique(list []string) []string {
	slices.Sort(list)
	return slices.Compact(list)
}

package emit

import (
	"math"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// encode writes an object's content as YAML exactly as sigs.k8s.io/yaml.Marshal does (JSON,
// read back by go-yaml v2, written by it), without the JSON round trip when the content makes
// it one that changes nothing: go-yaml v2 then writes the same keys in the same order and the
// same scalars. Content the round trip would change (a string that is not UTF-8, a NaN, an
// integral float64, a value of another Go type) takes the round trip.
func encode(obj map[string]any) ([]byte, error) {
	if plainJSON(obj) {
		return yamlv2.Marshal(obj)
	}
	return yaml.Marshal(obj)
}

// plainJSON reports whether v holds only what encoding/json writes and go-yaml v2 reads back
// unchanged: maps with string keys, slices, UTF-8 strings, booleans, nil, int64 and finite
// float64s that are not integers.
func plainJSON(v any) bool {
	switch v := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return utf8.ValidString(v)
	case float64:
		// An integral float64 reads back from JSON as an integer: go-yaml v2 would write it
		// in exponent form (1.23456789e+08) where the round trip writes 123456789.
		return !math.IsNaN(v) && !math.IsInf(v, 0) && v != math.Trunc(v)
	case map[string]any:
		for k, e := range v {
			if !utf8.ValidString(k) || !plainJSON(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

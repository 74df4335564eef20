package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// encode writes an object's content as YAML as sigs.k8s.io/yaml.Marshal does (JSON, read back
// by go-yaml v2, written by it), without the JSON round trip when the content makes it one
// that changes nothing: go-yaml v2 then writes the same keys in the same order and the same
// scalars. Content the round trip would change (a string that is not UTF-8, a NaN, an integral
// float64, a value of another Go type) goes through JSON, read back by encoding/json rather
// than go-yaml v2: the same values, except where go-yaml v2's reader would refuse the JSON (a
// raw DEL or C1 control, a key longer than 1024 characters) or change it (a raw NEL read as a
// line break). encode writes those as go-yaml v2 writes them on both paths (escaped, or as a
// complex key), so that what it writes reads back as the object.
func encode(obj map[string]any) ([]byte, error) {
	if plainJSON(obj) {
		return yamlv2.Marshal(obj)
	}
	v, err := throughJSON(obj)
	if err != nil {
		return nil, err
	}
	return yamlv2.Marshal(v)
}

// throughJSON is obj as the JSON round trip leaves it, its numbers as go-yaml v2 reads them
// back from JSON (yamlNumber).
func throughJSON(obj map[string]any) (any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding as JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("reading back JSON: %w", err)
	}
	return yamlNumbers(v), nil
}

// yamlNumbers replaces each JSON number in v by the value go-yaml v2 resolves its text to: an
// integer where it fits int64 or uint64, else a float64 (resolve.go).
func yamlNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = yamlNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = yamlNumbers(e)
		}
	case json.Number:
		return yamlNumber(string(v))
	}
	return v
}

// yamlNumber is the value go-yaml v2 reads the JSON number text s as.
func yamlNumber(s string) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return u
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of float64's range: go-yaml v2 keeps the text as a string.
		return s
	}
	return f
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

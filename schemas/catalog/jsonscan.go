package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// A minimal JSON walker: it finds the fields of an object and the elements of an array and hands
// out their values as sub-slices, skipping nested values with a scan that only tracks strings and
// nesting. The big values of a catalog (olm.csv.metadata, olm.bundle.object) are never decoded
// this way, which is what makes loading an index fast; every value the model uses is decoded
// with encoding/json, strictly.

var errJSON = errors.New("invalid JSON")

// fields calls fn for each field of the object in data, in order, with the key unquoted.
func fields(data []byte, fn func(key string, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return fmt.Errorf("%w: want an object", errJSON)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return trailingJSON(data, i+1)
	}
	for {
		key, next, err := readKey(data, i)
		if err != nil {
			return err
		}
		start := skipSpace(data, next)
		end, err := skipValue(data, start)
		if err != nil {
			return err
		}
		if err := fn(key, data[start:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return trailingJSON(data, i+1)
		default:
			return fmt.Errorf("%w: want ',' or '}' after a field", errJSON)
		}
	}
}

// elements calls fn for each element of the array in data.
func elements(data []byte, fn func(i int, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return fmt.Errorf("%w: want an array", errJSON)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return trailingJSON(data, i+1)
	}
	for n := 0; ; n++ {
		end, err := skipValue(data, i)
		if err != nil {
			return err
		}
		if err := fn(n, data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == ']':
			return trailingJSON(data, i+1)
		default:
			return fmt.Errorf("%w: want ',' or ']' after an element", errJSON)
		}
	}
}

// readKey reads a field's key and the colon after it; it returns the index after the colon.
func readKey(data []byte, i int) (string, int, error) {
	if i >= len(data) || data[i] != '"' {
		return "", 0, fmt.Errorf("%w: want a field name", errJSON)
	}
	end, err := skipString(data, i)
	if err != nil {
		return "", 0, err
	}
	key := string(data[i+1 : end-1])
	if bytes.IndexByte(data[i:end], '\\') >= 0 {
		if err := json.Unmarshal(data[i:end], &key); err != nil {
			return "", 0, fmt.Errorf("%w: field name: %s", errJSON, err)
		}
	}
	j := skipSpace(data, end)
	if j >= len(data) || data[j] != ':' {
		return "", 0, fmt.Errorf("%w: want ':' after field name", errJSON)
	}
	return key, j + 1, nil
}

// skipValue returns the index just after the value starting at i.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, fmt.Errorf("%w: unexpected end", errJSON)
	}
	switch c := data[i]; c {
	case '"':
		return skipString(data, i)
	case '{', '[':
		return skipNested(data, i)
	default:
		return skipLiteral(data, i)
	}
}

// skipString returns the index after the string starting at i: the first quote not escaped by
// an odd number of backslashes (found with bytes.IndexByte, which is vectorised).
func skipString(data []byte, i int) (int, error) {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, fmt.Errorf("%w: unterminated string", errJSON)
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && data[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// structural marks the bytes skipNested stops at.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipNested returns the index after the object or array starting at i.
func skipNested(data []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(data); j++ {
		c := data[j]
		if !structural[c] {
			continue
		}
		switch c {
		case '"':
			end, err := skipString(data, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		default:
			if depth--; depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: unexpected end", errJSON)
}

// skipLiteral returns the index after a number, true, false or null, checking it.
func skipLiteral(data []byte, i int) (int, error) {
	j := i
	for j < len(data) && !isSpace(data[j]) && data[j] != ',' && data[j] != '}' && data[j] != ']' {
		j++
	}
	var v any
	if j == i || json.Unmarshal(data[i:j], &v) != nil {
		return 0, fmt.Errorf("%w: invalid value", errJSON)
	}
	return j, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

func trailingJSON(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return fmt.Errorf("%w: data after the value", errJSON)
	}
	return nil
}

// maxRepeatDepth bounds the nesting repeatedKey follows, as encoding/json bounds what it decodes.
const maxRepeatDepth = 10000

// errRepeated stops a walk at the first repeated key.
var errRepeated = errors.New("repeated key")

// repeatedKey returns the path (a.b[2].c) of the first key that appears twice in one object of
// the JSON value in data, or "". encoding/json, as opm decodes a catalog, keeps the last value of
// a repeated key; which one was meant is in doubt, so a catalog object must not repeat one.
func repeatedKey(data []byte) (string, error) {
	var path string
	err := repeatedKeyAt(data, "", 0, &path)
	if errors.Is(err, errRepeated) {
		return path, nil
	}
	return "", err
}

func repeatedKeyAt(data []byte, path string, depth int, found *string) error {
	i := skipSpace(data, 0)
	if i >= len(data) || (data[i] != '{' && data[i] != '[') {
		return nil
	}
	if depth >= maxRepeatDepth {
		return fmt.Errorf("%w: nested deeper than %d", errJSON, maxRepeatDepth)
	}
	if data[i] == '[' {
		return elements(data, func(n int, value []byte) error {
			return repeatedKeyAt(value, fmt.Sprintf("%s[%d]", path, n), depth+1, found)
		})
	}
	seen := map[string]bool{}
	return fields(data, func(key string, value []byte) error {
		p := key
		if path != "" {
			p = path + "." + key
		}
		if seen[key] {
			*found = p
			return errRepeated
		}
		seen[key] = true
		return repeatedKeyAt(value, p, depth+1, found)
	})
}

package catalog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/diag"
)

// decodeFBC splits a file of a file-based catalog into objects. The catalogs of real index images
// are tens of megabytes of olm.csv.metadata that resolution never reads, so objects are scanned
// once (jsonscan.go), their big values kept as raw bytes, and nothing is decoded into generic
// maps (opm's LoadFS decodes every object into a map and encodes it back); every value the model
// uses is decoded with encoding/json. The objects are a JSON stream or YAML documents; each one's
// schema, package and name are read, on every CPU.
func decodeFBC(file string, data []byte) ([]fbcObject, diag.Problems) {
	var (
		raws     [][]byte
		problems diag.Problems
	)
	if p, binary := notText(file, data); binary {
		return nil, diag.Problems{p}
	}
	if isJSONStream(data) {
		raws, problems = splitJSONStream(file, data)
	} else {
		raws, problems = splitYAMLDocuments(file, data)
	}
	objs := make([]fbcObject, len(raws))
	errs := make([]error, len(raws))
	parallel(len(raws), func(i int) {
		raw, err := toJSON(raws[i])
		if err == nil {
			objs[i], err = fbcMeta(raw)
		}
		switch {
		case err != nil:
		case objs[i].schema == SchemaBundle:
			objs[i].bundle, objs[i].bundleErr = decodeBundle(raw)
		default:
			err = noRepeatedKey("", raw)
		}
		objs[i].origin, errs[i] = diag.Origin{File: file, Index: i}, err
	})
	out := objs[:0]
	for i, err := range errs {
		if err != nil {
			problems.Add(blobProblem(objs[i], err))
			continue
		}
		out = append(out, objs[i])
	}
	return out, problems
}

// isJSONStream reports whether data starts, after white space, with a JSON object.
func isJSONStream(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// splitJSONStream cuts a stream of JSON values at the end of each top-level value; each
// object's syntax is checked when it is decoded.
func splitJSONStream(file string, data []byte) ([][]byte, diag.Problems) {
	var out [][]byte
	for i := skipSpace(data, 0); i < len(data); i = skipSpace(data, i) {
		if data[i] != '{' && data[i] != '[' {
			return out, problemAt(file, len(out), "invalid catalog object: unexpected %q outside an object", data[i])
		}
		end, err := skipNested(data, i)
		if err != nil {
			return out, problemAt(file, len(out), "invalid catalog object: %s", err)
		}
		out = append(out, data[i:end])
		i = end
	}
	return out, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func problemAt(file string, index int, format string, args ...any) diag.Problems {
	return diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: file, Index: index}, Message: fmt.Sprintf(format, args...)}}
}

// splitYAMLDocuments cuts a YAML stream into documents, as opm's YAML reader does.
func splitYAMLDocuments(file string, data []byte) ([][]byte, diag.Problems) {
	var out [][]byte
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, problemAt(file, len(out), "invalid catalog object: %s", diag.Decoding(err))
		}
		if len(doc) == 0 {
			continue
		}
		out = append(out, doc)
	}
}

// noRepeatedKey refuses a JSON value, at the path prefix of its blob, with a key repeated
// within one object (repeatedKey).
func noRepeatedKey(prefix string, raw []byte) error {
	path, err := repeatedKey(raw)
	switch {
	case err != nil:
		return &fieldError{field: prefix, msg: fmt.Sprintf("invalid catalog object: %s", err)}
	case path != "":
		return &fieldError{field: joinField(prefix, path), msg: "repeated key: keep one (the value read would be the last one, which may not be the one meant)"}
	}
	return nil
}

// toJSON converts a YAML document to JSON; JSON passes through.
func toJSON(raw []byte) ([]byte, error) {
	if isJSONStream(raw) {
		return raw, nil
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid catalog object: %s", diag.Decoding(err))
	}
	return js, nil
}

// fbcMeta reads the schema, package and name keys of an object, case-insensitively, as opm's
// Meta does, without decoding the other values.
func fbcMeta(raw []byte) (fbcObject, error) {
	o := fbcObject{raw: raw}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		o.raw = nil
		return o, fmt.Errorf("object '' is missing root schema field (is this a stray non-catalog file? list it in .indexignore)")
	}
	if !isJSONStream(raw) {
		return o, fmt.Errorf("not a JSON object (is this a stray non-catalog file? list it in .indexignore)")
	}
	seen := map[string]string{}
	err := fields(raw, func(key string, value []byte) error {
		lk := strings.ToLower(key)
		if lk != "schema" && lk != "package" && lk != "name" {
			return nil
		}
		return o.setMeta(lk, key, value, seen)
	})
	switch {
	case errors.Is(err, errJSON):
		return o, fmt.Errorf("invalid catalog object: %s", err)
	case err != nil:
		return o, err
	case o.schema == "":
		return o, fmt.Errorf("object is missing root schema field (is this a stray non-catalog file? list it in .indexignore)")
	}
	return o, nil
}

// setMeta reads one of the meta keys.
func (o *fbcObject) setMeta(lk, key string, value []byte, seen map[string]string) error {
	if other, dup := seen[lk]; dup {
		return fmt.Errorf("duplicate keys for key %q: [%s %s]", lk, min(key, other), max(key, other))
	}
	seen[lk] = key
	var s string
	if err := json.Unmarshal(value, &s); err != nil {
		return fmt.Errorf("%s must be a string", key)
	}
	switch lk {
	case "schema":
		o.schema = s
	case "package":
		o.pkg = s
	default:
		o.name = s
	}
	return nil
}

// decodeBundle decodes an olm.bundle object, keeping each property value as the raw bytes of the
// object (not copied, not decoded): field names match case-insensitively, as encoding/json
// matches opm's Bundle fields.
func decodeBundle(raw []byte) (fbcBundle, error) {
	var v fbcBundle
	seen := map[string]bool{}
	err := fields(raw, func(key string, value []byte) error {
		if seen[key] {
			return &fieldError{field: key, msg: "repeated key: keep one"}
		}
		seen[key] = true
		switch strings.ToLower(key) {
		case "package":
			return decodeBlob(key, value, &v.Package)
		case "name":
			return decodeBlob(key, value, &v.Name)
		case "image":
			return decodeBlob(key, value, &v.Image)
		case "relatedimages":
			return decodeBlob(key, value, &v.RelatedImages)
		case "properties":
			return decodeProperties(key, value, &v.Properties)
		}
		return nil
	})
	if errors.Is(err, errJSON) {
		err = &fieldError{msg: fmt.Sprintf("invalid catalog object: %s", err)}
	}
	return v, err
}

// decodeProperties decodes a properties array, the value of field: each type decoded, each
// value kept raw.
func decodeProperties(field string, data []byte, out *[]Property) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	if t := skipSpace(data, 0); t < len(data) && data[t] != '[' {
		return &fieldError{field: field, msg: fmt.Sprintf("want a list of properties {type, value}, got %s", jsonKind(data[t]))}
	}
	return elements(data, func(i int, elem []byte) error {
		var p Property
		at := fmt.Sprintf("%s[%d]", field, i)
		seen := map[string]bool{}
		err := fields(elem, func(key string, value []byte) error {
			if seen[key] {
				return &fieldError{field: at + "." + key, msg: "repeated key: keep one"}
			}
			seen[key] = true
			switch strings.ToLower(key) {
			case "type":
				return decodeBlob(at+"."+key, value, &p.Type)
			case "value":
				p.Value = value
			}
			return nil
		})
		if err == nil && !bigProperty(p.Type) {
			err = noRepeatedKey(at+".value", p.Value)
		}
		if err != nil {
			return err
		}
		*out = append(*out, p)
		return nil
	})
}

package catalog

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/olm-render/olm-render/schemas/diag"
)

// blobName names a blob of a file-based catalog in messages by its schema, package and name:
// olm.package demo, olm.channel demo/stable, olm.bundle demo/demo.v1.
func blobName(schema, pkg, name string) string {
	switch {
	case schema == "":
		return ""
	case schema == SchemaPackage:
		return schema + " " + cmp.Or(name, pkg)
	case pkg == "" || name == "":
		return schema + " " + pkg + name
	}
	return schema + " " + pkg + "/" + name
}

// fieldError is a value of a catalog blob that is not what its schema wants: the field's path in
// the blob (entries[1].name) and what is wrong, in catalog terms.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

// blobProblem is an error decoding the blob o, naming the blob and the field.
func blobProblem(o fbcObject, err error) diag.Problem {
	p := diag.Problem{Severity: diag.Error, Origin: o.origin, Object: blobName(o.schema, o.pkg, o.name), Message: err.Error()}
	var fe *fieldError
	if errors.As(err, &fe) {
		p.Field, p.Message = fe.field, fe.msg
	}
	return p
}

// decodeBlob decodes data, the value at the path prefix of a blob ("" for the blob itself),
// into v with encoding/json, as opm does; an error names the field and what was expected.
func decodeBlob(prefix string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := joinField(prefix, pathAt(data, int(typeErr.Offset)-1))
		return &fieldError{field: field, msg: fmt.Sprintf("want %s, got %s", diag.Want(typeErr.Type), diag.Got(typeErr.Value))}
	case errors.As(err, &syntaxErr):
		return &fieldError{field: prefix, msg: fmt.Sprintf("not valid JSON (at byte %d)", syntaxErr.Offset)}
	}
	return &fieldError{field: prefix, msg: diag.Decoding(err)}
}

// joinField joins two field paths: a.b and c give a.b.c; a and [0].c give a[0].c.
func joinField(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || strings.HasPrefix(b, "["):
		return a + b
	}
	return a + "." + b
}

// pathAt returns the path (a.b[2].c) of the deepest value of the JSON value in data that holds
// the byte at off, or "" when it is data itself.
func pathAt(data []byte, off int) string {
	path := ""
	for depth := 0; depth < maxRepeatDepth; depth++ {
		i := skipSpace(data, 0)
		if off < 0 || i >= len(data) || (data[i] != '{' && data[i] != '[') {
			return path
		}
		var next []byte
		var step string
		holds := func(value []byte) bool {
			start := cap(data) - cap(value)
			if off >= start && off < start+len(value) {
				next, off = value, off-start
				return true
			}
			return false
		}
		if data[i] == '[' {
			_ = elements(data, func(n int, value []byte) error {
				if holds(value) {
					step = fmt.Sprintf("[%d]", n)
				}
				return nil
			})
		} else {
			_ = fields(data, func(key string, value []byte) error {
				if holds(value) {
					step = key
				}
				return nil
			})
		}
		if next == nil {
			return path
		}
		path, data = joinField(path, step), next
	}
	return path
}

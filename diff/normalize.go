package diff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/ssa"
	"github.com/fluxcd/pkg/ssa/normalize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// prepare returns normalised copies of before and after (either may be nil): ssa normalisation,
// ignored fields removed, Secret values masked.
func prepare(before, after *unstructured.Unstructured, ignore []fieldPath) (*unstructured.Unstructured, *unstructured.Unstructured, error) {
	b, err := normalised(before, ignore)
	if err != nil {
		return nil, nil, err
	}
	a, err := normalised(after, ignore)
	if err != nil {
		return nil, nil, err
	}
	if isSecret(before) || isSecret(after) {
		if err := ssa.SanitizeUnstructuredData(b, a); err != nil {
			return nil, nil, fmt.Errorf("masking Secret values: %w", err)
		}
	}
	return b, a, nil
}

func normalised(u *unstructured.Unstructured, ignore []fieldPath) (*unstructured.Unstructured, error) {
	if u == nil {
		return nil, nil
	}
	c := u.DeepCopy()
	if err := normalize.Unstructured(c); err != nil {
		return nil, fmt.Errorf("normalising %s: %w", KeyOf(u), err)
	}
	if ts, ok, _ := unstructured.NestedFieldNoCopy(c.Object, "metadata", "creationTimestamp"); ok && ts == nil {
		unstructured.RemoveNestedField(c.Object, "metadata", "creationTimestamp")
	}
	for _, p := range ignore {
		p.remove(c.Object)
	}
	return c, nil
}

func isSecret(u *unstructured.Unstructured) bool {
	return u != nil && u.GetKind() == "Secret" && u.GroupVersionKind().Group == ""
}

// fieldPath is a parsed --ignore-field value.
type fieldPath []string

// parseFieldPath accepts a JSON Pointer ("/metadata/labels/olm.deployment-spec-hash", with ~1
// for "/" and ~0 for "~") or a dotted path whose segments may be bracketed to hold dots
// (`metadata.labels["olm.deployment-spec-hash"]`). List indexes are numbers.
func parseFieldPath(s string) (fieldPath, error) {
	if s == "" {
		return nil, fmt.Errorf("empty field path")
	}
	if strings.HasPrefix(s, "/") {
		parts := strings.Split(s[1:], "/")
		for i, p := range parts {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		}
		return parts, nil
	}
	var out fieldPath
	for rest := s; rest != ""; {
		switch {
		case strings.HasPrefix(rest, "["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return nil, fmt.Errorf("field path %q: unclosed [", s)
			}
			seg := rest[1:end]
			if uq, err := strconv.Unquote(seg); err == nil {
				seg = uq
			}
			out = append(out, seg)
			rest = strings.TrimPrefix(rest[end+1:], ".")
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("field path %q: empty segment", s)
			}
			out = append(out, rest[:end])
			rest = strings.TrimPrefix(rest[end:], ".")
		}
	}
	return out, nil
}

// remove deletes the field from obj; a missing path is not an error.
func (p fieldPath) remove(obj any) {
	if len(p) == 0 {
		return
	}
	switch node := obj.(type) {
	case map[string]any:
		if len(p) == 1 {
			delete(node, p[0])
			return
		}
		if child, ok := node[p[0]]; ok {
			p[1:].remove(child)
		}
	case []any:
		i, err := strconv.Atoi(p[0])
		if err != nil {
			if p[0] == "*" {
				for _, child := range node {
					p[1:].remove(child)
				}
			}
			return
		}
		if i >= 0 && i < len(node) && len(p) > 1 {
			p[1:].remove(node[i])
		}
	}
}

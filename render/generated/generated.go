// Package generated marks the values of a prediction (render.TargetRunning) that OLM generates
// in the cluster, where it keeps running: the key pair and CA of a webhook's or APIService's
// serving certificate, the caBundle fields, the olmcahash annotation and the Deployment spec
// hash that covers it, and the random suffix of a name created with generateName.
//
// # Marking
//
// A predicted object holding such values carries the annotation Annotation, listing the fields
// as JSON Pointers (RFC 6901) separated by ", ", sorted:
//
//	olm-render.dev/generated-by-olm: /data, /metadata/annotations/olmcahash
//
// A listed field the object must hold to be read as OLM writes it (a name, a label, an
// annotation) holds Placeholder ("olm-generated", never a value OLM generates: its hashes are
// hexadecimal or base62, without a dash, and a random name suffix has no vowels); any other
// listed field (a Secret's data, a caBundle) is left out. No key material is ever in a
// prediction.
//
// A name OLM leaves to the API server (metadata.generateName) is the generateName followed by
// Placeholder, so that the object has a stable name and file: a webhook configuration OLM
// creates with generateName "vsleepinfo.kb.io-" is predicted as
// "vsleepinfo.kb.io-olm-generated", with /metadata/name listed.
package generated

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The marks.
const (
	// Annotation lists, on a predicted object, the fields whose values OLM generates in the
	// cluster, as JSON Pointers separated by ", ".
	Annotation = "olm-render.dev/generated-by-olm"
	// Placeholder stands for a value OLM generates in a field the object holds.
	Placeholder = "olm-generated"
)

// Pointer builds the JSON Pointer of a field from its keys (list indices as decimal strings),
// escaping "~" and "/" in each.
func Pointer(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("/")
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(k))
	}
	return b.String()
}

// Mark adds fields (JSON Pointers) to the generated fields an object lists.
func Mark(obj metav1.Object, pointers ...string) {
	fields := Fields(obj.GetAnnotations())
	for _, p := range pointers {
		if !slices.Contains(fields, p) {
			fields = append(fields, p)
		}
	}
	slices.Sort(fields)
	annotations := obj.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[Annotation] = strings.Join(fields, ", ")
	obj.SetAnnotations(annotations)
}

// Fields returns the generated fields listed in an object's annotations, in order.
func Fields(annotations map[string]string) []string {
	v := annotations[Annotation]
	if v == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Name is the name a prediction gives an object OLM creates with generateName.
func Name(generateName string) string { return generateName + Placeholder }

// Strip returns a copy of a predicted object without its generated fields and without the
// annotation listing them: the fields OLM decides alone. A generated name is removed too (the
// object keeps its generateName).
func Strip(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	o := u.DeepCopy()
	for _, p := range Fields(u.GetAnnotations()) {
		keys, err := parse(p)
		if err != nil {
			return nil, fmt.Errorf("%s %s: annotation %s: %w", u.GetKind(), u.GetName(), Annotation, err)
		}
		remove(o.Object, keys)
	}
	dropAnnotation(o)
	return o, nil
}

// Fill returns a copy of a predicted object whose generated fields hold the values of from,
// the object OLM created, and without the annotation listing them; missing lists the
// generated fields from lacks (a value the prediction says OLM writes, and OLM did not).
func Fill(u, from *unstructured.Unstructured) (filled *unstructured.Unstructured, missing []string, err error) {
	o := u.DeepCopy()
	for _, p := range Fields(u.GetAnnotations()) {
		keys, err := parse(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: annotation %s: %w", u.GetKind(), u.GetName(), Annotation, err)
		}
		v, ok := get(from.Object, keys)
		if !ok {
			missing = append(missing, p)
			remove(o.Object, keys)
			continue
		}
		set(o.Object, keys, runtime.DeepCopyJSONValue(v))
	}
	dropAnnotation(o)
	return o, missing, nil
}

// dropAnnotation removes Annotation, and the annotations when none is left.
func dropAnnotation(o *unstructured.Unstructured) {
	annotations := o.GetAnnotations()
	delete(annotations, Annotation)
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
		return
	}
	o.SetAnnotations(annotations)
}

// parse splits a JSON Pointer into its unescaped keys.
func parse(pointer string) ([]string, error) {
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer: it must start with /", pointer)
	}
	keys := strings.Split(pointer[1:], "/")
	for i, k := range keys {
		keys[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
	}
	return keys, nil
}

// get returns the value at keys, following maps by key and lists by index.
func get(v any, keys []string) (any, bool) {
	for _, k := range keys {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// set sets the value at keys, creating the maps on the way; a list element must exist.
func set(obj map[string]any, keys []string, value any) {
	var v any = obj
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := v.(type) {
		case map[string]any:
			if last {
				c[k] = value
				return
			}
			if _, ok := c[k]; !ok {
				c[k] = map[string]any{}
			}
			v = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(c) {
				return
			}
			if last {
				c[n] = value
				return
			}
			v = c[n]
		default:
			return
		}
	}
}

// remove deletes the map entry at keys; a list element is never deleted (it is not a field).
func remove(obj map[string]any, keys []string) {
	parent, ok := get(obj, keys[:len(keys)-1])
	if m, isMap := parent.(map[string]any); ok && isMap {
		delete(m, keys[len(keys)-1])
	}
}

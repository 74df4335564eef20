package verify

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/generated"
)

// knownSelector is the documented difference between a predicted webhook configuration and
// the one OLM creates (docs/olm-differences.md).
const knownSelector = "OLM selects a webhook's namespaces by the OperatorGroup's olm.operatorgroup.uid/<uid> label, a UID a render cannot know"

// comparable returns the predicted object as it can be compared with what OLM created: without
// the prediction's marks and without the fields OLM generates in the cluster, which the
// prediction lists (package generated: a Secret's data, caBundles, the olmcahash annotations,
// the spec hash of a Deployment that mounts a certificate, a generated name, which object then
// finds), and the documented differences left out of it ("" for none).
func comparable(predicted *unstructured.Unstructured) (*unstructured.Unstructured, string, error) {
	o, err := generated.Strip(predicted)
	if err != nil {
		return nil, "", err
	}
	annotations := o.GetAnnotations()
	delete(annotations, render.LocalConfigAnnotation)
	delete(annotations, render.PredictionAnnotation)
	o.SetAnnotations(annotations)
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
	}
	var known []string
	if isWebhookConfiguration(o) {
		webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		for _, w := range webhooks {
			if m, ok := w.(map[string]any); ok {
				if _, ok := m["namespaceSelector"]; ok {
					delete(m, "namespaceSelector")
					known = appendOnce(known, knownSelector)
				}
			}
		}
		_ = unstructured.SetNestedSlice(o.Object, webhooks, "webhooks")
	}
	return o, strings.Join(known, "; "), nil
}

// appendOnce appends s unless list holds it.
func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// changedPaths returns the paths where two objects differ, in order.
func changedPaths(a, b any, path string) []string {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var out []string
		for _, k := range slices.Sorted(mapsKeys(keys)) {
			out = append(out, changedPaths(am[k], bm[k], join(path, k))...)
		}
		return out
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		var out []string
		for i := range as {
			out = append(out, changedPaths(as[i], bs[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return []string{cmpOr(path, "(object)")}
}

// join joins a field path and a key, quoting keys that hold dots or slashes.
func join(path, key string) string {
	if strings.ContainsAny(key, "./") {
		key = fmt.Sprintf("[%q]", key)
		return path + key
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

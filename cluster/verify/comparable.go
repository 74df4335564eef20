package verify

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
)

// The documented differences between a prediction and what OLM creates (docs/olm-differences.md).
const (
	knownCertificates = "OLM issues its own serving certificates where it runs: it creates no certificate provider objects"
	knownCA           = "OLM injects its own CA (caBundle, the olmcahash in the Deployment's spec hash), not the certificate provider's"
	knownSelector     = "OLM selects a webhook's namespaces by the OperatorGroup's olm.operatorgroup.uid/<uid> label, a UID a render cannot know"
)

// providerAnnotations are the annotations through which the render's certificate providers
// inject a CA or issue a certificate.
var providerAnnotations = []string{
	"cert-manager.io/inject-ca-from",
	"service.beta.openshift.io/inject-cabundle",
	"service.beta.openshift.io/serving-cert-secret-name",
}

// comparable returns the predicted object as it can be compared with what OLM created, and the
// documented differences left out of it ("" for none); nil when the object is not comparable
// at all (the certificate provider's own objects).
func comparable(predicted *unstructured.Unstructured) (*unstructured.Unstructured, string) {
	switch predicted.GroupVersionKind().Group {
	case "cert-manager.io":
		return nil, knownCertificates
	}
	o := predicted.DeepCopy()
	var known []string
	annotations := o.GetAnnotations()
	delete(annotations, render.LocalConfigAnnotation)
	delete(annotations, render.PredictionAnnotation)
	for _, a := range providerAnnotations {
		if _, ok := annotations[a]; ok {
			delete(annotations, a)
			known = appendOnce(known, knownCA)
		}
	}
	o.SetAnnotations(annotations)
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
	}
	switch {
	case isWebhookConfiguration(o):
		webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		for _, w := range webhooks {
			if m, ok := w.(map[string]any); ok {
				if _, ok := m["namespaceSelector"]; ok {
					delete(m, "namespaceSelector")
					known = appendOnce(known, knownSelector)
				}
				unstructured.RemoveNestedField(m, "clientConfig", "caBundle")
			}
		}
		_ = unstructured.SetNestedSlice(o.Object, webhooks, "webhooks")
	case o.GetKind() == "Deployment" && mountsServiceCert(o):
		labels := o.GetLabels()
		delete(labels, "olm.deployment-spec-hash")
		o.SetLabels(labels)
		known = appendOnce(known, knownCA)
	}
	return o, strings.Join(known, "; ")
}

// mountsServiceCert reports whether a Deployment mounts the serving certificate of a webhook or
// APIService (OLM's <service>-cert volume, install/certresources.go).
func mountsServiceCert(o *unstructured.Unstructured) bool {
	volumes, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "volumes")
	for _, v := range volumes {
		if m, ok := v.(map[string]any); ok {
			if n, _ := m["name"].(string); n == "apiservice-cert" || n == "webhook-cert" {
				return true
			}
		}
	}
	return false
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

package generated

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMark: fields are listed once, sorted, with the object's other annotations kept.
func TestMark(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}}
	Mark(s, Pointer("metadata", "annotations", "olmcahash"), Pointer("data"))
	Mark(s, Pointer("data"))
	if got, want := s.Annotations[Annotation], "/data, /metadata/annotations/olmcahash"; got != want {
		t.Errorf("annotation %q, want %q", got, want)
	}
	if s.Annotations["a"] != "b" {
		t.Error("another annotation dropped")
	}
	if got := Fields(s.Annotations); !slices.Equal(got, []string{"/data", "/metadata/annotations/olmcahash"}) {
		t.Errorf("Fields = %q", got)
	}
}

func TestPointer(t *testing.T) {
	if got, want := Pointer("metadata", "labels", "a/b~c"), "/metadata/labels/a~1b~0c"; got != want {
		t.Errorf("Pointer = %q, want %q", got, want)
	}
	keys, err := parse("/metadata/labels/a~1b~0c")
	if err != nil || !slices.Equal(keys, []string{"metadata", "labels", "a/b~c"}) {
		t.Errorf("parse = %q, %v", keys, err)
	}
	if _, err := parse("metadata"); err == nil {
		t.Error("a pointer without its leading slash parsed")
	}
}

// predicted is a webhook configuration as the prediction holds it.
func predicted() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{
			"name": Name("v.example.com-"), "generateName": "v.example.com-",
			"annotations": map[string]any{Annotation: "/metadata/name, /webhooks/0/clientConfig/caBundle"},
		},
		"webhooks": []any{map[string]any{"name": "v.example.com", "clientConfig": map[string]any{"service": map[string]any{"name": "svc"}}}},
	}}
}

// TestStrip: the generated fields and the annotation listing them are gone, nothing else.
func TestStrip(t *testing.T) {
	got, err := Strip(predicted())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"generateName": "v.example.com-"},
		"webhooks": []any{map[string]any{"name": "v.example.com", "clientConfig": map[string]any{"service": map[string]any{"name": "svc"}}}},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("Strip (-want +got):\n%s", d)
	}
	bad := predicted()
	bad.SetAnnotations(map[string]string{Annotation: "metadata.name"})
	if _, err := Strip(bad); err == nil {
		t.Error("a field that is not a JSON Pointer was accepted")
	}
}

// TestFill: the generated fields take the values of OLM's object; those it lacks are named.
func TestFill(t *testing.T) {
	olm := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "v.example.com-x7k2p"},
		"webhooks": []any{map[string]any{"clientConfig": map[string]any{}}},
	}}
	got, missing, err := Fill(predicted(), olm)
	if err != nil {
		t.Fatal(err)
	}
	if got.GetName() != "v.example.com-x7k2p" {
		t.Errorf("name %q, want OLM's", got.GetName())
	}
	if !slices.Equal(missing, []string{"/webhooks/0/clientConfig/caBundle"}) {
		t.Errorf("missing %q", missing)
	}
	if _, ok := got.GetAnnotations()[Annotation]; ok {
		t.Error("the annotation is kept")
	}
	olm.Object["webhooks"] = []any{map[string]any{"clientConfig": map[string]any{"caBundle": "Q0E="}}}
	got, missing, err = Fill(predicted(), olm)
	if err != nil || len(missing) > 0 {
		t.Fatalf("missing %q, %v", missing, err)
	}
	if ca, _, _ := unstructured.NestedString(got.Object["webhooks"].([]any)[0].(map[string]any), "clientConfig", "caBundle"); ca != "Q0E=" {
		t.Errorf("caBundle %q, want OLM's", ca)
	}
}

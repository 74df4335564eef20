package oracle

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// obj decodes a JSON object.
func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWholeNormalise checks that normalise removes exactly what it documents.
func TestWholeNormalise(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"metadata and status", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","uid":"u","resourceVersion":"7",
			"generation":2,"creationTimestamp":"2020-01-01T00:00:00Z","managedFields":[{}],"selfLink":"/x","labels":{"a":"b"},
			"ownerReferences":[{"kind":"ClusterServiceVersion","name":"c","uid":"u2"}]},
			"spec":{"replicas":1,"template":{"metadata":{"annotations":{"olmcahash":"h","keep":"k"}}}},"status":{"replicas":1}}`,
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"},
			"ownerReferences":[{"kind":"ClusterServiceVersion","name":"c"}]},
			"spec":{"replicas":1,"template":{"metadata":{"annotations":{"keep":"k"}}}}}`},
		{"cert secret", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","annotations":{"olmcahash":"h"}},"data":{"tls.crt":"x","olmCAKey":"y"},"type":"kubernetes.io/tls"}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"kubernetes.io/tls"}`},
		{"other secret", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"v"}}`,
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"v"}}`},
		{"webhook caBundle", `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w"},
			"webhooks":[{"name":"a","clientConfig":{"caBundle":"Y2E=","service":{"name":"svc"}}}]}`,
			`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"w"},
			"webhooks":[{"name":"a","clientConfig":{"service":{"name":"svc"}}}]}`},
		{"CRD conversion caBundle", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"c"},
			"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"caBundle":"Y2E="}}}}}`,
			`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"c"},
			"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{}}}}}`},
		{"APIService caBundle", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"a"},"spec":{"caBundle":"Y2E=","group":"g"}}`,
			`{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"a"},"spec":{"group":"g"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(obj(t, tc.want), normalise(obj(t, tc.in))); diff != "" {
				t.Errorf("normalise (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWholeDiff checks the field differences and their classes.
func TestWholeDiff(t *testing.T) {
	olm := obj(t, `{"kind":"Deployment","metadata":{"labels":{"olm.owner":"c","x":"1"}},"spec":{"replicas":1,"paused":null,
		"template":{"spec":{"containers":[{"name":"a","env":[{"name":"E","value":"1"}]}]}}}}`)
	ours := obj(t, `{"kind":"Deployment","metadata":{"labels":{"olm.owner":"c","y":"1"}},"spec":{"replicas":1.0,
		"template":{"spec":{"containers":[{"name":"a","env":[{"name":"E","value":"2"},{"name":"F"}]}]}}}}`)
	var got []string
	for _, d := range diffObjects(olm, ours) {
		got = append(got, formatPath(d.Path, true)+" "+d.Side+" / "+classOf("Deployment", d).String())
	}
	want := []string{
		`metadata.labels.x olm-only / Deployment metadata.labels.x olm-only`,
		`metadata.labels.y ours-only / Deployment metadata.labels.y ours-only`,
		`spec.template.spec.containers[0].env[0].value differs / Deployment spec.template.spec.containers differs`,
		`spec.template.spec.containers[0].env[1] ours-only / Deployment spec.template.spec.containers ours-only`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("differences (-want +got):\n%s", diff)
	}
}

// TestWholeCompareObjects checks the pairing of objects and the classes of a comparison, and
// that a class not in knownDifferences is reported as unknown.
func TestWholeCompareObjects(t *testing.T) {
	olm := []map[string]any{
		obj(t, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"v.io-abcde","generateName":"v.io-"}}`),
		obj(t, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"svc-cert","namespace":"ns","annotations":{"olmcahash":"h"}},"data":{"olmCAKey":"x"}}`),
		obj(t, `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"ns"}}`),
		obj(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same","namespace":"ns"},"data":{"a":"b"}}`),
	}
	ours := []map[string]any{
		obj(t, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"v.io"}}`),
		obj(t, `{"apiVersion":"ecr.example.com/v1","kind":"Secret","metadata":{"name":"svc-cert","namespace":"ns"}}`),
		obj(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"same","namespace":"ns"},"data":{"a":"b"}}`),
	}
	c := compareObjects(olm, ours)
	counts, _ := c.classes()
	want := map[differenceClass]int{
		{Kind: "ValidatingWebhookConfiguration", Path: "metadata.name", Side: sideDiffers}:     1,
		{Kind: "ValidatingWebhookConfiguration", Path: "metadata.generateName", Side: sideOLM}: 1,
		{Kind: "Secret", Path: "(generated certificate)", Side: sideOLM}:                       1,
		{Kind: "Secret.ecr.example.com", Path: "(object)", Side: sideOurs}:                     1,
	}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("classes (-want +got):\n%s", diff)
	}
	if c.Identical["ConfigMap"] != 1 || c.OLMWritten["Event"] != 0 {
		t.Errorf("identical %v, OLM-written %v", c.Identical, c.OLMWritten)
	}
	unknown := slices.DeleteFunc(slicesOfKeys(counts), func(cl differenceClass) bool { return !isUnknown(cl) })
	if !slices.Contains(unknown, differenceClass{Kind: "Secret.ecr.example.com", Path: "(object)", Side: sideOurs}) {
		t.Errorf("a class not in knownDifferences is not reported: %v", unknown)
	}
}

// slicesOfKeys returns a map's keys.
func slicesOfKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

package render

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/webhook"
)

// TestRunning renders etcd for a cluster where OLM keeps running: what is applied is the pinned
// intent (the Namespace, the OperatorGroup as declared, the CatalogSource, the Subscription with
// Manual approval at its locked CSV, the approval contract, what the inputs pass through), and
// every other object of the full render is the prediction, marked so that nothing applies it.
func TestRunning(t *testing.T) {
	res, err := renderCase(t, "running-etcd", Options{Target: TargetRunning})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.Stream(&b, res.Objects); err != nil {
		t.Fatal(err)
	}
	b.WriteString("# prediction\n")
	if err := emit.Stream(&b, res.Prediction); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "running-etcd", "want.yaml"), b.Bytes())
	for _, o := range res.Prediction {
		if a := o.GetAnnotations(); a[LocalConfigAnnotation] != "true" || a[PredictionAnnotation] != "true" {
			t.Errorf("%s %s/%s of the prediction is not marked: %v", o.GetKind(), o.GetNamespace(), o.GetName(), a)
		}
	}
	kinds := map[string]int{}
	for _, o := range res.Objects {
		kinds[o.GetKind()]++
		if o.GetAnnotations()[PredictionAnnotation] != "" {
			t.Errorf("applied %s %s is marked as prediction", o.GetKind(), o.GetName())
		}
	}
	for kind, n := range map[string]int{"Namespace": 1, "OperatorGroup": 1, "CatalogSource": 1, "Subscription": 1, "ConfigMap": 2} {
		if kinds[kind] != n {
			t.Errorf("%d %s applied, want %d (applied: %v)", kinds[kind], kind, n, kinds)
		}
	}
	if kinds["ClusterServiceVersion"]+kinds["Deployment"]+kinds["CustomResourceDefinition"] > 0 {
		t.Errorf("objects OLM creates are applied: %v", kinds)
	}
}

// TestRunningWebhooks renders node-healthcheck-operator, whose webhooks need certificates and
// whose dependency comes through a Subscription OLM generates, for a cluster where OLM keeps
// running: the prediction holds OLM's own certificate objects, with what OLM generates marked
// and no certificate provider's objects or annotations, and the generated Subscription names
// its InstallPlan by the placeholder.
func TestRunningWebhooks(t *testing.T) {
	res, err := renderCase(t, "running-webhooks", Options{Target: TargetRunning})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := emit.Stream(&b, res.Objects); err != nil {
		t.Fatal(err)
	}
	b.WriteString("# prediction\n")
	if err := emit.Stream(&b, res.Prediction); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "running-webhooks", "want.yaml"), b.Bytes())
	kinds := map[string]int{}
	for _, o := range res.Prediction {
		kinds[o.GetKind()]++
		where := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
		if o.GroupVersionKind().Group == "cert-manager.io" {
			t.Errorf("%s: a certificate provider's object", where)
		}
		// (A bundle's own Service may carry service.beta.openshift.io/serving-cert-secret-name, as
		// node-healthcheck-operator's console plugin does: OLM creates it as shipped.)
		for _, k := range []string{"cert-manager.io/inject-ca-from", "service.beta.openshift.io/inject-cabundle"} {
			if _, ok := o.GetAnnotations()[k]; ok {
				t.Errorf("%s: certificate provider annotation %s", where, k)
			}
		}
		if _, ok := o.GetAnnotations()["service.beta.openshift.io/serving-cert-secret-name"]; ok && strings.HasSuffix(o.GetName(), "-controller-manager-service") {
			t.Errorf("%s: the webhook Service names a service CA certificate", where)
		}
		checkGenerated(t, o)
	}
	for kind, n := range map[string]int{"Secret": 2, "ValidatingWebhookConfiguration": 4, "MutatingWebhookConfiguration": 1, "Subscription": 1} {
		if kinds[kind] != n {
			t.Errorf("%d %s predicted, want %d", kinds[kind], kind, n)
		}
	}
}

// checkGenerated checks what a predicted object says OLM generates: certificate Secrets with no
// data, webhook configurations named by generateName, Deployments mounting a certificate with
// the CA hash and spec hash placeholders, a generated Subscription naming its InstallPlan.
func checkGenerated(t *testing.T, o *unstructured.Unstructured) {
	t.Helper()
	where := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	fields := generated.Fields(o.GetAnnotations())
	var want []string
	switch o.GetKind() {
	case "Secret":
		if _, ok := o.Object["data"]; ok {
			t.Errorf("%s holds data", where)
		}
		want = []string{"/data", "/metadata/annotations/olmcahash"}
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
		if o.GetGenerateName() == "" || o.GetName() != generated.Name(o.GetGenerateName()) {
			t.Errorf("%s: generateName %q", where, o.GetGenerateName())
		}
		want = []string{"/metadata/name", "/webhooks/0/clientConfig/caBundle"}
	case "Deployment":
		if o.GetLabels()["olm.deployment-spec-hash"] == generated.Placeholder {
			want = []string{"/metadata/labels/olm.deployment-spec-hash", "/spec/template/metadata/annotations/olmcahash"}
		}
	case "Subscription":
		if got := o.GetAnnotations()["olm.generated-by"]; got != "install-olm-generated" {
			t.Errorf("%s: olm.generated-by %q", where, got)
		}
		want = []string{"/metadata/annotations/olm.generated-by"}
	}
	if !slices.Equal(fields, want) {
		t.Errorf("%s: generated fields %q, want %q", where, fields, want)
	}
}

// TestRunningCertProvider: where OLM runs it generates its own certificates, so a chosen
// certificate provider is an error; where it does not, OLM's own certificates are.
func TestRunningCertProvider(t *testing.T) {
	_, err := renderCase(t, "running-webhooks", Options{Target: TargetRunning, CertProvider: webhook.ServiceCA})
	if err == nil || err.Error() != "certificate provider openshift-service-ca: OLM generates its own certificates where it runs (--olm=running), and the prediction shows them; --cert-provider applies to --olm=absent" {
		t.Errorf("a provider where OLM runs: %v", err)
	}
	_, err = renderCase(t, "running-webhooks", Options{CertProvider: webhook.OLM})
	if err == nil || !strings.Contains(err.Error(), "certificate provider olm: OLM generates its own certificates only where it runs") {
		t.Errorf("OLM's certificates where OLM does not run: %v", err)
	}
	res, err := renderCase(t, "running-webhooks", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Objects, func(o *unstructured.Unstructured) bool { return o.GetKind() == "Certificate" }) {
		t.Error("no provider chosen where OLM does not run: want cert-manager's Certificates")
	}
}

// TestRunningSnapshotOnly: a CatalogSource OLM cannot serve (a snapshot for olm-render, no image
// nor address) is an error naming it.
func TestRunningSnapshotOnly(t *testing.T) {
	_, err := renderCase(t, "running-snapshot", Options{Target: TargetRunning})
	if err == nil || !strings.Contains(err.Error(), "CatalogSource olm/community: OLM cannot serve it") {
		t.Fatalf("want the CatalogSource named, got %v", err)
	}
	if _, err := renderCase(t, "running-snapshot", Options{}); err != nil {
		t.Errorf("with OLM absent the snapshot is enough: %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{"": TargetAbsent, "absent": TargetAbsent, "running": TargetRunning, "v1": TargetV1} {
		if got, err := ParseTarget(in); err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %q, %v", in, got, err)
		}
	}
	_, err := ParseTarget("openshift")
	if err == nil {
		t.Fatal("ParseTarget(openshift): no error")
	}
	for _, target := range Targets {
		if !strings.Contains(err.Error(), string(target)+" (") {
			t.Errorf("the error does not offer %s: %v", target, err)
		}
	}
}

// TestRenderV1Elsewhere: TargetV1 is package olmv1's; render.Render says so.
func TestRenderV1Elsewhere(t *testing.T) {
	_, err := renderCase(t, "running-etcd", Options{Target: TargetV1})
	if err == nil || !strings.Contains(err.Error(), "rendered by package olmv1") {
		t.Errorf("TargetV1 in render.Render: %v", err)
	}
}

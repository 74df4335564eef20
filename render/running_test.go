package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/render/emit"
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
	for in, want := range map[string]Target{"": TargetAbsent, "absent": TargetAbsent, "running": TargetRunning} {
		if got, err := ParseTarget(in); err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseTarget("openshift"); err == nil {
		t.Error("ParseTarget(openshift): no error")
	}
}

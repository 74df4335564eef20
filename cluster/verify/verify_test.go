package verify

import (
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver/contract"
)

func obj(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }

// TestComparable: the prediction's markers and what OLM decides where it runs are left out of
// the comparison, and said.
func TestComparable(t *testing.T) {
	marked := map[string]any{render.LocalConfigAnnotation: "true", render.PredictionAnnotation: "true"}
	for _, tc := range []struct {
		name      string
		in        map[string]any
		wantNil   bool
		known     string
		wantPaths []string // paths that must be gone
	}{{
		name:    "a certificate provider's object is not comparable",
		in:      map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": map[string]any{"name": "c"}},
		wantNil: true, known: knownCertificates,
	}, {
		name:      "markers only",
		in:        map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "sa", "annotations": marked}},
		wantPaths: []string{"metadata.annotations"},
	}, {
		name: "a webhook's namespace selector and CA injection",
		in: map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
			"metadata": map[string]any{"name": "v.example.com", "annotations": map[string]any{"service.beta.openshift.io/inject-cabundle": "true"}},
			"webhooks": []any{map[string]any{"name": "v.example.com", "namespaceSelector": map[string]any{}, "clientConfig": map[string]any{"caBundle": "x"}}}},
		known: knownCA + "; " + knownSelector,
	}, {
		name: "a webhook Deployment's spec hash",
		in: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "labels": map[string]any{"olm.deployment-spec-hash": "x", "a": "b"}},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"volumes": []any{map[string]any{"name": "webhook-cert"}}}}}},
		known: knownCA,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := comparable(obj(tc.in))
			if (got == nil) != tc.wantNil || known != tc.known {
				t.Fatalf("comparable: nil %v, known %q; want nil %v, known %q", got == nil, known, tc.wantNil, tc.known)
			}
			if got == nil {
				return
			}
			if a := got.GetAnnotations(); a[render.PredictionAnnotation] != "" || a[render.LocalConfigAnnotation] != "" {
				t.Errorf("markers kept: %v", a)
			}
			if got.GetLabels()["olm.deployment-spec-hash"] != "" {
				t.Error("a webhook Deployment's spec hash kept")
			}
			if got.GetLabels() != nil && got.GetKind() == "Deployment" && got.GetLabels()["a"] != "b" {
				t.Error("another label dropped")
			}
		})
	}
}

func TestChangedPaths(t *testing.T) {
	live := map[string]any{"spec": map[string]any{"image": "a", "list": []any{"x", "y"}, "same": 1}, "metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "x"}}}
	merged := map[string]any{"spec": map[string]any{"image": "b", "list": []any{"x", "z"}, "same": 1}, "metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "y"}}}
	got := changedPaths(live, merged, "")
	want := []string{`metadata.labels["app.kubernetes.io/name"]`, "spec.image", "spec.list[1]"}
	if !slices.Equal(got, want) {
		t.Errorf("changedPaths = %v, want %v", got, want)
	}
}

func TestPlanItem(t *testing.T) {
	n := &contract.Namespace{Namespace: "ops", Subscriptions: []contract.Subscription{{Name: "etcd", Locked: "etcd.v2", Steps: []string{"etcd.v1"}}}}
	plan := func(csvs ...string) *v1alpha1.InstallPlan {
		return &v1alpha1.InstallPlan{ObjectMeta: metav1.ObjectMeta{Name: "install-abcde", Namespace: "ops"}, Spec: v1alpha1.InstallPlanSpec{ClusterServiceVersionNames: csvs}}
	}
	if it := planItem(plan("etcd.v2"), n); it.State != InProgress {
		t.Errorf("a plan within the contract: %s %s", it.State, it.Message)
	}
	if it := planItem(plan("etcd.v3"), n); it.State != OK || !strings.Contains(it.Message, "etcd.v3") {
		t.Errorf("a plan past the lock: %s %s", it.State, it.Message)
	}
	if it := planItem(plan("etcd.v2"), nil); it.State != InProgress {
		t.Errorf("no contract: %s", it.State)
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		items []Item
		want  int
	}{
		{nil, ExitInSync},
		{[]Item{{State: OK}, {State: Known}}, ExitInSync},
		{[]Item{{State: OK}, {State: InProgress}}, ExitInProgress},
		{[]Item{{State: InProgress}, {State: Drift}}, ExitDrift},
	} {
		r := &Report{Objects: tc.items}
		if got := r.ExitCode(); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.items, got, tc.want)
		}
	}
}

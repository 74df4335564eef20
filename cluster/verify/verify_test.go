package verify

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/resolver/contract"
)

func obj(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }

// TestComparable: the prediction's markers and the fields OLM generates are left out of the
// comparison, and what OLM decides where it runs is said.
func TestComparable(t *testing.T) {
	marked := func(fields string) map[string]any {
		m := map[string]any{render.LocalConfigAnnotation: "true", render.PredictionAnnotation: "true"}
		if fields != "" {
			m[generated.Annotation] = fields
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		in    map[string]any
		known string
		want  map[string]any
	}{{
		name: "markers only",
		in:   map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "sa", "annotations": marked("")}},
		want: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "sa"}},
	}, {
		name: "a certificate Secret: its data and CA hash are OLM's",
		in: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
			"metadata": map[string]any{"name": "s", "annotations": withOthers(marked("/data, /metadata/annotations/olmcahash"), "olmcahash", generated.Placeholder)}},
		want: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls", "metadata": map[string]any{"name": "s"}},
	}, {
		name: "a webhook: its generated name, and its namespace selector",
		in: map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
			"metadata": map[string]any{"name": "v.example.com-olm-generated", "generateName": "v.example.com-", "annotations": marked("/metadata/name, /webhooks/0/clientConfig/caBundle")},
			"webhooks": []any{map[string]any{"name": "v.example.com", "namespaceSelector": map[string]any{}, "clientConfig": map[string]any{"url": "u"}}}},
		known: knownSelector,
		want: map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
			"metadata": map[string]any{"generateName": "v.example.com-"},
			"webhooks": []any{map[string]any{"name": "v.example.com", "clientConfig": map[string]any{"url": "u"}}}},
	}, {
		name: "a webhook Deployment: its spec hash and CA hash",
		in: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "d", "labels": map[string]any{"olm.deployment-spec-hash": generated.Placeholder, "a": "b"},
				"annotations": marked("/metadata/labels/olm.deployment-spec-hash, /spec/template/metadata/annotations/olmcahash")},
			"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{"olmcahash": generated.Placeholder, "c": "d"}}}}},
		want: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "labels": map[string]any{"a": "b"}},
			"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{"c": "d"}}}}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, known, err := comparable(obj(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if known != tc.known {
				t.Errorf("known %q, want %q", known, tc.known)
			}
			if d := cmp.Diff(tc.want, got.Object); d != "" {
				t.Errorf("comparable (-want +got):\n%s", d)
			}
		})
	}
	bad := obj(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "annotations": marked("data")}})
	if _, _, err := comparable(bad); err == nil {
		t.Error("a generated field that is not a JSON Pointer was accepted")
	}
}

// withOthers returns annotations with one more.
func withOthers(m map[string]any, k, v string) map[string]any {
	m[k] = v
	return m
}

// TestGeneratedName: a predicted webhook configuration is found as OLM finds the one it
// created with generateName: by its generateName, owner labels and webhook description label;
// one of another CSV, or of another description, is not it.
func TestGeneratedName(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	owned := func(name, generateName, owner string) *unstructured.Unstructured {
		return obj(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
			"metadata": map[string]any{"name": name, "generateName": generateName, "labels": map[string]any{
				"olm.owner": owner, "olm.owner.namespace": "ops", "olm.owner.kind": "ClusterServiceVersion", webhook.DescriptionKey: strings.TrimSuffix(generateName, "-")}}})
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ValidatingWebhookConfigurationList"},
		owned("v.example.com-x7k2p", "v.example.com-", "other.v1"),
		owned("v.example.com-b4tqz", "v.example.com-", "demo.v1"),
		owned("w.example.com-m9rfd", "w.example.com-", "demo.v1"),
	)
	c := Clients{Dynamic: dyn}
	predicted := owned(generated.Name("v.example.com-"), "v.example.com-", "demo.v1")
	predicted.SetName("")
	got, err := generatedName(context.Background(), c, predicted)
	if err != nil || got != "v.example.com-b4tqz" {
		t.Errorf("generatedName = %q, %v; want the one demo.v1 owns", got, err)
	}
	gone := owned("", "u.example.com-", "demo.v1")
	if got, err := generatedName(context.Background(), c, gone); err != nil || got != "" {
		t.Errorf("generatedName of one OLM did not create = %q, %v", got, err)
	}
	if _, err := generatedName(context.Background(), c, obj(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"generateName": "s-"}})); err == nil {
		t.Error("a Secret with generateName: no error")
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

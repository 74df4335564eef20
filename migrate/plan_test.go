package migrate

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
)

func obj(apiVersion, kind, ns, name string, labels map[string]string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	for k, v := range fields {
		u.Object[k] = v
	}
	return u
}

// TestBuild classes the objects of a move: the CRD untouched, the Deployment adopted, RBAC
// renamed by its grant (a binding with the role it binds), the CSV, OperatorCondition and
// per-CRD role dropped, the Secret a Certificate writes adopted, the ClusterExtension added;
// what belongs to a Subscription v1 refuses is left out.
func TestBuild(t *testing.T) {
	owner := map[string]string{"olm.owner": "op.v1", "olm.owner.namespace": "ops", "olm.owner.kind": "ClusterServiceVersion"}
	v1owner := map[string]string{"olm.operatorframework.io/owner-kind": "ClusterExtension", "olm.operatorframework.io/owner-name": "op"}
	rules := []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}}
	subjects := []any{map[string]any{"kind": "ServiceAccount", "name": "op", "namespace": "ops"}}
	ref := func(name string) map[string]any {
		return map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}
	}
	v0 := []*unstructured.Unstructured{
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "things.example.com", map[string]string{"operators.coreos.com/op.ops": ""}, nil),
		obj("apps/v1", "Deployment", "ops", "op", owner, nil),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "op.v1-fnv", owner, map[string]any{"rules": rules}),
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "op.v1-fnv", owner, map[string]any{"subjects": subjects, "roleRef": ref("op.v1-fnv")}),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "things.example.com-v1-admin", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}, nil),
		obj("operators.coreos.com/v1alpha1", "ClusterServiceVersion", "ops", "op.v1", nil, nil),
		obj("operators.coreos.com/v2", "OperatorCondition", "ops", "op.v1", nil, nil),
		obj("v1", "Secret", "ops", "op-service-cert", owner, nil),
		obj("apps/v1", "Deployment", "other", "refused", map[string]string{"olm.owner": "refused.v1", "olm.owner.namespace": "other", "olm.owner.kind": "ClusterServiceVersion"}, nil),
	}
	v1 := []*unstructured.Unstructured{
		obj("olm.operatorframework.io/v1", "ClusterExtension", "", "op", nil, nil),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "things.example.com", v1owner, nil),
		obj("apps/v1", "Deployment", "ops", "op", v1owner, nil),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "op.v1-op-sha", v1owner, map[string]any{"rules": rules}),
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "op.v1-op-sha", v1owner, map[string]any{"subjects": subjects, "roleRef": ref("op.v1-op-sha")}),
		obj("cert-manager.io/v1", "Certificate", "ops", "op-service-cert", v1owner, map[string]any{"spec": map[string]any{"secretName": "op-service-cert"}}),
	}
	verdicts := []olmv1.Verdict{
		{Namespace: "ops", Subscription: "op", Package: "op", Bundle: "op.v1", ClusterExtension: "op", Outcome: olmv1.Eligible},
		{Namespace: "other", Subscription: "refused", Package: "refused", Bundle: "refused.v1", Outcome: olmv1.Refused},
	}
	p := Build(Input{V0: v0, V1: v1, Verdicts: verdicts})
	got := map[string]Class{}
	for _, c := range p.Changes {
		name := c.Key.String()
		if c.From != nil {
			name = c.From.String() + " -> " + c.Key.Name
		}
		got[name] = c.Class
	}
	want := map[string]Class{
		"CustomResourceDefinition/things.example.com":  Untouched,
		"Deployment/ops/op":                            Adopted,
		"Secret/ops/op-service-cert":                   Adopted,
		"ClusterRole/op.v1-fnv -> op.v1-op-sha":        Renamed,
		"ClusterRoleBinding/op.v1-fnv -> op.v1-op-sha": Renamed,
		"ClusterRole/things.example.com-v1-admin":      Dropped,
		"ClusterServiceVersion/ops/op.v1":              Dropped,
		"OperatorCondition/ops/op.v1":                  Dropped,
		"ClusterExtension/op":                          Added,
		"Certificate/ops/op-service-cert":              Added,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: class %q, want %q", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s is in the plan (class %s) but should not be", k, got[k])
		}
	}
	var steps strings.Builder
	if err := p.WriteSteps(&steps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kubectl -n ops delete clusterserviceversion op.v1 --cascade=orphan",
		"kubectl label -n ops deployment.apps/op app.kubernetes.io/managed-by=Helm --overwrite",
		"kubectl delete clusterrole.rbac.authorization.k8s.io/op.v1-fnv --ignore-not-found",
	} {
		if !strings.Contains(steps.String(), want) {
			t.Errorf("the steps lack %q:\n%s", want, steps.String())
		}
	}
	if strings.Contains(steps.String(), "refused") {
		t.Errorf("steps for the refused Subscription:\n%s", steps.String())
	}
}

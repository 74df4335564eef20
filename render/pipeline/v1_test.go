package pipeline

import (
	"context"
	"errors"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/test/fixture"
)

// TestRenderV1 runs render.TargetV1 through the pipeline: it is olmv1's render, with the
// certificate provider and engine of render.Options when V1 names none, and its verdicts.
func TestRenderV1(t *testing.T) {
	run := func(opts render.Options) (*Output, error) {
		return Run(context.Background(), Request{Paths: []string{"../../olmv1/testdata/kube-green/input"}, Root: fixture.Root(t), Render: opts})
	}
	out, err := run(render.Options{Target: render.TargetV1, CertProvider: webhook.ServiceCA, Engine: gitops.ArgoCD})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Verdicts) != 1 || out.Verdicts[0].Outcome != olmv1.Eligible {
		t.Errorf("verdicts %+v", out.Verdicts)
	}
	has := func(objs []*unstructured.Unstructured, kind string) bool {
		return slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == kind })
	}
	if !has(out.Objects, "ClusterExtension") || has(out.Objects, "Subscription") || !has(out.Prediction, "Deployment") {
		t.Errorf("applied %d objects, predicted %d: want a ClusterExtension applied and a Deployment predicted", len(out.Objects), len(out.Prediction))
	}
	if has(out.Prediction, "Certificate") {
		t.Error("cert-manager's Certificate with the service CA provider")
	}
	for _, o := range out.Objects {
		if o.GetKind() == "Namespace" && o.GetAnnotations()["argocd.argoproj.io/sync-wave"] != "-1" {
			t.Errorf("Namespace not prepared for Argo CD: %v", o.GetAnnotations())
		}
	}
	_, err = run(render.Options{Target: render.TargetV1, V1: olmv1.Options{CertProvider: webhook.None}})
	var refusal *olmv1.Refusal
	if !errors.As(err, &refusal) || refusal.Verdicts[0].Reasons[0].Code != olmv1.CodeNoCertProvider {
		t.Errorf("V1's own provider: want a no-cert-provider refusal, got %v", err)
	}
}

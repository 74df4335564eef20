package fn

import (
	"strings"
	"testing"

	"github.com/olm-render/olm-render/render/gitops"
)

// TestRequestOptions: the RenderConfig options for the applying tool and the copied CSVs reach
// the render, and a tool the function does not know is an error naming the option.
func TestRequestOptions(t *testing.T) {
	no := false
	c := &RenderConfig{Options: RenderOptions{For: "argocd", CopiedCSVs: &no}}
	req, err := Request(c)
	if err != nil {
		t.Fatal(err)
	}
	if req.Render.Engine != gitops.ArgoCD || !req.Render.NoCopiedCSVs {
		t.Errorf("render options %+v", req.Render)
	}
	req, err = Request(&RenderConfig{})
	if err != nil || req.Render.Engine != gitops.Kubectl || req.Render.NoCopiedCSVs {
		t.Errorf("defaults: %+v, %v", req.Render, err)
	}
	if _, err := Request(&RenderConfig{Options: RenderOptions{For: "argo"}}); err == nil || !strings.Contains(err.Error(), "options.for") {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := Request(&RenderConfig{Options: RenderOptions{KubeVersion: "v1.x.garbage"}}); err == nil || !strings.Contains(err.Error(), "options.kubeVersion") {
		t.Errorf("a kube version that is none: %v", err)
	}
}

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
	req, err := c.Request()
	if err != nil {
		t.Fatal(err)
	}
	if req.Render.Engine != gitops.ArgoCD || !req.Render.NoCopiedCSVs {
		t.Errorf("render options %+v", req.Render)
	}
	req, err = (&RenderConfig{}).Request()
	if err != nil || req.Render.Engine != gitops.Kubectl || req.Render.NoCopiedCSVs {
		t.Errorf("defaults: %+v, %v", req.Render, err)
	}
	if _, err := (&RenderConfig{Options: RenderOptions{For: "argo"}}).Request(); err == nil || !strings.Contains(err.Error(), "options.for") {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := (&RenderConfig{Options: RenderOptions{KubeVersion: "v1.x.garbage"}}).Request(); err == nil || !strings.Contains(err.Error(), "options.kubeVersion") {
		t.Errorf("a kube version that is none: %v", err)
	}
}

package fn

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const items = `apiVersion: v1
kind: Namespace
metadata:
  name: operators
  annotations: {internal.config.kubernetes.io/path: namespaces.yaml}
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata:
  name: global
  namespace: operators
  annotations: {internal.config.kubernetes.io/path: og.yaml}
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: widget-operator
  namespace: operators
  annotations: {internal.config.kubernetes.io/path: sub.yaml}
spec: {name: widget-operator, channel: stable, source: examples, sourceNamespace: olm}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: keep, namespace: operators}
data: {a: b}
`

func resourceList(t *testing.T, config string) *framework.ResourceList {
	t.Helper()
	nodes, err := (&yamlReader{s: items}).read()
	if err != nil {
		t.Fatal(err)
	}
	return &framework.ResourceList{Items: nodes, FunctionConfig: yaml.MustParse(config)}
}

type yamlReader struct{ s string }

func (r *yamlReader) read() ([]*yaml.RNode, error) {
	var out []*yaml.RNode
	for _, doc := range strings.Split(r.s, "---\n") {
		n, err := yaml.Parse(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func root(t *testing.T) *Processor {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	return &Processor{Root: abs}
}

func TestProcess(t *testing.T) {
	rl := resourceList(t, "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalogs:\n- {name: examples, namespace: olm, path: quickstart/catalog}\n")
	if err := root(t).Process(rl); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, n := range rl.Items {
		kinds[n.GetKind()]++
	}
	if kinds["ConfigMap"] != 1 || kinds["Namespace"] != 1 || kinds["Subscription"] != 0 || kinds["ClusterServiceVersion"] != 2 || kinds["Deployment"] != 2 {
		t.Errorf("kinds %v", kinds)
	}
}

func TestProcessErrors(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown field", "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalog: []\n", "catalog"},
		{"wrong kind", "apiVersion: olm-render.dev/v1alpha1\nkind: Other\n", "RenderConfig"},
		{"outside root", "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalogs:\n- {name: examples, namespace: olm, path: ../../elsewhere}\n", "outside the kustomization directory"},
		{"unbound catalog", "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\n", "no catalog snapshot is bound to CatalogSource olm/examples"},
		{"missing package", "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalogs:\n- {name: examples, namespace: olm, path: quickstart/catalog/gadget-operator}\n", "no operators found in package widget-operator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl := resourceList(t, tt.config)
			err := root(t).Process(rl)
			if err == nil {
				t.Fatal("no error")
			}
			if rl.Results.ExitCode() == 0 || !strings.Contains(rl.Results.Error(), tt.want) {
				t.Errorf("results %v do not contain %q", rl.Results, tt.want)
			}
		})
	}
}

// TestCatalogPathRelativeToConfig: catalog paths are relative to the file declaring the
// RenderConfig, and (kustomize's LoadRestrictionsRootOnly) inside its kustomization's directory
// unless the config says LoadRestrictionsNone.
func TestCatalogPathRelativeToConfig(t *testing.T) {
	const config = "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\nmetadata:\n  annotations: {internal.config.kubernetes.io/path: kustomize/olm-render.yaml}\ncatalogs:\n- {name: examples, namespace: olm, path: ../quickstart/catalog}\n"
	rl := resourceList(t, config)
	if err := root(t).Process(rl); err == nil || !strings.Contains(rl.Results.Error(), "outside the kustomization directory") {
		t.Fatalf("a catalog outside the kustomization: %v", rl.Results)
	}
	rl = resourceList(t, config+"options: {loadRestrictor: LoadRestrictionsNone}\n")
	if err := root(t).Process(rl); err != nil {
		t.Fatal(err)
	}
	// LoadRestrictionsNone, written in the repository, never reads past the repository (the
	// Git work tree) or the --root the function was run with.
	bounded := root(t)
	bounded.Bound = filepath.Join(bounded.Root, "kustomize")
	rl = resourceList(t, config+"options: {loadRestrictor: LoadRestrictionsNone}\n")
	if err := bounded.Process(rl); err == nil || !strings.Contains(rl.Results.Error(), "examples/kustomize, the repository (or --root) the function reads from") {
		t.Fatalf("a catalog outside --root: %v", rl.Results)
	}
	outside := "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\ncatalogs:\n- {name: examples, namespace: olm, path: /etc}\noptions: {loadRestrictor: LoadRestrictionsNone}\n"
	rl = resourceList(t, outside)
	if err := root(t).Process(rl); err == nil || !strings.Contains(rl.Results.Error(), "the repository (or --root) the function reads from") {
		t.Fatalf("a catalog outside the Git work tree: %v", rl.Results)
	}
}

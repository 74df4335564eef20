package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const baseKustomization = `resources: [subscription.yaml, catalogsource.yaml, og.yaml]
`

const baseSubscription = `apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: etcd, namespace: ops}
spec: {name: etcd, channel: alpha, source: cat, sourceNamespace: ops}
`

const baseCatalogSource = `apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: cat
  namespace: ops
  annotations: {olm-render.dev/catalog: catalog}
spec: {sourceType: grpc}
`

const baseOG = `apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata: {name: og, namespace: ops}
`

func overlayTree(t *testing.T, overlay string) string {
	t.Helper()
	return write(t, map[string]string{
		"base/kustomization.yaml":    baseKustomization,
		"base/subscription.yaml":     baseSubscription,
		"base/catalogsource.yaml":    baseCatalogSource,
		"base/og.yaml":               baseOG,
		"base/catalog/catalog.json":  `{"schema":"olm.package","name":"etcd"}`,
		"overlay/kustomization.yaml": overlay,
	})
}

// TestKustomizeOverlay: an overlay that patches the channel is built in process; the catalog
// annotation of the base's CatalogSource resolves relative to the base's file.
func TestKustomizeOverlay(t *testing.T) {
	dir := overlayTree(t, `resources: [../base]
patches:
- target: {kind: Subscription}
  patch: |
    - {op: replace, path: /spec/channel, value: stable}
`)
	var loaded []string
	set, err := Load([]string{filepath.Join(dir, "overlay")}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Subscriptions) != 1 || set.Subscriptions[0].Spec.Channel != "stable" {
		t.Fatalf("subscriptions %+v", set.Subscriptions)
	}
	if got := set.Subscriptions[0].Origin.File; !strings.HasSuffix(got, filepath.Join("base", "subscription.yaml")) {
		t.Errorf("origin %s, want the base's file", got)
	}
	if len(loaded) != 1 || loaded[0] != "base/catalog" {
		t.Errorf("catalogs loaded %v, want [base/catalog]", loaded)
	}
	if _, ok := set.CatalogSources[0].Annotations[originAnnotation]; ok {
		t.Error("the origin annotation olm-render added was kept")
	}
}

func TestKustomizeRefusals(t *testing.T) {
	tests := []struct {
		name, overlay, want string
		setup               func(t *testing.T, dir string)
	}{
		{name: "remote git base", overlay: "resources: ['github.com/example/repo//deploy?ref=v1']\n", want: "remote or outside the repository"},
		{name: "https resource", overlay: "resources: [https://example.com/x.yaml]\n", want: "remote or outside the repository"},
		{name: "absolute path", overlay: "resources: [/etc/kubernetes]\n", want: "remote or outside the repository"},
		{name: "base outside the root", overlay: "resources: [../../outside]\n", want: "remote or outside the repository"},
		{name: "helm", overlay: "helmCharts: [{name: x, repo: https://example.com}]\n", want: "helmCharts are not supported"},
		{name: "exec function", overlay: "resources: [../base]\ntransformers: [fn.yaml]\n", want: "kustomize build",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, "overlay", "fn.yaml"), []byte("apiVersion: x/v1\nkind: Fn\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: /bin/sh}\n"), 0o644)
			}},
		{name: "symlink out of the root", overlay: "resources: [../base, link.yaml]\n", want: "outside",
			setup: func(t *testing.T, dir string) {
				os.Symlink("/etc/hostname", filepath.Join(dir, "overlay", "link.yaml"))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := overlayTree(t, tt.overlay)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			var loaded []string
			_, err := Load([]string{filepath.Join(dir, "overlay")}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "kustomization.yaml") {
				t.Errorf("the error does not name the kustomization: %v", err)
			}
		})
	}
}

// TestKustomizationInSubdirectory: a directory of inputs whose subdirectory holds a
// kustomization builds it as one unit, and does not read its files again.
func TestKustomizationInSubdirectory(t *testing.T) {
	dir := overlayTree(t, "resources: [../base]\n")
	os.Remove(filepath.Join(dir, "overlay", "kustomization.yaml"))
	var loaded []string
	set, err := Load([]string{dir}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Subscriptions) != 1 || len(set.OperatorGroups) != 1 {
		t.Fatalf("%d subscriptions, %d operator groups", len(set.Subscriptions), len(set.OperatorGroups))
	}
}

// TestKustomizeIntegers: a built object with integer fields passes through as one read from a
// file does (int64, which unstructured objects can copy), not as kyaml's Go ints.
func TestKustomizeIntegers(t *testing.T) {
	dir := overlayTree(t, "resources: [../base, deployment.yaml]\n")
	if err := os.WriteFile(filepath.Join(dir, "overlay", "deployment.yaml"), []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: ops}
spec:
  replicas: 2
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var loaded []string
	set, err := Load([]string{filepath.Join(dir, "overlay")}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Others) != 1 {
		t.Fatalf("%d objects passed through, want the Deployment", len(set.Others))
	}
	copied := set.Others[0].Unstructured.DeepCopy()
	if replicas, ok := copied.Object["spec"].(map[string]any)["replicas"].(int64); !ok || replicas != 2 {
		t.Errorf("replicas %#v, want int64 2", copied.Object["spec"].(map[string]any)["replicas"])
	}
}

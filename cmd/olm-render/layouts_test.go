package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverlays renders a base and two overlays that share its catalog: staging patches the
// channel and a config, production the namespace.
func TestOverlays(t *testing.T) {
	for _, tc := range []struct{ overlay, want string }{
		{"staging", "name: widget-operator.v0.2.0"},
		{"production", "namespace: prod-operators"},
	} {
		t.Run(tc.overlay, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", "overlays", "overlays", tc.overlay)
			code, out, errOut := runCLI(t, "render", "--locked", dir)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, filepath.Join("overlays", tc.overlay+".yaml"), out)
		})
	}
}

// TestOverlaysArgoCD runs the plugin as Argo CD runs it on an overlay: the working directory is the
// source path inside the checkout, with Argo CD's environment.
func TestOverlaysArgoCD(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "overlays", "staging.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	top, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	source := "examples/overlays/overlays/staging"
	t.Chdir(filepath.Join(top, source))
	t.Setenv("ARGOCD_APP_SOURCE_PATH", source)
	t.Setenv("ARGOCD_APP_NAME", "operators-staging")
	t.Setenv("KUBE_VERSION", "v1.30.2")
	t.Setenv("ARGOCD_APP_PARAMETERS", `[{"name":"strict","string":"true"},{"name":"for","string":"kubectl"}]`)
	code, out, errOut := runCLI(t, "argocd", "generate")
	if code != 0 || out != string(want) {
		t.Fatalf("exit %d (same as render: %v): %s", code, out == string(want), errOut)
	}
}

// TestStdin reads the inputs from standard input.
func TestStdin(t *testing.T) {
	var in bytes.Buffer
	for _, f := range []string{"namespaces.yaml", "operatorgroup.yaml", "subscription.yaml"} {
		data, err := os.ReadFile(filepath.Join(quickstart, f))
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString("---\n")
		in.Write(data)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"render", "--no-lock", "--catalog", "olm/examples=../../examples/quickstart/catalog", "-"}, &in, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "name: widget-operator.v0.2.0") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestCatalogInsideSource: a directory of inputs that also holds its catalog snapshot and an
// earlier render's output reads neither as inputs.
func TestCatalogInsideSource(t *testing.T) {
	dir := t.TempDir()
	for name, from := range map[string]string{"catalog": "../../examples/quickstart/catalog", "rendered": "../../examples/flux/rendered"} {
		if err := os.CopyFS(filepath.Join(dir, name), os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"namespaces.yaml", "operatorgroup.yaml", "subscription.yaml", "catalogsource.yaml"} {
		data, err := os.ReadFile(filepath.Join(quickstart, f))
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.ReplaceAll(data, []byte("olm-render.dev/catalog: ../catalog"), []byte("olm-render.dev/catalog: catalog"))
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, "render", "--no-lock", "--root", dir, dir)
	if code != 0 || !strings.Contains(out, "name: widget-operator.v0.2.0") || strings.Contains(errOut, "warning") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestFluxLayout: render --for flux -o writes crds/ and operators/ (each a kustomization), a
// kustomization.yaml applying both, and the Flux Kustomizations applying them from the
// directory's place in the repository; every object lands in exactly one stage.
func TestFluxLayout(t *testing.T) {
	top, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.MkdirTemp(filepath.Join(top, "cmd", "olm-render", "testdata"), "flux-out-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	code, _, errOut := runCLI(t, "render", "--root", top, "--for", "flux", "--flux-source", "GitRepository/fleet", "--output-dir", out, quickstart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var top1 struct{ Resources []string }
	readYAML(t, filepath.Join(out, "kustomization.yaml"), &top1)
	if strings.Join(top1.Resources, ",") != "crds,operators" {
		t.Errorf("top kustomization resources %v", top1.Resources)
	}
	_, flat, _ := runCLI(t, "render", "--for", "flux", quickstart)
	objects := strings.Count(flat, "\nkind: ")
	listed := 0
	for stage, want := range map[string]func(string) bool{
		"crds": func(f string) bool {
			return strings.Contains(f, "customresourcedefinition-") || strings.Contains(f, "namespace-")
		},
		"operators": func(f string) bool {
			return !strings.Contains(f, "customresourcedefinition-") && !strings.Contains(f, "/namespace-")
		},
	} {
		var k struct{ Resources []string }
		readYAML(t, filepath.Join(out, stage, "kustomization.yaml"), &k)
		for _, f := range k.Resources {
			if !want(f) {
				t.Errorf("%s holds %s", stage, f)
			}
			if _, err := os.Stat(filepath.Join(out, stage, f)); err != nil {
				t.Error(err)
			}
		}
		listed += len(k.Resources)
	}
	if listed != objects {
		t.Errorf("%d files in the stages, %d objects in the render", listed, objects)
	}
	data, err := os.ReadFile(filepath.Join(out, "flux-kustomizations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rel := "./cmd/olm-render/testdata/" + filepath.Base(out)
	for _, want := range []string{"path: " + rel + "/crds", "path: " + rel + "/operators", "name: fleet", "dependsOn:", "healthCheckExprs:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("flux-kustomizations.yaml lacks %q:\n%s", want, data)
		}
	}
	code, _, errOut = runCLI(t, "render", "--root", filepath.Join(top, "examples"), "--for", "flux", "--output-dir", out, quickstart)
	if code == 0 || !strings.Contains(errOut, "must be inside") {
		t.Errorf("an output outside the root: exit %d, %s", code, errOut)
	}
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

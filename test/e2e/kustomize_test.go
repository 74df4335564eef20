package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var repo = filepath.Join("..", "..")

// kustomize finds the kustomize binary: bin/tools/kustomize, else the PATH.
func kustomize(t *testing.T) string {
	t.Helper()
	if p, err := filepath.Abs(filepath.Join(repo, "bin", "tools", "kustomize")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("kustomize")
	if err != nil {
		if testing.Short() {
			t.Skip("kustomize not installed")
		}
		t.Fatal("kustomize not found: `make tools` installs it into bin/tools (make test does it for you)")
	}
	return p
}

// buildBinary builds bin/olm-render, where examples/kustomize's exec function points.
func buildBinary(t testing.TB) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(repo, "bin", "olm-render"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/olm-render")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building olm-render: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, name string, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

type object struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

func parse(t *testing.T, stream string) map[string]object {
	t.Helper()
	out := map[string]object{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind != "" {
			out[o.Kind+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name] = o
		}
	}
	return out
}

// TestKustomizeBuild runs `kustomize build --enable-alpha-plugins --enable-exec examples/kustomize`.
func TestKustomizeBuild(t *testing.T) {
	k := kustomize(t)
	buildBinary(t)
	stdout, stderr, err := run(t, k, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(repo, "examples", "kustomize"))
	if err != nil {
		t.Fatalf("kustomize build: %v\n%s", err, stderr)
	}
	objs := parse(t, stdout)
	for _, want := range []string{
		"ClusterServiceVersion/operators/widget-operator.v0.1.0",
		"ClusterServiceVersion/operators/gadget-operator.v1.0.0",
		"Deployment/operators/widget-operator",
		"ServiceAccount/operators/widget-operator",
		"CustomResourceDefinition//widgets.example.com",
		"OperatorGroup/operators/global-operators",
		"Namespace//operators",
		"ConfigMap/team-a/team-settings",
	} {
		if _, ok := objs[want]; !ok {
			t.Errorf("kustomize build output lacks %s", want)
		}
	}
	if cm := objs["ConfigMap/team-a/team-settings"]; cm.Data["owner"] != "team-a" {
		t.Errorf("the ConfigMap did not pass through unchanged: %+v", cm)
	}
	for key, o := range objs {
		if o.Kind == "Subscription" || o.Kind == "CatalogSource" || o.Kind == "RenderConfig" {
			t.Errorf("consumed intent in the output: %s", key)
		}
	}
	// The example binds its catalog in the function config, so no object carries kustomize's
	// origin annotations (or the function's path annotations).
	noBuildAnnotations(t, objs)
	t.Logf("kustomize build rendered %d objects", len(objs))
}

// TestKustomizeBuildFails: a Subscription to a package the catalog does not have fails the
// build with the function's error result.
func TestKustomizeBuildFails(t *testing.T) {
	k := kustomize(t)
	bin := buildBinary(t)
	top := t.TempDir()
	for _, d := range []string{"kustomize", "overlays"} {
		if err := os.CopyFS(filepath.Join(top, d), os.DirFS(filepath.Join(repo, "examples", d))); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, filepath.Join(top, "kustomize", "olm-render.yaml"), "path: ../../bin/olm-render", "path: "+bin)
	edit(t, filepath.Join(top, "overlays", "base", "subscription.yaml"), "  name: widget-operator\n  channel", "  name: no-such-operator\n  channel")
	dir := filepath.Join(top, "kustomize")
	stdout, stderr, err := run(t, k, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	if err == nil {
		t.Fatalf("kustomize build succeeded:\n%s", stdout)
	}
	for _, want := range []string{"[error] operators.coreos.com/v1alpha1/Subscription/operators/widget-operator", "no operators found in package no-such-operator"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, stderr)
		}
	}
}

// edit replaces old by new in a file, failing when old is not there.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

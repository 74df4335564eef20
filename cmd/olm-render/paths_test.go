package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// elsewhere copies the quickstart inputs and catalog into a repository of their own (a Git work
// tree) and makes the working directory another repository, unrelated: every path of the test is
// given absolute, from somewhere else, as a person runs olm-render on a checkout. It returns the
// inputs' repository.
func elsewhere(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	for dir, from := range map[string]string{"catalog": "../../examples/quickstart/catalog", "input": quickstart} {
		if err := os.CopyFS(filepath.Join(repo, dir), os.DirFS(from)); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(repo, "input", "olm-render.lock.yaml"))
	cwd := filepath.Join(t.TempDir(), "other")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(cwd, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(cwd)
	return repo
}

// TestCommandLineTrusted: paths typed on the command line are read wherever they are, from any
// working directory; what the inputs name stays inside the Git work tree holding them.
func TestCommandLineTrusted(t *testing.T) {
	repo := elsewhere(t)
	input, catalogDir := filepath.Join(repo, "input"), filepath.Join(repo, "catalog")
	outside := t.TempDir()

	code, out, errOut := runCLI(t, "catalog", "validate", catalogDir)
	if code != 0 || !strings.HasSuffix(out, "3 bundles: valid\n") {
		t.Fatalf("catalog validate %s: exit %d: %s%s", catalogDir, code, out, errOut)
	}
	code, out, errOut = runCLI(t, "render", "--no-lock", input)
	if code != 0 || !strings.Contains(out, "name: widget-operator.v0.2.0") {
		t.Fatalf("render %s: exit %d: %s", input, code, errOut)
	}
	// A catalog, a lock and an output directory anywhere.
	if err := os.CopyFS(filepath.Join(outside, "catalog"), os.DirFS(catalogDir)); err != nil {
		t.Fatal(err)
	}
	lockFile, outDir := filepath.Join(outside, "locks", "ops.lock.yaml"), filepath.Join(outside, "rendered")
	os.MkdirAll(filepath.Dir(lockFile), 0o755)
	args := []string{"render", "--catalog", "olm/examples=" + filepath.Join(outside, "catalog"), "--lock", lockFile, "--output-dir", outDir, input}
	code, _, errOut = runCLI(t, args...)
	if code != 0 || !strings.Contains(errOut, "wrote 40 objects to "+outDir+"\n") || !strings.Contains(errOut, "wrote "+lockFile) {
		t.Fatalf("render with --catalog, --lock and --output-dir elsewhere: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "render", "--locked", "--lock", lockFile, input); code != 0 {
		t.Fatalf("render --locked --lock %s: exit %d: %s", lockFile, code, errOut)
	}
	if _, err := os.Stat(filepath.Join(input, "olm-render.lock.yaml")); !os.IsNotExist(err) {
		t.Errorf("a lock was written beside the inputs, not at --lock")
	}

	// What the inputs name stays inside their repository.
	editFile(t, filepath.Join(input, "catalogsource.yaml"), "../catalog", filepath.Join(outside, "catalog"))
	code, _, errOut = runCLI(t, "render", "--no-lock", input)
	if code == 0 || !strings.Contains(errOut, "leaves the root") {
		t.Fatalf("a catalog annotation naming a path outside the repository: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(errOut, "error: ") || strings.Contains(errOut, "error: loading inputs\n") {
		t.Errorf("the reason does not come first:\n%s", errOut)
	}
}

// TestRootOfInputs: the default root is the Git work tree holding the first input; inputs in
// another tree, or outside --root, are refused with the fix; --root widens what the inputs may name.
func TestRootOfInputs(t *testing.T) {
	repo := elsewhere(t)
	input := filepath.Join(repo, "input")
	other := t.TempDir()
	fixtureWrite(t, filepath.Join(other, "ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-b}\n")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"inputs in two trees", []string{input, filepath.Join(other, "ns.yaml")}, 1, "is not in the same tree as " + input},
		{"an input outside --root", []string{"--root", repo, input, filepath.Join(other, "ns.yaml")}, 1, "is outside --root"},
		{"--root holding both", []string{"--root", "/", input, filepath.Join(other, "ns.yaml")}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"render", "--no-lock"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want %d with %q: %s", code, tt.code, tt.want, errOut)
			}
		})
	}
}

// TestOutputInsideInput: --output-dir inside an input directory is refused (the next render
// would read it), as README says.
func TestOutputInsideInput(t *testing.T) {
	dir := quickstartWith(t)
	for _, args := range [][]string{{"--output-dir", filepath.Join(dir, "rendered")}, {"-o", filepath.Join(dir, "rendered")}} {
		code, _, errOut := runCLI(t, append(append([]string{"render", "--no-lock"}, args...), dir)...)
		if code != 1 || !strings.Contains(errOut, "is inside the input directory input") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "rendered")); !os.IsNotExist(err) {
			t.Errorf("%v: the refused output was written", args)
		}
	}
}

// TestPluginStaysConfined: the Argo CD plugin's parameters come from the Application, and the KRM
// function reads what kustomize names: there, as before, a path outside the root is refused.
func TestPluginStaysConfined(t *testing.T) {
	repo := elsewhere(t)
	outside := t.TempDir()
	if err := os.CopyFS(filepath.Join(outside, "catalog"), os.DirFS(filepath.Join(repo, "catalog"))); err != nil {
		t.Fatal(err)
	}
	t.Run("argocd catalog parameter", func(t *testing.T) {
		clearArgoEnv(t)
		params, _ := json.Marshal([]map[string]any{{"name": "locked", "string": "false"},
			{"name": "catalog", "array": []string{"olm/examples=" + filepath.Join(outside, "catalog")}}})
		setEnv(t, map[string]string{"ARGOCD_APP_SOURCE_PATH": "input", "ARGOCD_APP_PARAMETERS": string(params)})
		t.Chdir(filepath.Join(repo, "input"))
		code, out, errOut := runCLI(t, "argocd", "generate")
		if code == 0 || out != "" || !strings.Contains(errOut, "is outside the root") {
			t.Fatalf("exit %d, %d bytes on stdout: %s", code, len(out), errOut)
		}
	})
	t.Run("argocd path parameter", func(t *testing.T) {
		clearArgoEnv(t)
		setEnv(t, map[string]string{"ARGOCD_APP_SOURCE_PATH": "input", "PARAM_PATH": outside, "PARAM_LOCKED": "false"})
		t.Chdir(filepath.Join(repo, "input"))
		code, out, errOut := runCLI(t, "argocd", "generate")
		if code == 0 || out != "" || !strings.Contains(errOut, "outside the root") {
			t.Fatalf("exit %d, %d bytes on stdout: %s", code, len(out), errOut)
		}
	})
	t.Run("fn standalone", func(t *testing.T) {
		config := filepath.Join(repo, "config.yaml")
		fixtureWrite(t, config, "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\nmetadata: {name: x}\n")
		t.Chdir(repo)
		code, _, errOut := runCLI(t, "fn", config, filepath.Join(outside, "catalog"))
		if code == 0 || !strings.Contains(errOut, "outside the root") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}

package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "update golden files")

const quickstart = "../../examples/quickstart/input"

// runCLI runs the command line and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join("testdata", name)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; rerun with -update and review the diff\n--- got ---\n%s", path, got)
	}
}

func TestQuickstartRender(t *testing.T) {
	code, out, errOut := runCLI(t, "render", quickstart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "quickstart/render.yaml", out)
}

func TestQuickstartResolve(t *testing.T) {
	code, out, errOut := runCLI(t, "resolve", quickstart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "quickstart/resolve.yaml", out)
}

// TestRenderDeterministic renders the same inputs named in different orders and as single
// files: the output must be byte-identical.
func TestRenderDeterministic(t *testing.T) {
	files := []string{"namespaces.yaml", "operatorgroup.yaml", "catalogsource.yaml", "subscription.yaml"}
	var first string
	for i := range files {
		args := []string{"render"}
		for j := range files {
			args = append(args, filepath.Join(quickstart, files[(i+j)%len(files)]))
		}
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if i == 0 {
			first = out
			continue
		}
		if out != first {
			t.Fatalf("output depends on input order %v", args[1:])
		}
	}
	_, dirOut, _ := runCLI(t, "render", quickstart)
	if dirOut != first {
		t.Fatal("rendering the directory differs from rendering its files")
	}
}

func TestRenderToDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errOut := runCLI(t, "render", "--output-dir", dir, quickstart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("render -o wrote to stdout: %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "kustomization.yaml")); err != nil {
		t.Fatalf("no kustomization.yaml: %v", err)
	}
	// The directory holds exactly what the stream holds.
	code, diffOut, errOut := runCLI(t, "diff", "--against", dir, "--exit-code", quickstart)
	if code != 0 {
		t.Fatalf("diff --against a fresh render: exit %d: %s%s", code, diffOut, errOut)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{
			name:   "missing input",
			args:   []string{"render", "does-not-exist"},
			code:   1,
			stderr: []string{"does-not-exist"},
		},
		{
			name:   "bad catalog flag",
			args:   []string{"render", "--catalog", "nonsense", quickstart},
			code:   1,
			stderr: []string{"nonsense"},
		},
		{
			name:   "no arguments",
			args:   []string{"render"},
			code:   1,
			stderr: []string{"render needs the input PATHs (or a project file, olm-render.yaml, listing clusters)"},
		},
		{
			name:   "diff errors exit 2",
			args:   []string{"diff", "--exit-code", "does-not-exist", quickstart},
			code:   2,
			stderr: []string{"does-not-exist"},
		},
		{
			name:   "unknown format",
			args:   []string{"diff", "-o", "xml", quickstart, quickstart},
			code:   2,
			stderr: []string{`unknown --output "xml"`},
		},
		{
			name:   "deprecated --format",
			args:   []string{"diff", "--format", "xml", quickstart, quickstart},
			code:   2,
			stderr: []string{"warning: --format is deprecated: use --output", `unknown --output "xml"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if tt.code != 0 && out != "" && tt.args[0] == "render" {
				t.Errorf("a failed render wrote to stdout: %q", out)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q does not contain %q", errOut, s)
				}
			}
		})
	}
}

func TestDiffExitCode(t *testing.T) {
	code, out, errOut := runCLI(t, "diff", "--exit-code", quickstart, quickstart)
	if code != 0 {
		t.Fatalf("identical inputs: exit %d: %s%s", code, out, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "olm-render ") {
		t.Fatalf("version: exit %d, %q", code, out)
	}
}

// TestArgoCDGenerate runs the plugin's generate command as Argo CD does: parameters in the
// environment, the source path as working directory; a failure leaves stdout empty.
func TestArgoCDGenerate(t *testing.T) {
	t.Setenv("PARAM_PATH", quickstart)
	code, out, errOut := runCLI(t, "argocd", "generate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Under Argo CD the render is prepared for Argo CD unless the for parameter says otherwise.
	_, want, _ := runCLI(t, "render", "--locked", "--for", "argocd", quickstart)
	if out != want || !strings.Contains(out, "argocd.argoproj.io/sync-wave") {
		t.Error("argocd generate differs from render --for argocd")
	}
	t.Setenv("PARAM_CATALOGS_0", "olm/examples=does-not-exist")
	code, out, errOut = runCLI(t, "argocd", "generate")
	if code == 0 || out != "" {
		t.Fatalf("a failed render: exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errOut, "does-not-exist") {
		t.Errorf("stderr does not say what failed: %s", errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quickstartTree copies the quickstart (inputs and catalog) into a temporary directory, which
// becomes the working directory, with the project file given; it returns the inputs' path.
func quickstartTree(t *testing.T, projectFile string) string {
	t.Helper()
	top := t.TempDir()
	for _, d := range []string{"input", "catalog"} {
		if err := os.CopyFS(filepath.Join(top, d), os.DirFS(filepath.Join("../../examples/quickstart", d))); err != nil {
			t.Fatal(err)
		}
	}
	if projectFile != "" {
		if err := os.WriteFile(filepath.Join(top, "olm-render.yaml"), []byte(projectFile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	return "input"
}

const projectHeader = "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\nmetadata: {name: test}\n"

// TestProjectOptions: the project file found above the inputs sets the options the command line
// leaves unset; a flag given overrides it; --project=none reads none.
func TestProjectOptions(t *testing.T) {
	in := quickstartTree(t, projectHeader+"options:\n  copiedCSVs: false\n")
	copies := func(args ...string) int {
		t.Helper()
		code, out, errOut := runCLI(t, append([]string{"render", "--no-lock"}, args...)...)
		if code != 0 {
			t.Fatalf("render %v: exit %d: %s", args, code, errOut)
		}
		return strings.Count(out, "olm.copiedFrom")
	}
	if n := copies(in); n != 0 {
		t.Errorf("the project's copiedCSVs: false left %d copied CSVs", n)
	}
	if n := copies("--copied-csvs=true", in); n == 0 {
		t.Error("--copied-csvs=true did not override the project file")
	}
	if n := copies("--project=none", in); n == 0 {
		t.Error("--project=none still read the project file")
	}
}

// TestProjectCatalogs: a project file binds a snapshot by its path, relative to the file, and a
// --catalog for the same CatalogSource overrides it.
func TestProjectCatalogs(t *testing.T) {
	in := quickstartTree(t, projectHeader+"catalogs:\n- {namespace: olm, name: examples, path: snapshots/quickstart}\n")
	if err := os.Rename("catalog", filepath.Join("snapshots", "quickstart")); err != nil {
		if err := os.MkdirAll("snapshots", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename("catalog", filepath.Join("snapshots", "quickstart")); err != nil {
			t.Fatal(err)
		}
	}
	// The annotation now points at nothing: only the project's binding can make this render.
	if code, _, errOut := runCLI(t, "render", "--no-lock", in); code != 0 {
		t.Fatalf("render with the project's binding: exit %d: %s", code, errOut)
	}
	// From another directory of the repository, the project's paths are still the project
	// file's.
	if err := os.Mkdir(".git", 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(in)
	if code, _, errOut := runCLI(t, "render", "--no-lock", "."); code != 0 {
		t.Fatalf("render from the inputs' directory: exit %d: %s", code, errOut)
	}
	t.Chdir("..")
	code, _, errOut := runCLI(t, "render", "--no-lock", "--catalog", "olm/examples=missing", in)
	if code == 0 || !strings.Contains(errOut, "--catalog olm/examples=missing") {
		t.Errorf("--catalog did not override the project's binding: exit %d: %s", code, errOut)
	}
}

// TestProjectMistakes: a project file's mistakes name the file, the field and the fix.
func TestProjectMistakes(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string
	}{
		{"unknown option", projectHeader + "options:\n  kubeVerison: v1.30.0\n",
			[]string{"olm-render.yaml: RenderConfig: options.kubeVerison: unknown field: did you mean options.kubeVersion?"}},
		{"bad value", projectHeader + "options:\n  olm: sometimes\n",
			[]string{`olm-render.yaml: options.olm: unknown OLM target "sometimes"`}},
		{"unknown cluster option", projectHeader + "clusters:\n- {name: a, path: input, options: {kubeVerison: v1}}\n",
			[]string{"clusters[0].options.kubeVerison: unknown field: did you mean clusters[0].options.kubeVersion?"}},
		{"cluster twice", projectHeader + "clusters:\n- {name: a, path: input}\n- {name: a, path: input}\n",
			[]string{`clusters[1].name: cluster "a" is declared twice`}},
		{"cluster path leaving the project", projectHeader + "clusters:\n- {name: a, path: ../elsewhere}\n",
			[]string{`clusters[0].path: "../elsewhere" leaves the project's directory`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := quickstartTree(t, tt.file)
			code, out, errOut := runCLI(t, "render", "--no-lock", in)
			if code == 0 || out != "" {
				t.Fatalf("exit %d with %d bytes on stdout, want a failure and nothing written", code, len(out))
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
}

// fleetTree copies examples/overlays into a temporary working directory with a project file
// listing its two overlays as clusters.
func fleetTree(t *testing.T, clusters string) {
	t.Helper()
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "overlays"), os.DirFS("../../examples/overlays")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "olm-render.yaml"), []byte(projectHeader+clusters), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(top)
}

const twoClusters = `clusters:
- {name: staging, path: overlays/overlays/staging, outputDir: rendered/staging}
- {name: production, path: overlays/overlays/production, outputDir: rendered/production}
`

// TestFleetRender: with no PATH, render writes every cluster of the project into its outputDir
// (each as rendering its path alone would), --cluster only the ones named.
func TestFleetRender(t *testing.T) {
	fleetTree(t, twoClusters)
	code, _, errOut := runCLI(t, "render")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, c := range []string{"staging", "production"} {
		if !strings.Contains(errOut, "== cluster "+c) {
			t.Errorf("stderr does not introduce cluster %s: %s", c, errOut)
		}
		code, _, errOut := runCLI(t, "render", "--output-dir", "alone/"+c, "overlays/overlays/"+c)
		if code != 0 {
			t.Fatalf("render %s alone: exit %d: %s", c, code, errOut)
		}
		if a, b := treeText(t, "rendered/"+c), treeText(t, "alone/"+c); a != b {
			t.Errorf("cluster %s rendered in the fleet differs from its render alone", c)
		}
	}
	if err := os.RemoveAll("rendered"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "render", "--cluster", "production"); code != 0 {
		t.Fatalf("--cluster production: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat("rendered/staging"); err == nil {
		t.Error("--cluster production rendered staging too")
	}
	if _, err := os.Stat("rendered/production/kustomization.yaml"); err != nil {
		t.Errorf("--cluster production: %v", err)
	}
}

// TestFleetMistakes: a fleet run's mistakes name the cluster and the fix, and exit non-zero.
func TestFleetMistakes(t *testing.T) {
	tests := []struct {
		name, clusters string
		args           []string
		want           string
	}{
		{"unknown cluster", twoClusters, []string{"render", "--cluster", "stagign"}, "--cluster stagign: olm-render.yaml declares no such cluster: did you mean staging?"},
		{"--output-dir", twoClusters, []string{"render", "--output-dir", "out"}, "--output-dir: a fleet writes each cluster to the outputDir olm-render.yaml gives it"},
		{"no outputDir", "clusters:\n- {name: a, path: overlays/overlays/staging}\n", []string{"render"}, "clusters a: outputDir is required to render a fleet"},
		{"a failing cluster", "clusters:\n- {name: a, path: overlays/overlays/missing, outputDir: out/a}\n", []string{"render"}, "overlays/overlays/missing"},
		{"diff without --base", twoClusters, []string{"diff"}, "compares each cluster's outputDir with --base REV"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fleetTree(t, tt.clusters)
			code, _, errOut := runCLI(t, tt.args...)
			if code == 0 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want a failure naming %q", code, errOut, tt.want)
			}
		})
	}
}

// TestFleetClusterOptions: a cluster's own options override the project's for that cluster
// only, and a bad one is reported under the cluster.
func TestFleetClusterOptions(t *testing.T) {
	fleetTree(t, "options: {olm: absent}\n"+strings.Replace(twoClusters, "outputDir: rendered/production}", "outputDir: rendered/production, options: {olm: never}}", 1))
	code, _, errOut := runCLI(t, "render")
	if code == 0 || !strings.Contains(errOut, `olm-render.yaml: clusters[production].options.olm: unknown OLM target "never"`) {
		t.Errorf("exit %d, stderr %q: want production's bad option named", code, errOut)
	}
	if _, err := os.Stat("rendered/staging/kustomization.yaml"); err != nil {
		t.Errorf("staging, whose options are good, was not rendered: %v", err)
	}
}

// treeText is every file under dir, by name, as one text.
func treeText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		b.WriteString("== " + rel + "\n" + string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

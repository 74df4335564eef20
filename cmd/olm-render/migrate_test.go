package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
)

// TestMigrateCheckCorpus: migrate check -o json over the head of every package of the corpus, in
// each install mode it supports (one input set per mode, so that no two Subscriptions share a
// package), as golden files; a set holding a Subscription OLM v1 refuses exits 1.
func TestMigrateCheckCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	operators := filepath.Join(fixture.Corpus(t), "operators")
	src, err := catalog.Load(operators)
	if err != nil {
		t.Fatal(err)
	}
	byMode := map[string][]fixture.Case{}
	for _, tc := range fixture.InstallModeCases(t, src) {
		// Packages whose head needs what no catalog of the corpus provides fail OLM v0's
		// resolution; OLM v1 refuses them for their dependencies all the same.
		byMode[string(tc.Mode)] = append(byMode[string(tc.Mode)], tc)
	}
	for mode, cases := range byMode {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			for i, tc := range cases {
				var sources []map[string]any
				if i == 0 {
					// By digest, as a ClusterCatalog needs it: the snapshot bound to it records none.
					sources = append(sources, fixture.CatalogSource("operators", "", "registry.example.com/olm/catalog@sha256:"+strings.Repeat("0", 64)))
				}
				sub := filepath.Join(dir, tc.Package)
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				fixture.WriteInputs(t, sub, tc, sources...)
			}
			t.Chdir(dir)
			code, out, errOut := runCLI(t, "migrate", "check", "-o", "json", "--catalog", "olm/operators="+operators, ".")
			if code > 1 || !strings.HasPrefix(out, "[") {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if wantRefused := strings.Contains(out, `"verdict": "refused"`); wantRefused != (code == 1) {
				t.Errorf("exit %d with refused verdicts %v", code, wantRefused)
			}
			// Reasons cite the corpus's own files relative to the working directory: the same
			// golden file wherever the corpus is checked out.
			if rel, err := filepath.Rel(dir, operators); err == nil {
				out = strings.ReplaceAll(out, `"`+rel+`/`, `"$CORPUS/`)
			}
			name := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(mode, "Namespaces"), "Namespace"))
			golden(t, filepath.Join(testdata, "migrate", "corpus-"+name+".json"), out)
		})
	}
}

// TestMigratePlanRefused: the plan of inputs v1 refuses entirely names no step and keeps the
// Subscription with OLM v0; migrate check names the refusal and exits 1.
func TestMigratePlanRefused(t *testing.T) {
	code, out, errOut := runCLI(t, "migrate", "check", quickstart)
	if code != 1 || !strings.Contains(out, "refused") || !strings.Contains(out, "olm.gvk.required") {
		t.Errorf("migrate check of the quickstart: exit %d\n%s%s", code, out, errOut)
	}
	dir := filepath.Join(t.TempDir(), "plan")
	if code, _, errOut := runCLI(t, "migrate", "plan", "--output-dir", dir, quickstart); code != 0 {
		t.Fatalf("migrate plan: exit %d: %s", code, errOut)
	}
	diff, err := os.ReadFile(filepath.Join(dir, "diff.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(diff), "## Left to OLM v0") || !strings.Contains(string(diff), "operators/widget-operator") {
		t.Errorf("the plan does not leave widget-operator to OLM v0:\n%s", diff)
	}
	steps, _ := os.ReadFile(filepath.Join(dir, "steps.md"))
	if strings.Contains(string(steps), "kubectl") {
		t.Errorf("steps for Subscriptions v1 refuses:\n%s", steps)
	}
}

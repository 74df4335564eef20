package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateOLMv1 = flag.Bool("update-olmv1", false, "rewrite examples/olmv1's plan/ and rendered-v1/")

// TestOLMv1Example runs examples/olmv1's commands in a copy of the examples: migrate check finds
// kube-green eligible, and migrate plan and the --olm=v1 render write what is committed.
func TestOLMv1Example(t *testing.T) {
	bin := buildBinary(t)
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "examples"), os.DirFS(filepath.Join(repo, "examples"))); err != nil {
		t.Fatal(err)
	}
	gitInit(t, top)
	dir := filepath.Join(top, "examples", "olmv1")
	env := append(os.Environ(), "OLM_RENDER_CACHE="+t.TempDir(), "HOME="+top)
	if out := runIn(t, dir, env, bin, "migrate", "check", "-o", "json", "v0/"); !strings.Contains(out, `"verdict": "eligible"`) {
		t.Errorf("migrate check does not find kube-green eligible:\n%s", out)
	}
	for _, d := range []string{"plan", "rendered-v1"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	runIn(t, dir, env, bin, "migrate", "plan", "--output-dir", "plan", "v0/")
	runIn(t, dir, env, bin, "render", "--olm=v1", "--locked", "--output-dir", "rendered-v1", "v0/")
	for _, d := range []string{"plan", "rendered-v1"} {
		want := filepath.Join(repo, "examples", "olmv1", d)
		if *updateOLMv1 {
			if err := os.RemoveAll(want); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(want, os.DirFS(filepath.Join(dir, d))); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if treeText(t, filepath.Join(dir, d)) != treeText(t, want) {
			t.Errorf("examples/olmv1/%s is not what the commands write now: go test ./test/e2e -run TestOLMv1Example -update-olmv1, and read the diff", d)
		}
	}
}

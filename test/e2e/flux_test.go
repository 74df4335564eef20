package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFluxRenderedIsCurrent keeps examples/flux/rendered equal to what `olm-render render --output-dir`
// produces from examples/flux/inputs.
func TestFluxRenderedIsCurrent(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "rendered")
	inputs := filepath.Join(repo, "examples", "flux", "inputs")
	cmd := exec.Command(bin, "render", "--locked", "--output-dir", out, inputs)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("render: %v\n%s", err, b)
	}
	cmd = exec.Command(bin, "diff", "--exit-code", filepath.Join(repo, "examples", "flux", "rendered"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("examples/flux/rendered is stale; regenerate with\n  bin/olm-render render --locked --output-dir examples/flux/rendered examples/flux/inputs\n%s", b)
	}
	want, _ := os.ReadFile(filepath.Join(repo, "examples", "flux", "rendered", "kustomization.yaml"))
	got, _ := os.ReadFile(filepath.Join(out, "kustomization.yaml"))
	if string(want) != string(got) {
		t.Error("examples/flux/rendered/kustomization.yaml is stale")
	}
}

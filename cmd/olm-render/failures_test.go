package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture"
)

// TestFailureExitCodes: each OLM failure reason exits 1 with the reason, OLM's message and the
// file, and writes nothing; --allow-failed renders the Failed CSV instead.
func TestFailureExitCodes(t *testing.T) {
	tests := []struct{ dir, reason, message string }{
		{"fail-unsupported", "UnsupportedOperatorGroup", "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces"},
		{"fail-no-targets", "NoTargetNamespaces", "no targetNamespaces are matched operatorgroups namespace selection"},
		{"fail-owner-conflict", "InterOperatorGroupOwnerConflict", "intersecting operatorgroups provide the same apis"},
		{"fail-static-apis", "CannotModifyStaticOperatorGroupProvidedAPIs", "static provided api operatorgroup cannot be modified by these apis"},
	}
	// The inputs name the corpus at its conventional place; --catalog binds it wherever it is.
	args := []string{"render", "--root", "/", "--no-lock", "--catalog", "olm/community=" + filepath.Join(fixture.Corpus(t), "operators")}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			dir := filepath.Join("..", "..", "render", "testdata", tt.dir, "input")
			code, out, errOut := runCLI(t, append(args, dir)...)
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %d bytes", code, len(out))
			}
			for _, want := range []string{tt.reason, tt.message, "input.yaml"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr does not contain %q:\n%s", want, errOut)
				}
			}
			code, out, errOut = runCLI(t, append(args, "--allow-failed", dir)...)
			if code != 0 || !strings.Contains(out, "reason: "+tt.reason) || !strings.Contains(out, "phase: Failed") {
				t.Fatalf("--allow-failed: exit %d: %s", code, errOut)
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lockInputs copies the quickstart inputs and catalog into a temp dir, starting widget-operator
// at 0.1.0, makes it the working directory (and so the root) and returns the inputs' path.
func lockInputs(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "catalog"), os.DirFS("../../examples/quickstart/catalog")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "input")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"namespaces.yaml", "operatorgroup.yaml", "catalogsource.yaml", "subscription.yaml"} {
		data, err := os.ReadFile(filepath.Join(quickstart, name))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(data), "  installPlanApproval: Automatic", "  installPlanApproval: Automatic\n  startingCSV: widget-operator.v0.1.0")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	return "input"
}

func TestLockUpgradeLoop(t *testing.T) {
	dir := lockInputs(t)
	if code, _, errOut := runCLI(t, "render", "--locked", dir); code != 1 || !strings.Contains(errOut, "olm-render.lock.yaml does not exist") {
		t.Fatalf("render --locked without a lock: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "lock", dir)
	if code != 0 || !strings.Contains(out, "operators/widget-operator: added widget-operator.v0.1.0") {
		t.Fatalf("lock: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "render", "--locked", dir)
	if code != 0 || !strings.Contains(out, "name: widget-operator.v0.1.0") {
		t.Fatalf("render --locked: exit %d: %s", code, errOut)
	}
	code, out, _ = runCLI(t, "upgrade", "--all", "--dry-run", "-i", dir)
	if code != 0 || !strings.Contains(out, "operators/widget-operator: widget-operator.v0.1.0 → widget-operator.v0.2.0") {
		t.Fatalf("upgrade --dry-run: exit %d\n%s", code, out)
	}
	if _, out, _ := runCLI(t, "render", "--locked", dir); !strings.Contains(out, "name: widget-operator.v0.1.0") {
		t.Fatal("--dry-run changed the lock")
	}
	if code, out, errOut := runCLI(t, "upgrade", "--all", "-i", dir); code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errOut)
	}
	if _, out, _ := runCLI(t, "render", "--locked", dir); !strings.Contains(out, "name: widget-operator.v0.2.0") || !strings.Contains(out, "replaces: widget-operator.v0.1.0") {
		t.Fatal("the upgraded lock does not render widget-operator.v0.2.0 replacing v0.1.0")
	}
	if code, out, _ := runCLI(t, "upgrade", "--all", "-i", dir); code != 0 || !strings.Contains(out, "nothing to upgrade") {
		t.Fatalf("upgrade at the head: exit %d\n%s", code, out)
	}
	sub := filepath.Join(dir, "subscription.yaml")
	data, _ := os.ReadFile(sub)
	if err := os.WriteFile(sub, []byte(strings.ReplaceAll(string(data), "channel: stable", "channel: beta")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "render", "--locked", dir); code != 1 || !strings.Contains(errOut, `spec.channel "stable" → "beta"`) {
		t.Fatalf("render --locked with a stale lock: exit %d: %s", code, errOut)
	}
}

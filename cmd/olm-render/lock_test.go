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
	code, out, _ = runCLI(t, "upgrade", "--all", "--dry-run", dir)
	if code != 0 || !strings.Contains(out, "operators/widget-operator: widget-operator.v0.1.0 → widget-operator.v0.2.0") {
		t.Fatalf("upgrade --dry-run: exit %d\n%s", code, out)
	}
	if _, out, _ := runCLI(t, "render", "--locked", dir); !strings.Contains(out, "name: widget-operator.v0.1.0") {
		t.Fatal("--dry-run changed the lock")
	}
	if code, out, errOut := runCLI(t, "upgrade", "--all", dir); code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errOut)
	}
	if _, out, _ := runCLI(t, "render", "--locked", dir); !strings.Contains(out, "name: widget-operator.v0.2.0") || !strings.Contains(out, "replaces: widget-operator.v0.1.0") {
		t.Fatal("the upgraded lock does not render widget-operator.v0.2.0 replacing v0.1.0")
	}
	if code, out, _ := runCLI(t, "upgrade", "--all", dir); code != 0 || !strings.Contains(out, "nothing to upgrade") {
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

// editFile replaces old by new in a file of the test's inputs.
func editFile(t *testing.T, path, old, new string) {
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

// TestLockTrapManualMovesNothing: switching a Subscription to Manual changes the recorded intent
// only; the locked version does not move (a newer one is in the channel).
func TestLockTrapManualMovesNothing(t *testing.T) {
	dir := lockInputs(t)
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %s", errOut)
	}
	editFile(t, filepath.Join(dir, "subscription.yaml"), "installPlanApproval: Automatic", "installPlanApproval: Manual")
	if code, _, errOut := runCLI(t, "render", "--locked", dir); code != 1 || !strings.Contains(errOut, "run `olm-render lock input`") {
		t.Fatalf("render --locked after the edit: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, "lock", dir)
	if code != 0 || strings.Contains(out, "→") {
		t.Fatalf("lock moved a version: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "render", "--locked", dir); code != 0 || !strings.Contains(out, "name: widget-operator.v0.1.0") {
		t.Fatalf("render --locked: exit %d: %s", code, errOut)
	}
}

// TestLockTrapChangedSubscriptionOnly: the stale-lock hint's command updates what changed and
// nothing else: a new Subscription resolves while the locked one keeps its version; a changed one
// re-resolves alone; `lock --upgrade` resolves everything afresh.
func TestLockTrapChangedSubscriptionOnly(t *testing.T) {
	dir := lockInputs(t)
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %s", errOut)
	}
	fixtureWrite(t, filepath.Join(dir, "second.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: second}\n---\n"+
		"apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: second}\n---\n"+
		"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: widget, namespace: second}\n"+
		"spec: {name: widget-operator, channel: stable, source: examples, sourceNamespace: olm}\n")
	code, out, errOut := runCLI(t, "lock", dir)
	if code != 0 || !strings.Contains(out, "second/widget: added widget-operator.v0.2.0") || strings.Contains(out, "operators/widget-operator:") {
		t.Fatalf("lock with a new Subscription: exit %d\n%s%s", code, out, errOut)
	}
	editFile(t, filepath.Join(dir, "subscription.yaml"), "\n  startingCSV: widget-operator.v0.1.0", "")
	code, out, errOut = runCLI(t, "lock", dir)
	if code != 0 || !strings.Contains(out, "operators/widget-operator: widget-operator.v0.1.0 → widget-operator.v0.2.0") || strings.Contains(out, "second/widget:") {
		t.Fatalf("lock after a change: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "lock", "--upgrade", dir); code != 0 || !strings.Contains(out, "(0 changes)") {
		t.Fatalf("lock --upgrade at the heads: exit %d\n%s%s", code, out, errOut)
	}
}

// TestLockTrapTwoCatalogsOneDependency: with two CatalogSources that both carry the dependency,
// the locked dependency keeps its catalog, so render --locked and lock agree.
func TestLockTrapTwoCatalogsOneDependency(t *testing.T) {
	dir := lockInputs(t)
	if err := os.CopyFS("catalog2", os.DirFS("catalog")); err != nil {
		t.Fatal(err)
	}
	fixtureWrite(t, filepath.Join(dir, "catalog2.yaml"), "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\n"+
		"metadata: {name: mirror, namespace: olm, annotations: {olm-render.dev/catalog: ../catalog2}}\nspec: {sourceType: grpc, priority: 10}\n")
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %s", errOut)
	}
	for i := range 2 {
		if code, _, errOut := runCLI(t, "render", "--locked", dir); code != 0 {
			t.Fatalf("render --locked (%d): exit %d: %s", i, code, errOut)
		}
		if code, out, errOut := runCLI(t, "lock", dir); code != 0 || !strings.Contains(out, "(0 changes)") {
			t.Fatalf("lock again (%d): exit %d\n%s%s", i, code, out, errOut)
		}
	}
}

func fixtureWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLockEditedByHand: a lock entry edited by hand in a field no resolution reads (its package,
// its catalog) keeps the versions, but render --locked refuses it, since `lock` would rewrite it;
// a plain render rewrites it.
func TestLockEditedByHand(t *testing.T) {
	dir := lockInputs(t)
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	path := filepath.Join(dir, "olm-render.lock.yaml")
	data, _ := os.ReadFile(path)
	edited := strings.Replace(string(data), "\n    package: widget-operator\n", "\n    package: gadget-operator\n", 1)
	if edited == string(data) {
		t.Fatal("the lock has no package field to edit")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "render", "--locked", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, "olm-render.lock.yaml differs from what `olm-render lock input` writes") {
		t.Fatalf("render --locked with an edited lock: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "render", dir); code != 0 || !strings.Contains(errOut, "wrote ") {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	if now, _ := os.ReadFile(path); string(now) != string(data) {
		t.Errorf("render did not restore the lock:\n%s", now)
	}
}

// TestLockRefusesDowngradeWhereOLMRuns: with --olm=running, a lock that would move a CSV back
// (here lock --upgrade resolving afresh to the startingCSV below what is locked) is refused,
// naming the Subscription, both versions and what OLM supports instead; with --olm=absent the
// render is the install, and the lock moves.
func TestLockRefusesDowngradeWhereOLMRuns(t *testing.T) {
	in := lockInputs(t)
	for _, args := range [][]string{{"lock", in}, {"upgrade", "--all", in}} {
		if code, _, errOut := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	code, _, errOut := runCLI(t, "lock", "--upgrade", "--olm=running", in)
	for _, want := range []string{
		"Subscription operators/widget-operator: the lock would move widget-operator 0.2.0 back to 0.1.0",
		"OLM v0 never downgrades an installed CSV",
		"uninstall and reinstall",
	} {
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("lock --upgrade --olm=running: exit %d, stderr %q; want a refusal saying %q", code, errOut, want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(in, "olm-render.lock.yaml")); err != nil || !strings.Contains(string(data), "bundle: widget-operator.v0.2.0") {
		t.Errorf("the refused lock was written anyway: %v\n%s", err, data)
	}
	if code, _, errOut := runCLI(t, "lock", "--upgrade", "--olm=absent", in); code != 0 {
		t.Errorf("lock --upgrade --olm=absent: exit %d: %s", code, errOut)
	}
}

// TestUpgradeAllManualWhereOLMRuns: upgrade --all holds a Manual Subscription, but with
// --olm=running (every Subscription is applied Manual there, and the pull request moving the
// lock is the approval) it moves it.
func TestUpgradeAllManualWhereOLMRuns(t *testing.T) {
	dir := lockInputs(t)
	editFile(t, filepath.Join(dir, "subscription.yaml"), "installPlanApproval: Automatic", "installPlanApproval: Manual")
	if code, _, errOut := runCLI(t, "lock", dir); code != 0 {
		t.Fatalf("lock: %s", errOut)
	}
	code, out, errOut := runCLI(t, "upgrade", "--all", "--dry-run", dir)
	if code != 0 || !strings.Contains(out, "held operators/widget-operator: installPlanApproval is Manual") {
		t.Errorf("upgrade --all: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "upgrade", "--all", "--olm=running", dir)
	if code != 0 || !strings.Contains(out, "operators/widget-operator: widget-operator.v0.1.0 → widget-operator.v0.2.0") {
		t.Errorf("upgrade --all --olm=running: exit %d\n%s%s", code, out, errOut)
	}
}

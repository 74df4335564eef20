package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/olm-render/olm-render/diff"
)

// diffCase returns the before and after renders of a golden case of diff.
func diffCase(name string) (string, string) {
	dir := filepath.Join("..", "..", "diff", "testdata", name)
	return filepath.Join(dir, "before.yaml"), filepath.Join(dir, "after.yaml")
}

// TestDiffFailOn checks the exit status and the reasons of --fail-on, alone and with
// --exit-code.
func TestDiffFailOn(t *testing.T) {
	tests := []struct {
		name     string
		diffCase string
		flags    []string
		// reverse compares after with before.
		reverse bool
		code    int
		stderr  []string
	}{
		{name: "image-only upgrade passes the gates", diffCase: "quickstart-upgrade",
			flags: []string{"--fail-on", "permission-growth,crd-breaking", "--exit-code=false"}, code: 0},
		{name: "a change exits 1, as kubectl diff", diffCase: "quickstart-upgrade",
			flags: []string{"--fail-on", "permission-growth", "--fail-on", "crd-breaking"}, code: 1},
		{name: "crd-breaking fires", diffCase: "crd-breaking",
			flags: []string{"--fail-on", "permission-growth,crd-breaking"}, code: 3,
			stderr: []string{"crd-breaking: operator ops/hawtio-operator: CustomResourceDefinition/hawtios.hawt.io: v1alpha1: field spec.rbac.enabled: removed"}},
		{name: "permission-growth fires", diffCase: "permission-growth",
			flags: []string{"--fail-on=permission-growth", "--exit-code"}, code: 3,
			stderr: []string{
				"permission-growth: operator ops/debezium-operator: ServiceAccount/ops/debezium-operator: ops/debezium-operator gains create,delete,get,list,patch,update,watch on services in namespace ops",
				"permission-growth: operator ops/debezium-operator: ServiceAccount/ops/debezium-operator: ops/debezium-operator gains create,delete,get,list,patch,update,watch on services in namespace team-a",
			}},
		{name: "install-mode-change fires", diffCase: "etcd-0.9.0-to-0.9.2",
			flags: []string{"--fail-on", "install-mode-change"}, code: 3,
			stderr: []string{"install-mode-change: operator ops/etcd: ClusterServiceVersion/ops/etcdoperator.v0.9.2: AllNamespaces: supported → not supported"}},
		{name: "any-change fires", diffCase: "quickstart-upgrade",
			flags: []string{"--fail-on", "any-change"}, code: 3,
			stderr: []string{"any-change: operator operators/widget-operator: Deployment/operators/widget-operator: modified"}},
		{name: "a lock bump where OLM runs passes the pull-request workflow's gates", diffCase: "openshift-lock-bump",
			flags: []string{"--exit-code=false", "--fail-on", "permission-growth,crd-breaking,downgrade"}, code: 0},
		{name: "downgrade fires where OLM runs: the predicted CSV and the Subscription's lock", diffCase: "openshift-lock-bump", reverse: true,
			flags: []string{"--fail-on", "downgrade"}, code: 3,
			stderr: []string{
				"downgrade: operator kube-green/kube-green: ClusterServiceVersion/kube-green/kube-green.v0.7.0: goes back from kube-green.v0.7.1 (0.7.1) to kube-green.v0.7.0 (0.7.0)",
				"downgrade: operator kube-green/kube-green: Subscription/kube-green/kube-green: the lock (spec.startingCSV) goes back from kube-green.v0.7.1 (0.7.1) to kube-green.v0.7.0 (0.7.0): OLM never downgrades an installed CSV, so it will not install it",
			}},
		{name: "downgrade fires where OLM does not run", diffCase: "etcd-0.9.2-to-0.9.4", reverse: true,
			flags: []string{"--fail-on", "downgrade"}, code: 3,
			stderr: []string{"downgrade: operator ops/etcd: ClusterServiceVersion/ops/etcdoperator.v0.9.2: goes back from etcdoperator.v0.9.4 (0.9.4) to etcdoperator.v0.9.2 (0.9.2)"}},
		{name: "nothing changed", diffCase: "nochange",
			flags: []string{"--fail-on", "any-change", "--exit-code"}, code: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, after := diffCase(tt.diffCase)
			if tt.reverse {
				before, after = after, before
			}
			code, out, errOut := runCLI(t, append(append([]string{"diff"}, tt.flags...), before, after)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, errOut)
			}
			if out == "" {
				t.Error("no report on stdout")
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			for _, want := range tt.stderr {
				if !contains(lines, want) {
					t.Errorf("stderr lacks the line %q:\n%s", want, errOut)
				}
			}
			if tt.stderr == nil && errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
		})
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestDiffFailOnUnknownGate checks that an unknown gate is an error (exit 2) naming the valid
// gates, reported before anything is read.
func TestDiffFailOnUnknownGate(t *testing.T) {
	code, out, errOut := runCLI(t, "diff", "--fail-on", "crd-breaking,permissions", "does-not-exist", "does-not-exist")
	if code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, errOut)
	}
	want := `error: --fail-on: unknown gate "permissions": valid gates are any-change, crd-breaking, dependency-change, downgrade, install-mode-change, permission-growth, webhook-change` + "\n"
	if errOut != want || out != "" {
		t.Errorf("stdout %q, stderr %q; want stderr %q", out, errOut, want)
	}
}

// TestDiffGoldenReports checks the pull-request comment the command writes for the quickstart
// one-hop upgrade (diff's goldens cover the other formats) and the reasons it prints for
// a breaking CRD change.
func TestDiffGoldenReports(t *testing.T) {
	before, after := diffCase("quickstart-upgrade")
	code, out, errOut := runCLI(t, "diff", "--format", "markdown", "--title", "widget-operator upgrade", before, after)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, filepath.Join("diff", "quickstart.md"), out)
	before, after = diffCase("crd-breaking")
	code, _, errOut = runCLI(t, "diff", "--fail-on", "crd-breaking,permission-growth,webhook-change,dependency-change,install-mode-change", before, after)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	golden(t, filepath.Join("diff", "crd-breaking.stderr"), errOut)
}

// TestDiffAgainstKeepsTheLock: diff --against renders the inputs as render does, at the locked
// versions. The lock pins widget-operator 0.1.0 (the catalog's head when it was written); the
// catalog has moved on to 0.2.0 since; a committed render of the lock then shows no change.
func TestDiffAgainstKeepsTheLock(t *testing.T) {
	top := t.TempDir()
	quick := filepath.Join("..", "..", "examples", "quickstart")
	if err := os.CopyFS(filepath.Join(top, "input"), os.DirFS(filepath.Join(quick, "input"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(top, "input", "olm-render.lock.yaml")); err != nil {
		t.Fatal(err)
	}
	catalog := os.DirFS(filepath.Join(quick, "catalog"))
	if err := os.CopyFS(filepath.Join(top, "catalog"), catalog); err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(top, "catalog", "widget-operator", "0.2.0")
	if err := os.Rename(head, filepath.Join(top, "widget-0.2.0")); err != nil {
		t.Fatal(err)
	}
	input, out := filepath.Join(top, "input"), filepath.Join(top, "rendered")
	if code, _, errOut := runCLI(t, "lock", "--root", top, input); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	if err := os.Rename(filepath.Join(top, "widget-0.2.0"), head); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "render", "--root", top, "--locked", "--output-dir", out, input); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	code, stdout, errOut := runCLI(t, "diff", "--root", top, "--against", out, input)
	if code != 0 {
		t.Errorf("diff --against the locked render: exit %d\n%s%s", code, stdout, errOut)
	}
}

// TestDiffConfined: a rendered directory's files are read inside it (inside --root when given):
// a symlink leading out of it, a FIFO, or a side outside --root fail naming the path, and nothing
// of the file outside reaches the output.
func TestDiffConfined(t *testing.T) {
	top := t.TempDir()
	secret := filepath.Join(top, "secret.yaml")
	if err := os.WriteFile(secret, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leak, namespace: x}\ndata: {token: TOPSECRET}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, after := diffCase("quickstart-upgrade")
	mk := func(name string, extra func(dir string) error) string {
		dir := filepath.Join(top, "repo", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(after)
		if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := extra(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	link := mk("link", func(dir string) error { return os.Symlink(secret, filepath.Join(dir, "leak.yaml")) })
	fifo := mk("fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644) })
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"symlink out of the render", []string{before, link}, "leak.yaml: outside the root"},
		{"FIFO in the render", []string{before, fifo}, "pipe.yaml: not a regular file"},
		{"a side outside --root", []string{"--root", filepath.Join(top, "repo", "link"), before, link}, "outside the root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"diff"}, tt.args...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
			if strings.Contains(out+errOut, "TOPSECRET") {
				t.Fatal("the file outside reached the output")
			}
		})
	}
}

// TestDiffFailOnCompletesEveryGate: --fail-on completes every gate in the shell, and its usage
// names each.
func TestDiffFailOnCompletesEveryGate(t *testing.T) {
	code, out, errOut := runCLI(t, "__complete", "diff", "--fail-on", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	completed := strings.Split(out, "\n")
	usage := newDiffCommand().Flags().Lookup("fail-on").Usage
	for _, g := range diff.AllGates() {
		if !contains(completed, string(g)) {
			t.Errorf("--fail-on does not complete %s:\n%s", g, out)
		}
		if !strings.Contains(usage, string(g)) {
			t.Errorf("--fail-on's usage does not name %s: %q", g, usage)
		}
	}
	if !contains(completed, string(diff.GateDowngrade)) {
		t.Errorf("--fail-on does not complete downgrade:\n%s", out)
	}
}

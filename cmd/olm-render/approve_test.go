package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestApproveFlags: mistakes in approve's flags exit 1 before any cluster is reached, and say
// what to do.
func TestApproveFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "-o", "yaml"}, "-o/--output formats the report of --once"},
		{[]string{"approve", "--once", "-o", "text"}, `-o "text": the report's formats are table, yaml and json`},
		{[]string{"approve", "--once", "--kubeconfig", "does-not-exist.yaml"}, "does-not-exist.yaml"},
		{[]string{"approve", "operators"}, "unknown command"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 1 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestNoCluster: with no kubeconfig anywhere and outside a Pod, the commands that connect say
// how to name a cluster, not client-go's KUBERNETES_MASTER hint.
func TestNoCluster(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	const want = "no cluster to connect to: no $KUBECONFIG, no kubeconfig at "
	const howTo = "pass --kubeconfig FILE, set $KUBECONFIG, or run in a Pod with a service account"
	for _, args := range [][]string{
		{"approve", "--once"},
		{"approve"},
		{"import", "--output-dir", filepath.Join(t.TempDir(), "out")},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, args...)
			if code != 1 || out != "" || !strings.Contains(errOut, want) || !strings.Contains(errOut, howTo) || strings.Contains(errOut, "KUBERNETES_MASTER") {
				t.Fatalf("exit %d, stdout %q, stderr %q: want exit 1 and %q ... %q", code, out, errOut, want, howTo)
			}
		})
	}
}

package main

import (
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

package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// setBuild sets the build-time version and commit for the test.
func setBuild(t *testing.T, v, c string) {
	t.Helper()
	oldVersion, oldCommit := version, commit
	version, commit = v, c
	t.Cleanup(func() { version, commit = oldVersion, oldCommit })
}

func TestVersionText(t *testing.T) {
	setBuild(t, "v1.2.3", "0123abc")
	code, out, errOut := runCLI(t, "version")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "olm-render v1.2.3\ncommit: 0123abc\ngo: " + runtime.Version() + "\nplatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("version (-want +got):\n%s", diff)
	}
}

func TestVersionJSON(t *testing.T) {
	setBuild(t, "v1.2.3", "0123abc")
	code, out, errOut := runCLI(t, "version", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("version -o json: %v:\n%s", err, out)
	}
	want := map[string]string{"version": "v1.2.3", "commit": "0123abc", "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("version -o json (-want +got):\n%s", diff)
	}
}

func TestVersionBadFormat(t *testing.T) {
	code, out, errOut := runCLI(t, "version", "-o", "yaml")
	if code == 0 || out != "" || !strings.Contains(errOut, `--output "yaml": want text or json`) {
		t.Errorf("version -o yaml: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestVCSRevision(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{name: "none", want: "unknown"},
		{name: "clean", settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, want: "abc"},
		{name: "dirty", settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc"}}, want: "abc-dirty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := vcsRevision(tt.settings); got != tt.want {
				t.Errorf("vcsRevision = %q, want %q", got, tt.want)
			}
		})
	}
}

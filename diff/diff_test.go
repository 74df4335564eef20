package diff

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "update golden files")

// caseOptions is testdata/<case>/options.yaml.
type caseOptions struct {
	IgnoreKinds    []string `json:"ignoreKinds"`
	IgnoreFields   []string `json:"ignoreFields"`
	MarkdownBudget int      `json:"markdownBudget"`
	// Gates are the gates (other than any-change) expected to fire; none when absent.
	Gates []Gate `json:"gates"`
}

// TestDiffGolden compares each testdata/<case>/before.yaml with after.yaml and checks the text,
// Markdown and JSON reports against want.txt, want.md and want.json, and the gates that fire
// against options.yaml.
func TestDiffGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var opts caseOptions
			if data, err := os.ReadFile(filepath.Join(dir, "options.yaml")); err == nil {
				if err := yaml.Unmarshal(data, &opts); err != nil {
					t.Fatalf("options.yaml: %v", err)
				}
			}
			before, err := ReadDir(filepath.Join(dir, "before.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			after, err := ReadDir(filepath.Join(dir, "after.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compare(before, after, Options{IgnoreKinds: opts.IgnoreKinds, IgnoreFields: opts.IgnoreFields})
			if err != nil {
				t.Fatalf("Compare() error = %v", err)
			}
			var text, md, js bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteMarkdown(&md, "", opts.MarkdownBudget); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			if opts.MarkdownBudget > 0 && md.Len() > opts.MarkdownBudget {
				t.Errorf("markdown is %d bytes, over the budget of %d", md.Len(), opts.MarkdownBudget)
			}
			if got := r.Gates(); !slices.Equal(got, opts.Gates) {
				t.Errorf("gates = %v, want %v", got, opts.Gates)
			}
			golden(t, filepath.Join(dir, "want.txt"), text.Bytes())
			golden(t, filepath.Join(dir, "want.md"), md.Bytes())
			golden(t, filepath.Join(dir, "want.json"), js.Bytes())
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update to accept):\n%s", path, got)
	}
}

func TestDiffUpgradeExplained(t *testing.T) {
	before, _ := ReadDir(filepath.Join("testdata", "upgrade", "before.yaml"))
	after, _ := ReadDir(filepath.Join("testdata", "upgrade", "after.yaml"))
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Upgrades) != 1 {
		t.Fatalf("upgrades = %v, want one", r.Upgrades)
	}
	// The CSV and the Role (each pair one modification) and the Deployment belong to the
	// operator; the ConfigMap and the Secret do not.
	if got, want := r.Upgrades[0].String(), "etcdoperator.v0.9.2 → etcdoperator.v0.9.4 (replaces), 3 objects changed"; got != want {
		t.Errorf("upgrade = %q, want %q", got, want)
	}
}

func TestDiffSecretValuesNeverShown(t *testing.T) {
	before, _ := ReadDir(filepath.Join("testdata", "upgrade", "before.yaml"))
	after, _ := ReadDir(filepath.Join("testdata", "upgrade", "after.yaml"))
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	_ = r.WriteText(&all)
	_ = r.WriteMarkdown(&all, "", 0)
	_ = r.WriteJSON(&all)
	for _, secret := range []string{"c2VjcmV0LTE=", "c2VjcmV0LTI=", "dG9rZW4=", "YWRtaW4="} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("output contains the Secret value %q", secret)
		}
	}
	if !strings.Contains(all.String(), "*** (after)") {
		t.Error("the changed Secret key is not shown as masked")
	}
}

func TestDiffMarkdownBudgets(t *testing.T) {
	before, _ := ReadDir(filepath.Join("testdata", "budget", "before.yaml"))
	after, _ := ReadDir(filepath.Join("testdata", "budget", "after.yaml"))
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{100, 500, 1000, 2000, 3000, 5000, 10000, 20000, 65536} {
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md, "", budget); err != nil {
			t.Fatal(err)
		}
		if md.Len() > budget {
			t.Errorf("budget %d: wrote %d bytes", budget, md.Len())
		}
		if budget >= 1000 && !strings.Contains(md.String(), "Modified (30)") {
			t.Errorf("budget %d: summary missing:\n%s", budget, md.String())
		}
		if strings.Count(md.String(), "<details>") != strings.Count(md.String(), "</details>") {
			t.Errorf("budget %d: unbalanced <details>", budget)
		}
	}
}

func TestDiffFieldPaths(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "/metadata/labels/a~1b~0c", want: []string{"metadata", "labels", "a/b~c"}},
		{in: `metadata.labels["olm.deployment-spec-hash"]`, want: []string{"metadata", "labels", "olm.deployment-spec-hash"}},
		{in: "spec.template.spec.containers[0].image", want: []string{"spec", "template", "spec", "containers", "0", "image"}},
		{in: "a..b", wantErr: true},
		{in: "a[b", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseFieldPath(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseFieldPath(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("parseFieldPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDiffReadGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(src string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(repo, "rendered"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "rendered", "all.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write(filepath.Join("testdata", "upgrade", "before.yaml"))
	git("add", ".")
	git("commit", "-q", "-m", "before")
	write(filepath.Join("testdata", "upgrade", "after.yaml"))
	git("commit", "-q", "-am", "after")

	before, err := ReadGit(repo, "HEAD~1", "rendered")
	if err != nil {
		t.Fatal(err)
	}
	after, err := ReadGit(repo, "main", "rendered")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Summary(), "Added (0) / Deleted (0) / Modified (5)"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	if _, err := ReadGit(repo, "no-such-rev", "rendered"); err == nil {
		t.Error("ReadGit(no-such-rev) succeeded")
	}
}

func TestDiffDuplicateObjectsRejected(t *testing.T) {
	objs, _ := ReadDir(filepath.Join("testdata", "ignore", "before.yaml"))
	if _, err := Compare(append(objs, objs[0]), objs, Options{}); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("Compare() error = %v, want a duplicate error", err)
	}
}

package release

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/olm-render/olm-render/test/fixture"
)

// workflow is a GitHub Actions workflow, as far as ours and the examples' use it.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	RunsOn         string `yaml:"runs-on"`
	TimeoutMinutes int    `yaml:"timeout-minutes"`
	Steps          []step `yaml:"steps"`
}

type step struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	With map[string]any    `yaml:"with"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

// decodeStrict decodes the single YAML document of path into v, failing on unknown keys.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// workflowFiles returns the workflows of the repository and of the examples.
func workflowFiles(t *testing.T) []string {
	t.Helper()
	root := fixture.ModuleRoot(t)
	var files []string
	for _, dir := range []string{".github/workflows", "examples/github-actions"} {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Fatalf("no workflow in %s", dir)
		}
		files = append(files, matches...)
	}
	return files
}

// pinned matches a step's uses: an action at a tag or commit.
var pinned = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[\w.-]+$`)

// TestWorkflows: every workflow decodes, names its triggers and jobs, and each step either uses
// a pinned action or runs a script.
func TestWorkflows(t *testing.T) {
	for _, path := range workflowFiles(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			var w workflow
			decodeStrict(t, path, &w)
			if w.Name == "" || len(w.On) == 0 || len(w.Jobs) == 0 {
				t.Fatalf("name %q, %d triggers, %d jobs: want all three", w.Name, len(w.On), len(w.Jobs))
			}
			for name, j := range w.Jobs {
				checkJob(t, name, j)
			}
		})
	}
}

func checkJob(t *testing.T, name string, j job) {
	t.Helper()
	if j.RunsOn == "" || len(j.Steps) == 0 {
		t.Errorf("job %s: runs-on %q, %d steps", name, j.RunsOn, len(j.Steps))
	}
	for i, s := range j.Steps {
		switch {
		case (s.Uses == "") == (s.Run == ""):
			t.Errorf("job %s step %d (%s): want exactly one of uses and run", name, i, s.Name)
		case s.Uses != "" && !pinned.MatchString(s.Uses):
			t.Errorf("job %s step %d: uses %q: want owner/repo@version", name, i, s.Uses)
		}
	}
}

// stepUsing returns the first step of w's jobs that uses action (any version).
func stepUsing(t *testing.T, w workflow, action string) step {
	t.Helper()
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, action+"@") {
				return s
			}
		}
	}
	t.Fatalf("no step uses %s", action)
	return step{}
}

// TestGoreleaserVersion: the release workflow runs the goreleaser `make lint` checks the
// configuration with.
func TestGoreleaserVersion(t *testing.T) {
	root := fixture.ModuleRoot(t)
	var w workflow
	decodeStrict(t, filepath.Join(root, ".github", "workflows", "release.yaml"), &w)
	got := stepUsing(t, w, "goreleaser/goreleaser-action").With["version"]
	if want := makeVariable(t, "GORELEASER_VERSION"); got != want {
		t.Errorf("release.yaml runs goreleaser %v, the Makefile checks with %s", got, want)
	}
}

// makeVariable returns the value of a `NAME := value` line of the Makefile.
func makeVariable(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixture.ModuleRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*:?=\s*(\S+)\s*$`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("the Makefile sets no %s", name)
	}
	return string(m[1])
}

// TestUpgradeWorkflow: the upgrade example opens its pull request with a token other than
// GITHUB_TOKEN (a pull request GITHUB_TOKEN opens starts no workflow, so the gates would not
// run), and runs no script of its own: a user copies the file alone.
func TestUpgradeWorkflow(t *testing.T) {
	var w workflow
	decodeStrict(t, filepath.Join(fixture.ModuleRoot(t), "examples", "github-actions", "upgrade.yaml"), &w)
	token, _ := stepUsing(t, w, "peter-evans/create-pull-request").With["token"].(string)
	if token == "" || strings.Contains(token, "github.token") || strings.Contains(token, "GITHUB_TOKEN") {
		t.Errorf("create-pull-request token %q: want an App's or a personal access token", token)
	}
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, ".sh") {
				t.Errorf("step %q runs a script: %s", s.Name, s.Run)
			}
		}
	}
}

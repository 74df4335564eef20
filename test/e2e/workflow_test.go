package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yamlv3 "sigs.k8s.io/kustomize/kyaml/yaml"
)

// A GitHub Actions workflow of the examples, as far as a local run needs it.
type ghWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []ghStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

// expression is a GitHub Actions expression, ${{ ... }}.
var expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runWorkflow runs the run steps of a workflow's jobs in dir, as a runner would, with the
// environment given (olm-render on its PATH): the step that installs olm-render is skipped, a
// step using an action is left to the caller (dir is the checkout), $GITHUB_ENV and
// $GITHUB_PATH carry over to the following steps, and an expression takes its value from values
// (empty when it has none). It returns the actions the workflow uses, in order.
func runWorkflow(t *testing.T, path, dir string, env []string, values map[string]string) []string {
	t.Helper()
	var w ghWorkflow
	if err := yamlv3.Unmarshal([]byte(readFile(t, path)), &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	expand := func(s string) string {
		return expression.ReplaceAllStringFunc(s, func(m string) string { return values[expression.FindStringSubmatch(m)[1]] })
	}
	runnerTemp := t.TempDir()
	githubEnv, githubPath := filepath.Join(runnerTemp, "github-env"), filepath.Join(runnerTemp, "github-path")
	base := append(append([]string{}, env...), "RUNNER_TEMP="+runnerTemp, "GITHUB_ENV="+githubEnv, "GITHUB_PATH="+githubPath, "GITHUB_WORKSPACE="+dir)
	for k, v := range w.Env {
		base = append(base, k+"="+expand(v))
	}
	var uses []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			switch {
			case s.Uses != "":
				uses = append(uses, s.Uses)
				continue
			case strings.HasPrefix(s.Name, "Install olm-render"):
				continue
			}
			stepEnv := append(append([]string{}, base...), fileEnv(t, githubEnv)...)
			for k, v := range s.Env {
				stepEnv = append(stepEnv, k+"="+expand(v))
			}
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", expand(s.Run))
			cmd.Dir, cmd.Env = dir, stepEnv
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: step %q: %v\n%s", filepath.Base(path), s.Name, err, out.String())
			}
		}
	}
	return uses
}

// fileEnv reads a $GITHUB_ENV file: NAME=VALUE lines.
func fileEnv(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.Contains(line, "=") {
			out = append(out, line)
		}
	}
	return out
}

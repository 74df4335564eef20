package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/registrytest"
)

// The documents' commands run as printed. Every ```sh block of README.md, docs/*.md and
// examples/*/README.md runs, line by line, from the top of a copy of the checkout's examples
// (a `cd DIR` line moves the following lines of its block), with olm-render and kustomize on the
// PATH. ```shell blocks need what a test cannot have (a cluster, registry credentials) and say
// so where they stand; test/apiserver and test/oracle run their steps on a real API server.

// docFiles are the documents whose commands run, relative to the checkout's top.
func docFiles(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "examples/*/README.md"} {
		matches, err := filepath.Glob(filepath.Join(repo, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(repo, m)
			// TestRegistryExample runs its recipe, with the registry it starts.
			if rel = filepath.ToSlash(rel); rel != "examples/registry/README.md" {
				out = append(out, rel)
			}
		}
	}
	return out
}

// docBlocks extracts the ```sh blocks of a document: each a list of commands, one a line, with
// backslash continuations joined and trailing comments dropped.
func docBlocks(t *testing.T, doc string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, doc))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```")
	var out [][]string
	for _, m := range block.FindAllSubmatch(data, -1) {
		text := strings.ReplaceAll(string(m[1]), "\\\n", " ")
		var lines []string
		for _, line := range strings.Split(text, "\n") {
			line, _, _ = strings.Cut(line, "   #")
			line, _, _ = strings.Cut(line, "  # ")
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				lines = append(lines, line)
			}
		}
		out = append(out, lines)
	}
	return out
}

// skipped says why a line of a block is not run, or "".
func skipped(line string) string {
	switch {
	case strings.HasPrefix(line, "make "):
		return "CI itself runs make"
	}
	return ""
}

// servedIndex publishes the quickstart catalog as registry.example.com/olm-render/catalog:v1 (the
// README's example index image) in an in-process registry, and returns a registries.conf that
// sends registry.example.com/olm-render there.
func servedIndex(t *testing.T) string {
	t.Helper()
	reg := registrytest.Start(t)
	if _, err := reg.PublishCatalog(filepath.Join(repo, "examples", "quickstart", "catalog"), "registry.example.com/olm-render/catalog:v1"); err != nil {
		t.Fatal(err)
	}
	return registrytest.RegistriesConfRewrite(t, map[string]string{"registry.example.com/olm-render": reg.Host + "/olm-render"})
}

// docWorkspace is a copy of the checkout's examples in a Git work tree, with the binaries on
// the PATH of the environment it returns.
func docWorkspace(t *testing.T, bin, k, registriesConf string) (string, []string) {
	t.Helper()
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "examples"), os.DirFS(filepath.Join(repo, "examples"))); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(top, "bin")
	os.MkdirAll(binDir, 0o755)
	copyFile(t, bin, filepath.Join(binDir, "olm-render"))
	copyFile(t, k, filepath.Join(binDir, "kustomize"))
	gitInit(t, top)
	env := append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "OLM_RENDER_CACHE="+filepath.Join(t.TempDir(), "cache"),
		"CONTAINERS_REGISTRIES_CONF="+registriesConf, "REGISTRY_AUTH_FILE="+filepath.Join(t.TempDir(), "auth.json"))
	return top, env
}

// TestDocCommands runs every command of the documents' ```sh blocks, as written, each document
// in a fresh copy of the checkout's examples. The registry examples pull from an in-process
// registry that registries.conf serves under registry.example.com.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documents' commands")
	}
	k := kustomize(t)
	bin := buildBinary(t)
	conf := servedIndex(t)
	for _, doc := range docFiles(t) {
		blocks := docBlocks(t, doc)
		if len(blocks) == 0 {
			continue
		}
		t.Run(doc, func(t *testing.T) {
			top, env := docWorkspace(t, bin, k, conf)
			for _, block := range blocks {
				runBlock(t, top, env, block)
			}
		})
	}
}

// runBlock runs a block's lines from top, following its cd lines.
func runBlock(t *testing.T, top string, env, lines []string) {
	t.Helper()
	dir := top
	for _, line := range lines {
		if why := skipped(line); why != "" {
			t.Logf("skipped (%s): %s", why, line)
			continue
		}
		if to, ok := strings.CutPrefix(line, "cd "); ok {
			dir = filepath.Join(dir, strings.TrimSpace(to))
			continue
		}
		t.Run(line, func(t *testing.T) { runLine(t, dir, env, line) })
	}
}

// runLine runs one command line with bash; olm-render diff may exit 1 (the renders differ), as
// kubectl diff does.
func runLine(t *testing.T, dir string, env []string, line string) {
	t.Helper()
	cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if err != nil && !(code == 1 && strings.Contains(line, "olm-render diff")) {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitInit makes dir a Git work tree with one commit, so --base HEAD and the default root work.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "."},
		{"-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "examples"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

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

// readmeCommands extracts the commands of the README's ```sh blocks (```shell blocks need a live
// cluster and are left to test/apiserver): one a line, with
// backslash continuations joined and trailing comments dropped.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(.*?)```")
	var out []string
	for _, m := range block.FindAllSubmatch(data, -1) {
		text := strings.ReplaceAll(string(m[1]), "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			line, _, _ = strings.Cut(line, "   #")
			line, _, _ = strings.Cut(line, "  # ")
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
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

// TestREADMECommands runs every command of the README's ```sh blocks, as written, in a copy of
// the checkout's examples with the olm-render and kustomize binaries on the PATH: the `make`
// lines are what CI itself runs and are left out. The registry examples pull from an in-process
// registry that registries.conf serves under registry.example.com.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README")
	}
	k := kustomize(t)
	bin := buildBinary(t)
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
		"CONTAINERS_REGISTRIES_CONF="+servedIndex(t), "REGISTRY_AUTH_FILE="+filepath.Join(t.TempDir(), "auth.json"))
	for _, line := range readmeCommands(t) {
		if strings.HasPrefix(line, "make ") {
			continue
		}
		t.Run(line, func(t *testing.T) {
			cmd := exec.Command("bash", "-o", "pipefail", "-c", line)
			cmd.Dir, cmd.Env = top, env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			// diff exits 1 when the renders differ, as kubectl diff does.
			if err != nil && !(code == 1 && strings.Contains(line, "olm-render diff")) {
				t.Fatalf("exit %d:\n%s", code, stderr.String())
			}
		})
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

package e2e

import (
	"bufio"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// TestKustomizeContainerVariant builds examples/kustomize with the container variant of the
// function (olm-render.container.yaml) in place of the exec one, as its comment says, through a
// docker that runs the function as the container would (testdata/fakedocker: the mounts copied
// into a directory standing for the container's filesystem, no daemon): the binding names the
// base's CatalogSource, the mount brings its catalog, and the image is the release's.
func TestKustomizeContainerVariant(t *testing.T) {
	k := kustomize(t)
	bin := buildBinary(t)
	top := t.TempDir()
	for _, d := range []string{"kustomize", "overlays"} {
		if err := os.CopyFS(filepath.Join(top, d), os.DirFS(filepath.Join(repo, "examples", d))); err != nil {
			t.Fatal(err)
		}
	}
	edit(t, filepath.Join(top, "kustomize", "kustomization.yaml"), "- olm-render.yaml", "- olm-render.container.yaml")
	dockerDir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dockerDir, "docker"), "./test/e2e/testdata/fakedocker")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the fake docker: %v\n%s", err, out)
	}
	images := filepath.Join(t.TempDir(), "images")
	cmd := exec.Command(k, "build", "--enable-alpha-plugins", filepath.Join(top, "kustomize"))
	cmd.Env = append(os.Environ(), "PATH="+dockerDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FAKEDOCKER_OLM_RENDER="+bin, "FAKEDOCKER_IMAGES="+images)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kustomize build with the container variant: %v\n%s", err, stderr.String())
	}
	objs := parse(t, stdout.String())
	for _, want := range []string{"ClusterServiceVersion/operators/widget-operator.v0.1.0", "Deployment/operators/widget-operator", "ConfigMap/team-a/team-settings"} {
		if _, ok := objs[want]; !ok {
			t.Errorf("the container variant's build lacks %s", want)
		}
	}
	noBuildAnnotations(t, objs)
	var spec struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	readYAMLFile(t, filepath.Join(repo, "examples", "kustomize", "olm-render.container.yaml"), &spec)
	var fn struct {
		Container struct {
			Image string `json:"image"`
		} `json:"container"`
	}
	if err := yaml.Unmarshal([]byte(spec.Metadata.Annotations["config.kubernetes.io/function"]), &fn); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(images); strings.TrimSpace(string(got)) != fn.Container.Image {
		t.Errorf("docker ran %q, want the variant's image %s", got, fn.Container.Image)
	}
}

// noBuildAnnotations fails on any config.kubernetes.io annotation left on an object (kustomize's
// origin annotations, the function's paths).
func noBuildAnnotations(t *testing.T, objs map[string]object) {
	t.Helper()
	for key, o := range objs {
		for a := range o.Metadata.Annotations {
			if strings.Contains(a, "config.kubernetes.io/") {
				t.Errorf("%s carries %s", key, a)
			}
		}
	}
}

func readYAMLFile(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// shBlocks returns the ```sh blocks of a Markdown file, each with backslash continuations joined.
func shBlocks(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(data, -1) {
		var lines []string
		for _, l := range strings.Split(strings.ReplaceAll(string(m[1]), "\\\n", " "), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		out = append(out, lines)
	}
	return out
}

// TestRegistryExample runs the recipe of examples/registry/README.md as written: the first block
// (hack/serve-registry) from the top of the checkout, until it is ready; then the second in one
// shell, in a copy of the examples, with the olm-render just built on the PATH (its `make build`
// line is what the test did).
func TestRegistryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the registry example")
	}
	bin := buildBinary(t)
	blocks := shBlocks(t, filepath.Join(repo, "examples", "registry", "README.md"))
	if len(blocks) != 2 || len(blocks[0]) != 1 || !strings.Contains(blocks[0][0], "hack/serve-registry") {
		t.Fatalf("examples/registry/README.md: want a block starting hack/serve-registry, then the commands; got %q", blocks)
	}
	tmp := t.TempDir()
	serve := exec.Command("bash", "-c", "exec "+blocks[0][0])
	serve.Dir, serve.Env = repo, append(os.Environ(), "TMPDIR="+tmp)
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	serve.Stderr = os.Stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-serve.Process.Pid, syscall.SIGTERM)
		serve.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		var seen strings.Builder
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "ready") {
				ready <- seen.String()
				io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- ""
	}()
	select {
	case out := <-ready:
		if out == "" {
			t.Fatal("hack/serve-registry ended before it was ready")
		}
		t.Logf("hack/serve-registry:\n%s", out)
	case <-time.After(5 * time.Minute):
		t.Fatal("hack/serve-registry is not ready after 5 minutes")
	}

	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "examples"), os.DirFS(filepath.Join(repo, "examples"))); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(top, "examples", "registry", "input", "olm-render.lock.yaml"))
	os.MkdirAll(filepath.Join(top, "bin"), 0o755)
	copyFile(t, bin, filepath.Join(top, "bin", "olm-render"))
	var script strings.Builder
	script.WriteString("set -eo pipefail\n")
	for _, line := range blocks[1] {
		if strings.HasPrefix(line, "make ") {
			line = strings.TrimSpace(strings.TrimPrefix(line[strings.Index(line, "&&")+2:], " "))
		}
		script.WriteString("echo '+ " + strings.ReplaceAll(line, "'", `'\''`) + "' >&2\n" + line + "\n")
	}
	run := exec.Command("bash", "-c", script.String())
	run.Dir, run.Env = top, append(os.Environ(), "TMPDIR="+tmp)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("examples/registry/README.md: %v\n%s", err, out)
	}
	for _, want := range []string{"widget-operator.v0.2.0", "digestOf: image", "nothing to upgrade", "kind: ImageSetConfiguration", "wrote vendored: 2 packages"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the recipe's output lacks %q:\n%s", want, out)
		}
	}
}

// TestKustomizeCatalogIsTheBase: examples/kustomize/catalog, which both variants bind (the
// container variant mounts it), is the base's catalog snapshot, file for file.
func TestKustomizeCatalogIsTheBase(t *testing.T) {
	base, own := filepath.Join(repo, "examples", "overlays", "base", "catalog"), filepath.Join(repo, "examples", "kustomize", "catalog")
	files := func(dir string) map[string]string {
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := files(base), files(own); !maps.Equal(a, b) {
		t.Errorf("examples/kustomize/catalog differs from examples/overlays/base/catalog: copy it again (cp -r)")
	}
}

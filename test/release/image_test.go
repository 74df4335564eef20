package release

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/olm-render/olm-render/test/fixture"
)

// image is the repository the release pushes the image to.
const image = "ghcr.io/olm-render/olm-render"

// goreleaser is .goreleaser.yaml, as far as these tests read it.
type goreleaser struct {
	Builds []struct {
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	DockersV2 []struct {
		Images []string `yaml:"images"`
	} `yaml:"dockers_v2"`
}

// TestGoreleaserConfig: the binaries carry the version and commit `olm-render version` prints,
// and the image goes where the examples pull it from.
func TestGoreleaserConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixture.ModuleRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(g.Builds) == 0 || len(g.DockersV2) == 0 {
		t.Fatalf("%d builds, %d dockers_v2: want both", len(g.Builds), len(g.DockersV2))
	}
	for _, b := range g.Builds {
		flags := strings.Join(b.Ldflags, " ")
		for _, v := range []string{"-X main.version=", "-X main.commit="} {
			if !strings.Contains(flags, v) {
				t.Errorf("ldflags %q do not set %s", flags, v)
			}
		}
	}
	for _, d := range g.DockersV2 {
		if !slices.Contains(d.Images, image) {
			t.Errorf("dockers_v2 images %v: want %s", d.Images, image)
		}
	}
}

// TestExamplesPinOneRelease: the example workflows install the same release, and the Argo CD
// sidecar and the KRM container function run its image.
func TestExamplesPinOneRelease(t *testing.T) {
	root := fixture.ModuleRoot(t)
	var render, upgrade workflow
	decodeStrict(t, filepath.Join(root, "examples", "github-actions", "render.yaml"), &render)
	decodeStrict(t, filepath.Join(root, "examples", "github-actions", "upgrade.yaml"), &upgrade)
	version := render.Env["OLM_RENDER_VERSION"]
	if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(version) || upgrade.Env["OLM_RENDER_VERSION"] != version {
		t.Fatalf("OLM_RENDER_VERSION %q (render.yaml), %q (upgrade.yaml): want one release tag", version, upgrade.Env["OLM_RENDER_VERSION"])
	}
	want := image + ":" + version
	if got := sidecarImage(t, filepath.Join(root, "examples", "argocd", "repo-server-patch.yaml")); got != want {
		t.Errorf("Argo CD sidecar image %s, want %s", got, want)
	}
	if got := functionImage(t, filepath.Join(root, "examples", "kustomize", "olm-render.container.yaml")); got != want {
		t.Errorf("KRM function image %s, want %s", got, want)
	}
}

// sidecarImage returns the image of the olm-render container of a Deployment patch.
func sidecarImage(t *testing.T, path string) string {
	t.Helper()
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name  string `yaml:"name"`
						Image string `yaml:"image"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	readYAML(t, path, &d)
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "olm-render" {
			return c.Image
		}
	}
	t.Fatalf("%s: no olm-render container", path)
	return ""
}

// functionImage returns the container image of a KRM function's config.kubernetes.io/function
// annotation.
func functionImage(t *testing.T, path string) string {
	t.Helper()
	var cfg struct {
		Metadata struct {
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
	}
	readYAML(t, path, &cfg)
	var fn struct {
		Container struct {
			Image string `yaml:"image"`
		} `yaml:"container"`
	}
	if err := yaml.Unmarshal([]byte(cfg.Metadata.Annotations["config.kubernetes.io/function"]), &fn); err != nil {
		t.Fatalf("%s: config.kubernetes.io/function: %v", path, err)
	}
	return fn.Container.Image
}

// readYAML decodes the YAML file at path into v, ignoring the keys v does not have.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestDockerfileAnyUser: the image runs as any UID. It declares a numeric non-root USER (so
// runAsNonRoot admits it), not the :nonroot base whose HOME only UID 65532 may write, and points
// HOME at /tmp, which every user may write.
func TestDockerfileAnyUser(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixture.ModuleRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	user := regexp.MustCompile(`(?m)^USER\s+(\d+)(:\d+)?\s*$`).FindStringSubmatch(text)
	if user == nil {
		t.Fatal("no numeric USER")
	}
	if uid, _ := strconv.Atoi(user[1]); uid == 0 {
		t.Error("USER is root")
	}
	if regexp.MustCompile(`(?m)^FROM\s+\S+:nonroot\b`).MatchString(text) {
		t.Error("the :nonroot base image's HOME is writable by UID 65532 only")
	}
	if !regexp.MustCompile(`(?m)^\s*HOME=/tmp\b`).MatchString(text) {
		t.Error("HOME is not /tmp")
	}
}

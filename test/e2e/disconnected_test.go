package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// TestDisconnectedExample runs the commands of examples/disconnected/README.md, as printed, from
// a copy of the example, with mirror.example.com served by an in-process registry (the index
// built as OpenShift 4.18's: olm.csv.metadata and a bundle image per bundle, which it names at
// registry.redhat.io) and registry.redhat.io unreachable: the index is read at the mirror, the
// bundles through oc-mirror's ImageDigestMirrorSet, and the CatalogSource oc-mirror generated is
// applied by digest at the mirror.
func TestDisconnectedExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the disconnected example")
	}
	reg := registrytest.Start(t)
	published, err := reg.PublishCatalog(filepath.Join(fixture.Corpus(t), "operators", "kube-green"), "registry.redhat.io/redhat/community-operator-index:v4.18")
	if err != nil {
		t.Fatal(err)
	}
	conf := registrytest.RegistriesConfRewrite(t, map[string]string{"mirror.example.com/redhat": reg.Host + "/redhat"})
	bin := buildBinary(t)
	top := t.TempDir()
	dir := filepath.Join(top, "examples", "disconnected")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repo, "examples", "disconnected"))); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(top, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, bin, filepath.Join(binDir, "olm-render"))
	gitInit(t, top)
	env := append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "OLM_RENDER_CACHE="+filepath.Join(top, "cache"),
		"CONTAINERS_REGISTRIES_CONF="+conf, "REGISTRY_AUTH_FILE=", "HOME="+top)
	readme := readFile(t, filepath.Join(dir, "README.md"))
	block := regexp.MustCompile("(?s)```shell\n(.*?)```").FindStringSubmatch(readme)
	if block == nil {
		t.Fatal("examples/disconnected/README.md has no shell block")
	}
	for _, line := range strings.Split(strings.TrimSpace(block[1]), "\n") {
		t.Run(line, func(t *testing.T) { runLine(t, dir, env, line) })
	}
	cs := readFile(t, filepath.Join(dir, "rendered", "openshift-marketplace", "catalogsource-cs-community-operator-index-v4-18.yaml"))
	pinned := regexp.MustCompile(`image: mirror\.example\.com/redhat/community-operator-index@(sha256:[0-9a-f]{64})`).FindStringSubmatch(cs)
	if pinned == nil {
		t.Fatalf("oc-mirror's CatalogSource is not pinned by digest at the mirror:\n%s", cs)
	}
	if lock := readFile(t, filepath.Join(dir, "operators", "olm-render.lock.yaml")); !strings.Contains(lock, pinned[1]) {
		t.Errorf("the CatalogSource is pinned by %s, which the lock does not record:\n%s", pinned[1], lock)
	}
	tree := treeText(t, filepath.Join(dir, "rendered"))
	for _, want := range []string{"kind: ImageDigestMirrorSet", "kind: ImageTagMirrorSet", "kind: ClusterCatalog", "kind: Deployment", "startingCSV: kube-green.v0.7.1"} {
		if !strings.Contains(tree, want) {
			t.Errorf("the render lacks %q", want)
		}
	}
	if len(published.Bundles) == 0 {
		t.Fatal("nothing published")
	}
}

package fn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectFile: the function reads the repository's project file above the kustomization:
// its catalogs bind where the functionConfig binds none, and its options apply where the
// functionConfig sets none (the functionConfig's own win).
func TestProjectFile(t *testing.T) {
	top := t.TempDir()
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(top, "snapshots", "quickstart"), os.DirFS("../examples/quickstart/catalog")); err != nil {
		t.Fatal(err)
	}
	kust := filepath.Join(top, "clusters", "east")
	if err := os.MkdirAll(kust, 0o755); err != nil {
		t.Fatal(err)
	}
	project := "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\n" +
		"catalogs:\n- {name: examples, namespace: olm, path: snapshots/quickstart}\n" +
		"options: {olm: bogus, keepIntent: true}\n"
	if err := os.WriteFile(filepath.Join(top, "olm-render.yaml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Processor{Root: kust}
	// The project's olm: bogus is refused, naming the project file...
	rl := resourceList(t, "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\n")
	if err := p.Process(rl); err == nil || !strings.Contains(err.Error(), "olm-render.yaml: RenderConfig options.olm: unknown OLM target") {
		t.Fatalf("the project's bad option: %v", err)
	}
	// ... and the functionConfig's own olm wins over the project's (running would fail: the
	// quickstart's CatalogSource has no image); the project's keepIntent and catalog apply.
	if err := os.WriteFile(filepath.Join(top, "olm-render.yaml"), []byte(strings.Replace(project, "olm: bogus", "olm: running", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rl = resourceList(t, "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\noptions: {olm: absent}\n")
	if err := p.Process(rl); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, n := range rl.Items {
		kinds[n.GetKind()]++
	}
	if kinds["ClusterServiceVersion"] != 2 || kinds["Subscription"] == 0 {
		t.Errorf("kinds %v: want the quickstart rendered from the project's catalog, with the Subscriptions kept (keepIntent)", kinds)
	}
}

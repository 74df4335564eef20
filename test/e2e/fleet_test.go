package e2e

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

var updateFleet = flag.Bool("update-fleet", false, "vendor examples/fleet/catalogs again from the corpus, and rewrite its locks and rendered/")

// fleetDir is the fleet example.
var fleetDir = filepath.Join(repo, "examples", "fleet")

// fleetIndexes serves the two community catalogs of the fleet example from an in-process
// registry, under the names OpenShift's have: registry.redhat.io/redhat/community-operator-index
// tagged v4.16 (the corpus's 4.16 catalog of kube-green, manifests inline, as 4.16's are) and
// v4.18 (kube-green built from its community bundles, olm.csv.metadata and a bundle image per
// bundle, as 4.18's are). It returns the registries.conf that sends registry.redhat.io there.
func fleetIndexes(t *testing.T) string {
	t.Helper()
	reg := registrytest.Start(t)
	corpus := fixture.Corpus(t)
	fbc, err := os.ReadFile(filepath.Join(corpus, "fbc", "community-operators-prod", "catalogs", "v4.16", "kube-green", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files, labels := registrytest.IndexFiles(fbc)
	delete(files, "configs/catalog.json")
	files["configs/kube-green/catalog.yaml"] = fbc
	reg.Push(t, "redhat/community-operator-index", "v4.16", files, labels)
	if _, err := reg.PublishCatalog(filepath.Join(corpus, "operators", "kube-green"), "registry.redhat.io/redhat/community-operator-index:v4.18"); err != nil {
		t.Fatal(err)
	}
	return registrytest.RegistriesConfRewrite(t, map[string]string{"registry.redhat.io/redhat": reg.Host + "/redhat"})
}

// vendorFleet vendors the fleet example's catalogs with olm-render catalog pull from the served
// indexes, then writes its locks and rendered/ with olm-render itself.
func vendorFleet(t *testing.T, bin string) {
	t.Helper()
	env := append(os.Environ(), "CONTAINERS_REGISTRIES_CONF="+fleetIndexes(t), "OLM_RENDER_CACHE="+t.TempDir())
	for _, v := range []string{"v4.16", "v4.18"} {
		runIn(t, fleetDir, env, bin, "catalog", "pull", "registry.redhat.io/redhat/community-operator-index:"+v,
			"--package", "kube-green", "--output-dir", filepath.Join("catalogs", "community-"+v))
	}
	for _, c := range []string{"east", "west"} {
		os.Remove(filepath.Join(fleetDir, "clusters", c, "olm-render.lock.yaml"))
	}
	runIn(t, fleetDir, env, bin, "lock", "--offline")
	runIn(t, fleetDir, env, bin, "render", "--locked", "--offline")
}

// runIn runs a command in dir and returns its output; it fails the test on an exit status other
// than 0.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestFleetExample renders examples/fleet as its README says: both clusters in one run, each
// from its own overlay, lock and vendored catalog into its own directory, offline, and the
// result is what is committed; the CatalogSources are pinned by the digests the snapshots record;
// an upgrade of one cluster moves its lock alone, and the fleet's diff says so per cluster.
func TestFleetExample(t *testing.T) {
	bin := buildBinary(t)
	if *updateFleet {
		vendorFleet(t, bin)
	}
	top := t.TempDir()
	dir := filepath.Join(top, "examples", "fleet")
	if err := os.CopyFS(dir, os.DirFS(fleetDir)); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "OLM_RENDER_CACHE="+t.TempDir(), "HOME="+top)
	git(t, top, env, "init", "-q")
	git(t, top, env, "add", ".")
	git(t, top, env, "commit", "-q", "-m", "fleet")
	if err := os.RemoveAll(filepath.Join(dir, "rendered")); err != nil {
		t.Fatal(err)
	}
	out := runIn(t, dir, env, bin, "render", "--locked", "--offline")
	for _, c := range []string{"east", "west"} {
		if !strings.Contains(out, "== cluster "+c) {
			t.Errorf("the fleet render does not introduce cluster %s:\n%s", c, out)
		}
		if got, want := treeText(t, filepath.Join(dir, "rendered", c)), treeText(t, filepath.Join(fleetDir, "rendered", c)); got != want {
			t.Errorf("examples/fleet/rendered/%s is not what the fleet renders now: go test ./test/e2e -run TestFleetExample -update-fleet", c)
		}
	}
	for c, v := range map[string]string{"east": "v4.16", "west": "v4.18"} {
		source := readFile(t, filepath.Join(dir, "catalogs", "community-"+v, "catalog.json"))
		_, digest, _ := strings.Cut(source[strings.LastIndex(source, `"image":"`):], "@")
		digest, _, _ = strings.Cut(digest, `"`)
		cs := readFile(t, filepath.Join(dir, "rendered", c, "openshift-marketplace", "catalogsource-community-operators-pinned.yaml"))
		if !strings.Contains(cs, "image: registry.redhat.io/redhat/community-operator-index@"+digest) {
			t.Errorf("cluster %s's CatalogSource is not pinned by the digest its snapshot records (%s):\n%s", c, digest, cs)
		}
	}
	if d := runIn(t, dir, env, bin, "diff", "--base", "HEAD"); strings.Contains(d, "Modified (1") {
		t.Errorf("a fresh render differs from the committed one:\n%s", d)
	}
	runIn(t, dir, env, bin, "upgrade", "--all", "--cluster", "east", "--offline")
	runIn(t, dir, env, bin, "render", "--locked", "--offline")
	cmd := exec.Command(bin, "diff", "--base", "HEAD")
	cmd.Dir, cmd.Env = dir, env
	report, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("diff after east's upgrade: exit %d, want 1 (changed):\n%s", code, report)
	}
	east, west, _ := strings.Cut(string(report), "== cluster west")
	if !strings.Contains(east, "kube-green.v0.7.0 → kube-green.v0.7.1") || strings.Contains(west, "→") {
		t.Errorf("the fleet diff does not show east alone moving:\n%s", report)
	}
}

// treeText is every file under dir, by name, as one text.
func treeText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		b.WriteString("== " + rel + "\n" + string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

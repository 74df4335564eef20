package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// quickstartRegistry publishes the quickstart catalog's bundles as bundle images and an index
// image tagged catalog:latest that holds the bundles up to maxWidget.
type quickstartRegistry struct {
	catalog string // the quickstart catalog, absolute
	reg     *registrytest.Registry
	bundles map[string]string // bundle name → image by digest
	conf    string
}

func publishQuickstart(t *testing.T) *quickstartRegistry {
	t.Helper()
	dir, err := filepath.Abs("../../examples/quickstart/catalog")
	if err != nil {
		t.Fatal(err)
	}
	q := &quickstartRegistry{catalog: dir, reg: registrytest.Start(t), bundles: map[string]string{}}
	c, err := catalog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			files, labels := registrytest.BundleFiles(t, filepath.Dir(filepath.Dir(b.Origin.File)))
			q.bundles[b.Name] = q.reg.Push(t, "bundles/"+p.Name, b.Version.String(), files, labels)
		}
	}
	q.conf = registrytest.RegistriesConf(t, []string{q.reg.Host}, nil)
	return q
}

// pushIndex (re)tags catalog:latest with an index holding every bundle but those dropped.
func (q *quickstartRegistry) pushIndex(t *testing.T, drop ...string) string {
	t.Helper()
	c, err := catalog.Load(q.catalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Packages {
		p.Bundles = slices.DeleteFunc(p.Bundles, func(b *catalog.Bundle) bool { return slices.Contains(drop, b.Name) })
		for _, ch := range p.Channels {
			ch.Entries = slices.DeleteFunc(ch.Entries, func(e catalog.ChannelEntry) bool { return slices.Contains(drop, e.Name) })
		}
	}
	var fbc bytes.Buffer
	if err := catalog.WriteFBC(&fbc, c, catalog.WriteOptions{CSVMetadata: true, Image: func(b *catalog.Bundle) string { return q.bundles[b.Name] }}); err != nil {
		t.Fatal(err)
	}
	files, labels := registrytest.IndexFiles(fbc.Bytes())
	return q.reg.Push(t, "catalog", "latest", files, labels)
}

// registryInputs writes the quickstart inputs with the CatalogSource given by image, into a temp
// dir that becomes the working directory; it returns the inputs' path.
func registryInputs(t *testing.T, image string) string {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "input")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"namespaces.yaml", "operatorgroup.yaml", "subscription.yaml"} {
		data, err := os.ReadFile(filepath.Join(quickstart, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fixture.WriteObject(t, filepath.Join(dir, "catalogsource.yaml"), fixture.CatalogSource("examples", "", image))
	t.Chdir(top)
	return "input"
}

// TestRegistryLockAndUpgrade: a render pins the index image's digest in the lock; after the tag
// moves, a locked render is unchanged (and works with the registry stopped, from the cache), and
// upgrade moves to the new catalog.
func TestRegistryLockAndUpgrade(t *testing.T) {
	q := publishQuickstart(t)
	first := q.pushIndex(t, "widget-operator.v0.2.0")
	dir := registryInputs(t, q.reg.Host+"/catalog:latest")
	images := []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", q.conf}
	run := func(args ...string) (int, string, string) { return runCLI(t, append(args, images...)...) }

	code, out, errOut := run("render", dir)
	if code != 0 || !strings.Contains(out, "name: widget-operator.v0.1.0") {
		t.Fatalf("first render: exit %d: %s", code, errOut)
	}
	lockData, err := os.ReadFile(filepath.Join(dir, "olm-render.lock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, digest, _ := strings.Cut(first, "@")
	for _, want := range []string{"digest: " + digest, "image: " + q.reg.Host + "/catalog:latest", "image: " + q.bundles["widget-operator.v0.1.0"]} {
		if !strings.Contains(string(lockData), want) {
			t.Errorf("the lock does not record %q:\n%s", want, lockData)
		}
	}

	q.pushIndex(t) // the tag moves: widget-operator.v0.2.0 appears
	code, locked, errOut := run("render", "--locked", dir)
	if code != 0 || locked != out {
		t.Fatalf("locked render after the tag moved: exit %d (same output: %v): %s", code, locked == out, errOut)
	}
	q.reg.Stop()
	if code, warm, errOut := run("render", "--locked", dir); code != 0 || warm != out {
		t.Fatalf("locked render with the registry stopped: exit %d (same output: %v): %s", code, warm == out, errOut)
	}
	if code, _, errOut := runCLI(t, "render", "--locked", "--offline", "--cache-dir", t.TempDir(), dir); code == 0 || !strings.Contains(errOut, "--offline") || !strings.Contains(errOut, q.reg.Host+"/catalog") {
		t.Fatalf("offline render with a cold cache: exit %d: %s", code, errOut)
	}
}

func TestRegistryUpgradeMovesTag(t *testing.T) {
	q := publishQuickstart(t)
	q.pushIndex(t, "widget-operator.v0.2.0")
	dir := registryInputs(t, q.reg.Host+"/catalog:latest")
	images := []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", q.conf}
	if code, _, errOut := runCLI(t, append([]string{"lock", dir}, images...)...); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, errOut)
	}
	second := q.pushIndex(t)
	code, out, errOut := runCLI(t, append([]string{"upgrade", "--all", dir}, images...)...)
	if code != 0 || !strings.Contains(out, "widget-operator.v0.1.0 → widget-operator.v0.2.0") {
		t.Fatalf("upgrade: exit %d: %s%s", code, out, errOut)
	}
	_, digest, _ := strings.Cut(second, "@")
	if lockData, _ := os.ReadFile(filepath.Join(dir, "olm-render.lock.yaml")); !strings.Contains(string(lockData), digest) {
		t.Fatalf("the lock does not pin the moved tag's digest %s:\n%s", digest, lockData)
	}
	if code, out, errOut := runCLI(t, append([]string{"render", "--locked", dir}, images...)...); code != 0 || !strings.Contains(out, "name: widget-operator.v0.2.0") {
		t.Fatalf("locked render after upgrade: exit %d: %s", code, errOut)
	}
}

// TestCatalogPullAndImages: a vendored snapshot renders identically with no registry, and images
// lists exactly the images of the render.
func TestCatalogPullAndImages(t *testing.T) {
	q := publishQuickstart(t)
	index := q.pushIndex(t)
	dir := registryInputs(t, q.reg.Host+"/catalog:latest")
	images := []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", q.conf}
	code, fromRegistry, errOut := runCLI(t, append([]string{"render", "--no-lock", dir}, images...)...)
	if code != 0 {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, append([]string{"catalog", "pull", q.reg.Host + "/catalog:latest", "--package", "widget-operator", "--output-dir", "vendored"}, images...)...)
	if code != 0 || !strings.Contains(out, "2 packages") {
		t.Fatalf("catalog pull (widget-operator needs gadget-operator): exit %d: %s%s", code, out, errOut)
	}
	q.reg.Stop()
	if code, _, errOut := runCLI(t, "render", "--no-lock", "--offline", "--cache-dir", t.TempDir(), "--catalog", "olm/examples=vendored", dir); code != 0 {
		t.Fatalf("render from the vendored snapshot: exit %d: %s", code, errOut)
	} else if code, fromVendored, _ := runCLI(t, "render", "--no-lock", "--offline", "--cache-dir", t.TempDir(), "--catalog", "olm/examples=vendored", dir); fromVendored != fromRegistry {
		t.Fatalf("the vendored snapshot renders differently (exit %d)", code)
	}
	code, list, errOut := runCLI(t, "images", "--offline", "--cache-dir", t.TempDir(), "--catalog", "olm/examples=vendored", dir)
	if code != 0 {
		t.Fatalf("images: exit %d: %s", code, errOut)
	}
	var refs []string
	for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
		ref, _, _ := strings.Cut(line, "\t")
		refs = append(refs, ref)
	}
	for _, want := range []string{index, q.bundles["widget-operator.v0.2.0"], q.bundles["gadget-operator.v1.0.0"]} {
		if !slices.Contains(refs, want) {
			t.Errorf("images does not list %s:\n%s", want, list)
		}
	}
	if slices.Contains(refs, q.bundles["widget-operator.v0.1.0"]) {
		t.Errorf("images lists a bundle the render does not use:\n%s", list)
	}
}

// TestImageDigestMirrorSetInput: an ImageDigestMirrorSet among the inputs redirects pulls by digest
// (here of an index image whose registry does not exist) to its mirror, and passes through.
func TestImageDigestMirrorSetInput(t *testing.T) {
	q := publishQuickstart(t)
	pinned := q.pushIndex(t)
	_, digest, _ := strings.Cut(pinned, "@")
	dir := registryInputs(t, "registry.example.invalid/olm/catalog@"+digest)
	fixture.WriteObject(t, filepath.Join(dir, "mirrors.yaml"), map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet", "metadata": map[string]any{"name": "mirror"},
		"spec": map[string]any{"imageDigestMirrors": []any{map[string]any{
			"source": "registry.example.invalid/olm", "mirrors": []any{q.reg.Host}, "mirrorSourcePolicy": "NeverContactSource"}}},
	})
	code, out, errOut := runCLI(t, "render", "--no-lock", "--cache-dir", t.TempDir(), "--registries-conf", q.conf, dir)
	if code != 0 || !strings.Contains(out, "name: widget-operator.v0.2.0") || !strings.Contains(out, "kind: ImageDigestMirrorSet") {
		t.Fatalf("render through the mirror: exit %d: %s", code, errOut)
	}
}

// bundleRequests returns the bundle image references the registry was asked for (manifests by
// tag or digest) since request index from.
func bundleRequests(reg *registrytest.Registry, from int) []string {
	var out []string
	for _, r := range reg.Requested()[from:] {
		_, path, _ := strings.Cut(r, " ")
		if rest, ok := strings.CutPrefix(path, "/v2/bundles/"); ok {
			if repo, ref, ok := strings.Cut(rest, "/manifests/"); ok {
				out = append(out, repo+"@"+ref)
			}
		}
	}
	return out
}

// TestMetadataOnly: against an index of olm.csv.metadata (bundle images by digest), resolve,
// lock and upgrade read the catalog only: offline, with no bundle image in the cache, they
// succeed, and the lock digests each bundle by its image digest. A locked render then pulls the
// chosen bundles and nothing else.
func TestMetadataOnly(t *testing.T) {
	q := publishQuickstart(t)
	q.pushIndex(t)
	published := len(q.reg.Requested())
	dir := registryInputs(t, q.reg.Host+"/catalog:latest")
	cache := filepath.Join(t.TempDir(), "cache")
	online := []string{"--cache-dir", cache, "--registries-conf", q.conf}
	offline := append([]string{"--offline"}, online...)
	run := func(flags []string, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runCLI(t, append(args, flags...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out, errOut
	}

	if out, _ := run(online, "resolve", "--no-lock", "-o", "table", dir); !strings.Contains(out, "widget-operator.v0.2.0") {
		t.Fatalf("resolve:\n%s", out)
	}
	if got := bundleRequests(q.reg, published); len(got) > 0 {
		t.Fatalf("resolve pulled bundle images: %v", got)
	}
	run(offline, "resolve", "--no-lock", dir)
	run(offline, "resolve", dir)
	out, _ := run(offline, "lock", dir)
	if !strings.Contains(out, "added widget-operator.v0.2.0") {
		t.Fatalf("lock:\n%s", out)
	}
	lockData, err := os.ReadFile(filepath.Join(dir, "olm-render.lock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"widget-operator.v0.2.0", "gadget-operator.v1.0.0"} {
		_, digest, _ := strings.Cut(q.bundles[name], "@")
		if !strings.Contains(string(lockData), "digest: "+digest+"\n    digestOf: image") {
			t.Errorf("the lock does not digest %s by its image digest %s:\n%s", name, digest, lockData)
		}
	}
	run(offline, "upgrade", "--all", "--dry-run", dir)
	run(offline, "resolve", dir)

	before := len(q.reg.Requested())
	if out, _ := run(online, "render", "--locked", dir); !strings.Contains(out, "name: widget-operator.v0.2.0") {
		t.Fatal("the locked render does not render widget-operator.v0.2.0")
	}
	got := bundleRequests(q.reg, before)
	slices.Sort(got)
	got = slices.Compact(got)
	var want []string
	for _, name := range []string{"gadget-operator.v1.0.0", "widget-operator.v0.2.0"} {
		repo, ref, _ := strings.Cut(strings.TrimPrefix(q.bundles[name], q.reg.Host+"/bundles/"), "@")
		want = append(want, repo+"@"+ref)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the locked render pulled %v, want the chosen bundles %v", got, want)
	}
}

// pushMirroredIndex pushes repo:tag, an index of every quickstart bundle naming each bundle
// image at source (a registry prefix the tests do not serve) instead of the registry serving
// it, as a catalog mirrored by oc-mirror names the images of its source. It returns the index
// by digest.
func (q *quickstartRegistry) pushMirroredIndex(t *testing.T, repo, tag, source string) string {
	t.Helper()
	c, err := catalog.Load(q.catalog)
	if err != nil {
		t.Fatal(err)
	}
	image := func(b *catalog.Bundle) string { return source + strings.TrimPrefix(q.bundles[b.Name], q.reg.Host+"/") }
	var fbc bytes.Buffer
	if err := catalog.WriteFBC(&fbc, c, catalog.WriteOptions{CSVMetadata: true, Image: image}); err != nil {
		t.Fatal(err)
	}
	files, labels := registrytest.IndexFiles(fbc.Bytes())
	return q.reg.Push(t, repo, tag, files, labels)
}

// registryConfFor is a registries.conf serving each prefix from the host given, over plain
// HTTP.
func registryConfFor(t *testing.T, rewrites map[string]string) string {
	t.Helper()
	return registrytest.RegistriesConfRewrite(t, rewrites)
}

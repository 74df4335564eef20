package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture"
)

// vendoredQuickstart publishes the quickstart as an index image, vendors it with catalog pull
// into snapshots/quickstart and lays out the quickstart inputs with the CatalogSource naming the
// index by its tag (image) and bound to the snapshot as bind says ("annotation", or nothing for
// a --catalog binding). It returns the inputs, the index image by digest and the registry flags.
func vendoredQuickstart(t *testing.T, image func(host string) string, annotate bool) (in, pinned string, flags []string) {
	t.Helper()
	q := publishQuickstart(t)
	pinned = q.pushIndex(t)
	flags = []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", q.conf}
	in = registryInputs(t, image(q.reg.Host))
	if code, _, errOut := runCLI(t, append([]string{"catalog", "pull", q.reg.Host + "/catalog:latest", "--package", "widget-operator", "--output-dir", "snapshots/quickstart"}, flags...)...); code != 0 {
		t.Fatalf("catalog pull: exit %d: %s", code, errOut)
	}
	annotation := ""
	if annotate {
		annotation = "../snapshots/quickstart"
	}
	fixture.WriteObject(t, filepath.Join(in, "catalogsource.yaml"), fixture.CatalogSource("examples", annotation, image(q.reg.Host)))
	return in, pinned, flags
}

// TestVendoredSnapshotPinnedByItsDigest: with OLM running, a CatalogSource naming its index by
// tag and bound to a snapshot olm-render catalog pull vendored (by the annotation, or by
// --catalog) is applied by the digest the snapshot records: nobody types a digest, and no
// registry is asked.
func TestVendoredSnapshotPinnedByItsDigest(t *testing.T) {
	for _, annotate := range []bool{true, false} {
		name := "annotation"
		if !annotate {
			name = "--catalog"
		}
		t.Run(name, func(t *testing.T) {
			in, pinned, _ := vendoredQuickstart(t, func(host string) string { return host + "/catalog:latest" }, annotate)
			args := []string{"render", "--no-lock", "--olm=running", "--offline", "--cache-dir", t.TempDir(), "--output-dir", "out", in}
			if !annotate {
				args = append(args, "--catalog", "olm/examples=snapshots/quickstart")
			}
			code, _, errOut := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, errOut)
			}
			cs := readFile(t, filepath.Join("out", "olm", "catalogsource-examples.yaml"))
			if !strings.Contains(cs, "image: "+pinned+"\n") {
				t.Errorf("the CatalogSource is not pinned by the vendored digest %s:\n%s", pinned, cs)
			}
		})
	}
}

// TestVendoredSnapshotMistakes: a snapshot recording no digest (not cut by catalog pull) bound to
// a CatalogSource by tag is refused naming what bound it; a spec.image pinned to another digest
// than the snapshot's is refused; a CatalogSource naming another repository than the one the
// snapshot was pulled from, which no mirror in the inputs relates, is pinned with a warning.
func TestVendoredSnapshotMistakes(t *testing.T) {
	t.Run("no digest recorded", func(t *testing.T) {
		in, _, _ := vendoredQuickstart(t, func(host string) string { return host + "/catalog:latest" }, false)
		snapshot := filepath.Join("snapshots", "quickstart", "catalog.json")
		data := readFile(t, snapshot)
		cut := data[:strings.LastIndex(strings.TrimSuffix(data, "\n"), "\n")+1]
		if err := os.WriteFile(snapshot, []byte(cut), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(t, "render", "--no-lock", "--olm=running", "--catalog", "olm/examples=snapshots/quickstart", in)
		for _, want := range []string{"spec.image", "is a tag", "--catalog olm/examples=snapshots/quickstart", "olm-render catalog pull"} {
			if code == 0 || !strings.Contains(errOut, want) {
				t.Errorf("exit %d, stderr %q: want it to say %q", code, errOut, want)
			}
		}
	})
	t.Run("another digest", func(t *testing.T) {
		in, _, _ := vendoredQuickstart(t, func(host string) string { return host + "/catalog@sha256:" + strings.Repeat("0", 64) }, true)
		code, _, errOut := runCLI(t, "render", "--no-lock", "--olm=running", in)
		if code == 0 || !strings.Contains(errOut, "spec.image pins sha256:0000") {
			t.Errorf("exit %d, stderr %q: want the two digests named", code, errOut)
		}
	})
	t.Run("unrelated repository", func(t *testing.T) {
		in, pinned, _ := vendoredQuickstart(t, func(string) string { return "mirror.example.com/other/catalog:latest" }, true)
		code, out, errOut := runCLI(t, "render", "--no-lock", "--olm=running", in)
		_, digest, _ := strings.Cut(pinned, "@")
		if code != 0 || !strings.Contains(out, "image: mirror.example.com/other/catalog@"+digest) {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "warning:") || !strings.Contains(errOut, "no ImageDigestMirrorSet or ImageContentSourcePolicy among the inputs mirrors") {
			t.Errorf("no warning about the unrelated repository: %s", errOut)
		}
	})
}

// ocMirrorResources writes a working-dir/cluster-resources folder as oc-mirror v2 writes it
// after mirroring an operator catalog to mirror.example.com (sigs.k8s.io/yaml, keys sorted, its
// createdBy/createdAt/oc-mirror_version annotations): the CatalogSource and ClusterCatalog of the
// mirrored index, by tag; an ImageDigestMirrorSet and an ImageTagMirrorSet for the bundle and
// related images (never the catalog, which the CatalogSource names at the mirror); and the
// release signature ConfigMap as JSON and YAML.
func ocMirrorResources(t *testing.T, dir string) {
	t.Helper()
	const annotations = `  annotations:
    createdAt: Friday, 27-Nov-26 09:14:02 UTC
    createdBy: oc-mirror v2
    oc-mirror_version: 4.20.0-202611120811.p0.g1d3e5f7.assembly.stream.el9-1d3e5f7
`
	files := map[string]string{
		"cs-catalog-v1.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata:\n" + annotations +
			"  name: cs-catalog-v1\n  namespace: openshift-marketplace\nspec:\n  image: mirror.example.com/olm/catalog:v1\n  sourceType: grpc\nstatus: {}\n",
		"cc-catalog-v1.yaml": "apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata:\n" + annotations +
			"  name: cc-catalog-v1\nspec:\n  source:\n    image:\n      ref: mirror.example.com/olm/catalog:v1\n    type: Image\nstatus: {}\n",
		"idms-oc-mirror.yaml": "---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n" + annotations +
			"  name: idms-operator-0\nspec:\n  imageDigestMirrors:\n  - mirrors:\n    - mirror.example.com/bundles\n    source: source.example.invalid/bundles\nstatus: {}\n",
		"itms-oc-mirror.yaml": "---\napiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n" + annotations +
			"  name: itms-operator-0\nspec:\n  imageTagMirrors:\n  - mirrors:\n    - mirror.example.com/related\n    source: source.example.invalid/related\nstatus: {}\n",
		"signature-configmap.json": `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"mirrored-release-signatures","namespace":"openshift-config-managed","labels":{"release.openshift.io/verification-signatures":""}},"binaryData":{"sha256-0123456789abcdef-1":"c2lnbmF0dXJl"}}`,
		"signature-configmap.yaml": "apiVersion: v1\nbinaryData:\n  sha256-0123456789abcdef-1: c2lnbmF0dXJl\nkind: ConfigMap\nmetadata:\n  labels:\n    release.openshift.io/verification-signatures: \"\"\n  name: mirrored-release-signatures\n  namespace: openshift-config-managed\n",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOCMirrorClusterResources renders oc-mirror's cluster-resources folder as written, with the
// quickstart's Subscription to the CatalogSource it generated: the index is read at the mirror
// it names, the bundles through the ImageDigestMirrorSet (their source registry is unreachable),
// the CatalogSource is pinned by digest where OLM runs, and everything else oc-mirror wrote is
// passed through once.
func TestOCMirrorClusterResources(t *testing.T) {
	q := publishQuickstart(t)
	pinned := q.pushMirroredIndex(t, "olm/catalog", "v1", "source.example.invalid/")
	top := t.TempDir()
	t.Chdir(top)
	ocMirrorResources(t, filepath.Join("working-dir", "cluster-resources"))
	if err := os.MkdirAll("operators", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"namespaces.yaml", "operatorgroup.yaml"} {
		copyInto(t, filepath.Join(q.catalog, "..", "input", name), filepath.Join("operators", name))
	}
	sub := strings.NewReplacer("source: examples", "source: cs-catalog-v1", "sourceNamespace: olm", "sourceNamespace: openshift-marketplace").
		Replace(readFile(t, filepath.Join(q.catalog, "..", "input", "subscription.yaml")))
	if err := os.WriteFile(filepath.Join("operators", "subscription.yaml"), []byte(sub), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "init", "--openshift"); code != 0 {
		t.Fatalf("init --openshift: exit %d: %s", code, errOut)
	}
	conf := registryConfFor(t, map[string]string{"mirror.example.com": q.reg.Host})
	flags := []string{"--cache-dir", filepath.Join(t.TempDir(), "cache"), "--registries-conf", conf}
	for _, target := range []string{"running", "absent"} {
		t.Run(target, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rendered")
			code, _, errOut := runCLI(t, append([]string{"render", "--no-lock", "--olm=" + target, "--output-dir", out, "operators", "working-dir/cluster-resources"}, flags...)...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, errOut)
			}
			tree := treeText(t, out)
			_, digest, _ := strings.Cut(pinned, "@")
			for _, want := range []string{"kind: ImageDigestMirrorSet", "kind: ImageTagMirrorSet", "kind: ClusterCatalog", "name: widget-operator.v0.2.0", "kind: Deployment"} {
				if !strings.Contains(tree, want) {
					t.Errorf("the render lacks %q", want)
				}
			}
			if n := strings.Count(tree, "name: mirrored-release-signatures"); n != 1 {
				t.Errorf("the signature ConfigMap is rendered %d times, want once", n)
			}
			if target == "running" && !strings.Contains(tree, "image: mirror.example.com/olm/catalog@"+digest) {
				t.Errorf("the CatalogSource oc-mirror wrote is not pinned by digest at the mirror")
			}
		})
	}
}

// copyInto copies a file.
func copyInto(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

package e2e

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// corpusRegistry is the corpus published as a registry serves it to OLM: one bundle image per
// bundle directory of the corpus's operators (fixture.Corpus), and an index image whose
// file-based catalog carries only olm.csv.metadata (as every OpenShift catalog since 4.17 does).
type corpusRegistry struct {
	reg      *registrytest.Registry
	index    string // by tag
	cases    []fixture.Case
	conf     string // registries.conf for the registry
	operator string // the corpus directory
}

var (
	corpusOnce sync.Once
	corpus     *corpusRegistry
)

// publishCorpus pushes the corpus once per test binary.
func publishCorpus(t *testing.T) *corpusRegistry {
	t.Helper()
	dir := filepath.Join(fixture.Corpus(t), "operators") // skips every test without it, not only the first
	corpusOnce.Do(func() {
		c, err := catalog.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		cases := fixture.InstallModeCases(t, c)
		fixture.Prune(c)
		reg := registrytest.Start(&keepAlive{T: t})
		images := map[string]string{}
		for _, p := range c.Packages {
			for _, b := range p.Bundles {
				files, labels := registrytest.BundleFiles(t, bundleDir(b))
				images[p.Name+"/"+b.Name] = reg.Push(t, "bundles/"+p.Name, b.Version.String(), files, labels)
			}
		}
		var fbc bytes.Buffer
		err = catalog.WriteFBC(&fbc, c, catalog.WriteOptions{CSVMetadata: true,
			Image: func(b *catalog.Bundle) string { return images[b.Package+"/"+b.Name] }})
		if err != nil {
			t.Fatal(err)
		}
		files, labels := registrytest.IndexFiles(fbc.Bytes())
		reg.Push(t, "catalog", "latest", files, labels)
		corpus = &corpusRegistry{reg: reg, index: reg.Host + "/catalog:latest", cases: cases,
			conf: registrytest.RegistriesConf(t, []string{reg.Host}, nil), operator: dir}
	})
	if corpus == nil {
		t.Fatal("publishing the corpus failed")
	}
	return corpus
}

// keepAlive keeps the registry of the first test that publishes the corpus running for the
// whole test binary (its Cleanup is never called).
type keepAlive struct{ *testing.T }

func (keepAlive) Cleanup(func()) {}

// bundleDir is the directory of a bundle loaded from a bundle tree: its CSV's directory's parent.
func bundleDir(b *catalog.Bundle) string {
	return filepath.Dir(filepath.Dir(b.Origin.File))
}

// TestRegistryRenderIsIdentical renders the latest bundle of every operator of the corpus twice:
// from the bundle tree on disk, and from the index image through the registry, pulling the bundle
// images it needs. The two renders must be byte-identical. Each operator is rendered in one
// install mode it supports, cycling through the modes so that every mode is covered (render
// goldens and the API server suite cover every operator in every mode).
func TestRegistryRenderIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes the corpus to a registry")
	}
	pub := publishCorpus(t)
	cache, err := imagecache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nfd := filepath.Join(fixture.ModuleRoot(t), "resolver", "testdata", "nfd")
	var cases, unresolvable atomic.Int64
	t.Cleanup(func() {
		t.Logf("%d operators byte-identical through the registry; %d unresolvable as expected", cases.Load(), unresolvable.Load())
	})
	for _, tc := range onePerPackage(pub.cases) {
		t.Run(tc.Name(), func(t *testing.T) {
			t.Parallel()
			disk, registryDir := t.TempDir(), t.TempDir()
			fixture.WriteInputs(t, disk, tc, fixture.CatalogSource("operators", fixture.Rel(t, disk, pub.operator), ""),
				fixture.CatalogSource("nfd", fixture.Rel(t, disk, nfd), ""))
			fixture.WriteInputs(t, registryDir, tc, fixture.CatalogSource("operators", "", pub.index),
				fixture.CatalogSource("nfd", fixture.Rel(t, registryDir, nfd), ""))
			want, err := renderStream(t, disk, nil)
			if err != nil {
				if fixture.ExpectUnresolvable[tc.Package] && strings.Contains(err.Error(), "ConstraintsNotSatisfiable") {
					unresolvable.Add(1)
					t.Skipf("does not resolve against this corpus, as expected")
				}
				t.Fatal(err)
			}
			got, err := renderStream(t, registryDir, &registry.Options{Cache: cache, RegistriesConf: pub.conf})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, got) {
				t.Fatalf("the render through the registry differs from the render from disk:\n%s", firstDifference(want, got))
			}
			// Again, from the cache: the catalog and the bundles' manifests as cached.
			if again, err := renderStream(t, registryDir, &registry.Options{Cache: cache, RegistriesConf: pub.conf}); err != nil || !bytes.Equal(want, again) {
				t.Fatalf("the render from the cache differs (%v):\n%s", err, firstDifference(want, again))
			}
			cases.Add(1)
		})
	}
}

// onePerPackage keeps one case per package, the i-th package's mode chosen i-th in turn among
// those it supports.
func onePerPackage(all []fixture.Case) []fixture.Case {
	byPackage := map[string][]fixture.Case{}
	var order []string
	for _, c := range all {
		if byPackage[c.Package] == nil {
			order = append(order, c.Package)
		}
		byPackage[c.Package] = append(byPackage[c.Package], c)
	}
	out := make([]fixture.Case, 0, len(order))
	for i, pkg := range order {
		modes := byPackage[pkg]
		out = append(out, modes[i%len(modes)])
	}
	return out
}

// renderStream renders the inputs in dir (root: the whole file system) as a YAML stream.
func renderStream(t *testing.T, dir string, images *registry.Options) ([]byte, error) {
	t.Helper()
	opts := fixture.SystemOptions(t)
	req := pipeline.Request{Paths: []string{dir}, Root: opts.Root, Registry: images}
	out, err := pipeline.Run(context.Background(), req)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := emit.Stream(&buf, out.Objects); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// firstDifference shows the lines around the first difference of two streams.
func firstDifference(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo := max(0, i-3)
			return "disk:\n" + strings.Join(al[lo:min(len(al), i+3)], "\n") + "\nregistry:\n" + strings.Join(bl[lo:min(len(bl), i+3)], "\n")
		}
	}
	return "one stream is a prefix of the other"
}

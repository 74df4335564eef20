package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/test/fixture"
	"github.com/olm-render/olm-render/test/registrytest"
)

// scaledIndex is an index image of the corpus copied to 250+ packages, one catalog.json per
// package as index images hold them, with a bundle image for every bundle of the originals.
type scaledIndex struct {
	reg    *registrytest.Registry
	tag    string
	pinned string
	conf   string
}

func publishScaled(b *testing.B) *scaledIndex {
	b.Helper()
	reg := registrytest.Start(b)
	src, err := catalog.Load(filepath.Join(fixture.Corpus(b), "operators"))
	if err != nil {
		b.Fatal(err)
	}
	images := map[string]string{}
	for _, p := range src.Packages {
		for _, bundle := range p.Bundles {
			files, labels := registrytest.BundleFiles(b, bundleDir(bundle))
			images[bundle.Name] = reg.Push(b, "bundles/"+p.Name, bundle.Version.String(), files, labels)
		}
	}
	c := fixture.ScaledCatalog(b, 250, func(bundle *catalog.Bundle) string { return images[bundle.Name] })
	files := map[string][]byte{}
	for _, p := range c.Packages {
		var buf bytes.Buffer
		if err := catalog.WriteFBC(&buf, &catalog.Catalog{Packages: []*catalog.Package{p}}, catalog.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		files["configs/"+p.Name+"/catalog.json"] = buf.Bytes()
	}
	pinned := reg.Push(b, "catalog", "v4.18", files, map[string]string{registry.IndexConfigsLabel: "/configs"})
	return &scaledIndex{reg: reg, tag: reg.Host + "/catalog:v4.18", pinned: pinned,
		conf: registrytest.RegistriesConf(b, []string{reg.Host}, nil)}
}

// tenSubscriptions writes ten Subscriptions, to ten operators of the corpus that resolve on
// their own, each in its own namespace, against the index image.
func tenSubscriptions(b *testing.B, index string) string {
	b.Helper()
	src, err := catalog.Load(filepath.Join(fixture.Corpus(b), "operators"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	n := 0
	for _, tc := range onePerPackage(fixture.InstallModeCases(b, src)) {
		if n == 10 || fixture.ExpectUnresolvable[tc.Package] || slices.Contains([]string{"special-resource-operator", "silicom-sts-operator"}, tc.Package) {
			continue
		}
		sub := filepath.Join(dir, tc.Package)
		if err := os.Mkdir(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		sources := []map[string]any{}
		if n == 0 {
			sources = append(sources, fixture.CatalogSource("operators", "", index))
		}
		fixture.WriteInputs(b, sub, tc, sources...)
		n++
	}
	return dir
}

// BenchmarkRegistryRender renders ten Subscriptions against an index image of 250+ packages:
// cold (an empty cache: the index and ten bundle images are pulled from an in-process registry)
// and warm (a cache from an earlier run and the index digest pinned, as a lock pins it: no
// network call, which the benchmark checks).
func BenchmarkRegistryRender(b *testing.B) {
	idx := publishScaled(b)
	dir := tenSubscriptions(b, idx.tag)
	render := func(b *testing.B, opts registry.Options) {
		req := pipeline.Request{Paths: []string{dir}, Root: fixture.SystemOptions(b).Root, Registry: &opts}
		out, err := pipeline.Run(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(out.Resolution.Namespaces) != 10 {
			b.Fatalf("resolved %d namespaces, want 10", len(out.Resolution.Namespaces))
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			cache, err := imagecache.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			render(b, registry.Options{Cache: cache, RegistriesConf: idx.conf})
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache, err := imagecache.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		_, digest, _ := strings.Cut(idx.pinned, "@")
		opts := registry.Options{Cache: cache, RegistriesConf: idx.conf, Pins: map[string]string{idx.tag: digest}}
		render(b, opts)
		before := idx.reg.Requests.Load()
		for b.Loop() {
			render(b, opts)
		}
		if n := idx.reg.Requests.Load() - before; n != 0 {
			b.Fatalf("warm renders made %d registry requests", n)
		}
	})
}

// BenchmarkRegistryResolve resolves ten Subscriptions against the same index of 250+ packages as
// `olm-render resolve --offline` does: catalog metadata only, the index image from the cache (put
// there by one metadata-only load), no bundle image in the cache or pulled, and the lock built as
// `olm-render lock` builds it (each bundle digested by its image digest). The benchmark checks that
// no registry request is made.
func BenchmarkRegistryResolve(b *testing.B) {
	idx := publishScaled(b)
	dir := tenSubscriptions(b, idx.tag)
	cache, err := imagecache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	resolve := func(b *testing.B, offline bool) {
		req := pipeline.Request{Paths: []string{dir}, Root: fixture.SystemOptions(b).Root, MetadataOnly: true,
			Registry: &registry.Options{Cache: cache, RegistriesConf: idx.conf, Offline: offline}}
		set, err := pipeline.Load(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		res, next, _, err := lock.Resolve(context.Background(), set, nil, req.Resolve)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Namespaces) != 10 {
			b.Fatalf("resolved %d namespaces, want 10", len(res.Namespaces))
		}
		for _, ns := range next.Namespaces {
			for _, e := range ns.Subscriptions {
				if e.DigestOf != lock.DigestOfImage {
					b.Fatalf("%s/%s is digested over its %s, not its image digest", ns.Namespace, e.Subscription, e.DigestOf)
				}
			}
		}
	}
	resolve(b, false) // the index into the cache
	before := idx.reg.Requests.Load()
	b.Run("offline", func(b *testing.B) {
		for b.Loop() {
			resolve(b, true)
		}
	})
	if n := idx.reg.Requests.Load() - before; n != 0 {
		b.Fatalf("offline resolutions made %d registry requests", n)
	}
}

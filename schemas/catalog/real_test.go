package catalog

import (
	"path/filepath"
	"testing"

	"github.com/olm-render/olm-render/schemas/rootfs"
	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// TestRealCatalogs loads every source of the real-catalog corpus and pins its counts.
func TestRealCatalogs(t *testing.T) {
	shared := corpus.Dir(t)
	tests := []struct {
		path                        string
		format                      Format
		packages, channels, bundles int
	}{
		{path: "operators", format: FormatBundles, packages: 24, channels: 61, bundles: 242},
		{path: "packagemanifests/enmasse", format: FormatPackageManifest, packages: 1, channels: 1, bundles: 9},
		{path: "bundles/etcd.0.9.0", format: FormatBundles, packages: 1, channels: 3, bundles: 1},
		{path: "bundles/etcd.0.9.2", format: FormatBundles, packages: 1, channels: 2, bundles: 1},
		{path: "fbc/community-operators-prod/catalogs/v4.16", format: FormatFBC, packages: 4, channels: 7, bundles: 21},
		{path: "fbc/community-operators-prod/catalogs/v4.18", format: FormatFBC, packages: 5, channels: 8, bundles: 32},
		{path: "fbc/cluster-kube-descheduler-operator/v4.16/catalog", format: FormatFBC, packages: 1, channels: 2, bundles: 32},
		{path: "fbc/cluster-kube-descheduler-operator/v4.20/catalog", format: FormatFBC, packages: 1, channels: 2, bundles: 14},
		{path: "fbc/operator-registry/fbc-dir/file-based-catalog", format: FormatFBC, packages: 1, channels: 1, bundles: 1},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			c, err := Load(filepath.Join(shared, tt.path))
			if err != nil {
				t.Fatalf("%v", err)
			}
			p, ch, b := c.Counts()
			t.Logf("%s: %s %d packages %d channels %d bundles", tt.path, c.Format, p, ch, b)
			if c.Format != tt.format {
				t.Errorf("format %s, want %s", c.Format, tt.format)
			}
			if p != tt.packages || ch != tt.channels || b != tt.bundles {
				t.Errorf("counts %d/%d/%d, want %d/%d/%d", p, ch, b, tt.packages, tt.channels, tt.bundles)
			}
			if len(c.Broken) > 0 {
				t.Errorf("broken bundles: %+v", c.Broken)
			}
			checkAllManifests(t, c)
		})
	}
}

// checkAllManifests decodes and checks the manifests of every bundle that has them: the checks
// of checkManifests must pass every real bundle.
func checkAllManifests(t *testing.T, c *Catalog) {
	t.Helper()
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			if !b.HasManifests() {
				continue
			}
			if _, err := b.Manifests(); err != nil {
				t.Errorf("%s: %v", b.Name, err)
			}
		}
	}
}

// BenchmarkLoadOperators loads all of the corpus's operators (24 packages, 242 bundles):
// parsing every bundle, and from a warm tree cache (reading and hashing them).
func BenchmarkLoadOperators(b *testing.B) {
	root, err := rootfs.OpenDir(filepath.Join(corpus.Dir(b), "operators"), rootfs.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	warm := &mapCache{}
	if _, err := LoadFSCached(root, ".", warm); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		cache DerivedCache
	}{{"parsed", nil}, {"warm-cache", warm}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := LoadFSCached(root, ".", bc.cache); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCSVPropertiesAnnotation: the properties a CSV declares in its olm.properties annotation are
// bundle properties, as opm derives them (cockroachdb 2.1.11 declares olm.maxOpenShiftVersion).
func TestCSVPropertiesAnnotation(t *testing.T) {
	c, err := Load(filepath.Join(corpus.Dir(t), "operators", "cockroachdb"))
	if err != nil {
		t.Fatal(err)
	}
	b := c.Package("cockroachdb").Bundle("cockroachdb.v2.1.11")
	if b == nil {
		t.Fatal("no bundle cockroachdb.v2.1.11")
	}
	got := b.PropertiesOf("olm.maxOpenShiftVersion")
	if len(got) != 1 || string(got[0].Value) != `"4.8"` {
		t.Errorf("olm.maxOpenShiftVersion properties %v, want one with value \"4.8\"", got)
	}
}

package oracle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/operator-framework/operator-registry/alpha/declcfg"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
)

// writeScaledIndex writes the corpus copied to at least packages packages as an index image
// holds its catalog: one <package>/catalog.json per package, bundles with olm.csv.metadata.
func writeScaledIndex(b *testing.B, packages int) string {
	b.Helper()
	c := fixture.ScaledCatalog(b, packages, func(bundle *catalog.Bundle) string {
		return "quay.io/example/" + bundle.Package + "-bundle:v" + bundle.Version.String()
	})
	dir := b.TempDir()
	for _, p := range c.Packages {
		var buf bytes.Buffer
		one := &catalog.Catalog{Packages: []*catalog.Package{p}}
		if err := catalog.WriteFBC(&buf, one, catalog.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, p.Name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.Name, "catalog.json"), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkCatalogLoad loads the same file-based catalog (the corpus copied to 250+ packages)
// with olm-render (catalog.Load) and with operator-registry (declcfg.LoadFS + ConvertToModel),
// in one run, and reports both times and the ratio:
//
//	go test -run '^$' -bench CatalogLoad -benchtime 3x ./test/oracle
func BenchmarkCatalogLoad(b *testing.B) {
	dir := writeScaledIndex(b, 250)
	var ours, theirs time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := catalog.Load(dir); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		start = time.Now()
		cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(dir))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := declcfg.ConvertToModel(*cfg); err != nil {
			b.Fatal(err)
		}
		theirs += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(ours.Milliseconds())/n, "olm-render-ms/op")
	b.ReportMetric(float64(theirs.Milliseconds())/n, "opm-ms/op")
	b.ReportMetric(float64(theirs)/float64(ours), "x-faster")
}

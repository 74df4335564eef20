package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/test/fixture"
)

// fleetClusters is the size of the fleet BenchmarkFleet renders.
const fleetClusters = 20

// BenchmarkFleet renders a fleet of 20 clusters, each with ten Subscriptions against the same
// index image of 250+ packages (a community-size index), warm (the cache filled and the index
// pinned, as a lock pins it): as 20 separate runs, each loading the index and its bundles, and
// as one fleet run (olm-render render with no PATH), whose requests share what they load. Each
// cluster is one pipeline.Run, as each cluster of a fleet run is.
func BenchmarkFleet(b *testing.B) {
	idx := publishScaled(b)
	var clusters []string
	for range fleetClusters {
		clusters = append(clusters, tenSubscriptions(b, idx.tag))
	}
	cache, err := imagecache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	_, digest, _ := strings.Cut(idx.pinned, "@")
	opts := registry.Options{Cache: cache, RegistriesConf: idx.conf, Pins: map[string]string{idx.tag: digest}}
	renderFleet := func(b *testing.B, shared *pipeline.Shared) {
		for _, dir := range clusters {
			o := opts
			req := pipeline.Request{Paths: []string{dir}, Root: fixture.SystemOptions(b).Root, Registry: &o, Shared: shared}
			out, err := pipeline.Run(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Resolution.Namespaces) != 10 {
				b.Fatalf("resolved %d namespaces, want 10", len(out.Resolution.Namespaces))
			}
		}
	}
	renderFleet(b, nil) // the cache, warm
	b.Run("separate-runs", func(b *testing.B) {
		for b.Loop() {
			renderFleet(b, nil)
		}
	})
	b.Run("one-run", func(b *testing.B) {
		for b.Loop() {
			shared := pipeline.NewShared()
			renderFleet(b, shared)
			if n := shared.Loads(); n != 1 {
				b.Fatalf("the fleet loaded %d catalogs, want 1", n)
			}
			shared.Close()
		}
	})
}

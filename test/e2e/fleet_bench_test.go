package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// BenchmarkFleetCLI renders the same fleet as users run olm-render, warm and locked: 20
// separate runs (one process per cluster, as a repository without a fleet project file needs)
// against one run of `olm-render render` with no PATH, the project file listing the 20
// clusters. The ratio of the two is the fleet's gain: once rendering again what the output
// directories hold, once into empty ones.
func BenchmarkFleetCLI(b *testing.B) {
	idx := publishScaled(b)
	bin := buildBinary(b)
	top := b.TempDir()
	project := "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\nmetadata: {name: fleet}\nclusters:\n"
	for i := range fleetClusters {
		name := fmt.Sprintf("c%02d", i)
		if err := os.CopyFS(filepath.Join(top, "clusters", name), os.DirFS(tenSubscriptions(b, idx.tag))); err != nil {
			b.Fatal(err)
		}
		project += fmt.Sprintf("- {name: %s, path: clusters/%s, outputDir: rendered/%s}\n", name, name, name)
	}
	if err := os.WriteFile(filepath.Join(top, "olm-render.yaml"), []byte(project), 0o644); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "OLM_RENDER_CACHE="+filepath.Join(b.TempDir(), "cache"), "CONTAINERS_REGISTRIES_CONF="+idx.conf)
	olmRender := func(b *testing.B, args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = top, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("olm-render %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	olmRender(b, "lock")
	olmRender(b, "render", "--locked") // the bundle images into the cache
	separate := func(b *testing.B) {
		for i := range fleetClusters {
			name := fmt.Sprintf("c%02d", i)
			olmRender(b, "render", "--locked", "--project=none", "--output-dir", "separate/"+name, "clusters/"+name)
		}
	}
	fresh := func(b *testing.B, dirs ...string) {
		b.StopTimer()
		for _, d := range dirs {
			if err := os.RemoveAll(filepath.Join(top, d)); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	// Rendering again what the output directories hold: a CI check, or a pull request that
	// changes one cluster; outdir leaves unchanged directories alone.
	b.Run("separate-runs", func(b *testing.B) {
		for b.Loop() {
			separate(b)
		}
	})
	b.Run("one-run", func(b *testing.B) {
		for b.Loop() {
			olmRender(b, "render", "--locked")
		}
	})
	// Rendering into empty output directories: every file written.
	b.Run("separate-runs-fresh", func(b *testing.B) {
		for b.Loop() {
			fresh(b, "separate")
			separate(b)
		}
	})
	b.Run("one-run-fresh", func(b *testing.B) {
		for b.Loop() {
			fresh(b, "rendered")
			olmRender(b, "render", "--locked")
		}
	})
}

package oracle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing/fstest"
	"time"

	olmregistry "github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/pkg/api"
	"github.com/operator-framework/operator-registry/pkg/cache"
	"github.com/operator-framework/operator-registry/pkg/client"
	"github.com/operator-framework/operator-registry/pkg/image"
	"github.com/operator-framework/operator-registry/pkg/registry"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// registryCatalog is a catalog as OLM's catalog operator sees it: the operator-registry cache
// `opm serve` builds from a file-based catalog and serves over gRPC, queried in-process.
type registryCatalog struct {
	query cache.Cache
	// dirs are the directories of a bundle tree's bundles, by name@image.
	dirs map[string]string
	// dropped says, by package/channel, why a channel of a bundle tree is not in the catalog
	// (opm refuses it).
	dropped map[string]string
}

// bundle returns a bundle with its manifests, found by name and image.
func (r *registryCatalog) bundle(ctx context.Context, name, image string) (*api.Bundle, error) {
	all, err := r.query.ListBundles(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing bundles: %w", err)
	}
	for _, b := range all {
		if b.CsvName == name && b.BundlePath == image {
			return r.query.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
		}
	}
	return nil, fmt.Errorf("bundle %s (%s) is not in the catalog", name, image)
}

// registryCatalogs builds each catalog once and shares it between cases.
var registryCatalogs struct {
	sync.Mutex
	byPath map[string]*registryCatalogOnce
}

type registryCatalogOnce struct {
	once sync.Once
	cat  *registryCatalog
	err  error
}

// loadRegistryCatalog returns the registry cache of the catalog at path (an FBC directory or
// file, or a registry+v1 bundle tree), building it on first use in a directory under tmp.
func loadRegistryCatalog(ctx context.Context, path string, ours *catalog.Catalog, tmp string) (*registryCatalog, error) {
	registryCatalogs.Lock()
	if registryCatalogs.byPath == nil {
		registryCatalogs.byPath = map[string]*registryCatalogOnce{}
	}
	o := registryCatalogs.byPath[path]
	if o == nil {
		o = &registryCatalogOnce{}
		registryCatalogs.byPath[path] = o
	}
	registryCatalogs.Unlock()
	o.once.Do(func() { o.cat, o.err = buildRegistryCatalog(ctx, path, ours, tmp) })
	return o.cat, o.err
}

// buildRegistryCatalog builds the operator-registry cache of a catalog.
func buildRegistryCatalog(ctx context.Context, path string, ours *catalog.Catalog, tmp string) (*registryCatalog, error) {
	fbc, dropped, err := fbcOf(path, ours)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tmp, "registry-cache-")
	if err != nil {
		return nil, fmt.Errorf("creating the registry cache directory: %w", err)
	}
	c, err := cache.New(dir, cache.WithFormat("json"))
	if err != nil {
		return nil, fmt.Errorf("opening the registry cache of %s: %w", path, err)
	}
	if err := cache.LoadOrRebuild(ctx, c, fbc); err != nil {
		return nil, fmt.Errorf("building the registry cache of %s: %w", path, err)
	}
	dirs := map[string]string{}
	if ours.Format == catalog.FormatBundles {
		for _, p := range ours.Packages {
			for _, b := range p.Bundles {
				dirs[b.Name+"@"+bundleImage(b)] = bundleDir(b)
			}
		}
	}
	return &registryCatalog{query: c, dirs: dirs, dropped: dropped}, nil
}

// fbcOf returns the file-based catalog of a snapshot: the snapshot itself when it is one; for a
// registry+v1 bundle tree, every bundle rendered by opm's own `opm render <bundle dir>` (as the
// community pipeline renders bundle images) under the packages and channel graph of our catalog
// loader (no OLM code builds a graph from a bundle tree: the pipeline does). It also returns
// the channels of a bundle tree left out, by package/channel, with opm's reason.
func fbcOf(path string, ours *catalog.Catalog) (fs.FS, map[string]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading catalog %s: %w", path, err)
	}
	if ours.Format == catalog.FormatFBC {
		if !st.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, nil, fmt.Errorf("reading catalog %s: %w", path, err)
			}
			return fstest.MapFS{filepath.Base(path): {Data: data}}, nil, nil
		}
		return os.DirFS(path), nil, nil
	}
	if ours.Format != catalog.FormatBundles {
		return nil, nil, fmt.Errorf("catalog %s: format %s has no file-based catalog", path, ours.Format)
	}
	cfg, dropped, err := treeToFBC(ours)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := declcfg.WriteJSON(*cfg, &buf); err != nil {
		return nil, nil, fmt.Errorf("writing the file-based catalog of %s: %w", path, err)
	}
	return fstest.MapFS{"catalog.json": {Data: buf.Bytes()}}, dropped, nil
}

// treeToFBC renders a registry+v1 bundle tree as a file-based catalog. Channels opm refuses
// (declcfg.ConvertToModel fails on them: several heads, cycles) are left out, as the
// community pipeline would never have published them; so are packages left without any. It
// returns the channels left out, by package/channel, with opm's reason.
func treeToFBC(ours *catalog.Catalog) (*declcfg.DeclarativeConfig, map[string]string, error) {
	cfg := &declcfg.DeclarativeConfig{}
	dropped := map[string]string{}
	for _, p := range ours.Packages {
		bundles := map[string]declcfg.Bundle{}
		for _, b := range p.Bundles {
			rendered, err := renderBundleDir(b)
			if err != nil {
				return nil, nil, err
			}
			bundles[b.Name] = *rendered
		}
		var channels []declcfg.Channel
		for _, ch := range p.Channels {
			c := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: p.Name, Name: ch.Name}
			for _, e := range ch.Entries {
				c.Entries = append(c.Entries, declcfg.ChannelEntry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange})
			}
			if err := opmAccepts(p.Name, c, bundles); err != nil {
				dropped[p.Name+"/"+c.Name] = err.Error()
			} else {
				channels = append(channels, c)
			}
		}
		if len(channels) == 0 {
			continue
		}
		def := channels[0].Name
		for _, c := range channels {
			if c.Name == p.DefaultChannel {
				def = c.Name
			}
		}
		cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: p.Name, DefaultChannel: def})
		cfg.Channels = append(cfg.Channels, channels...)
		cfg.Bundles = append(cfg.Bundles, bundlesIn(channels, bundles)...)
	}
	return cfg, dropped, nil
}

// opmAccepts returns why opm's model refuses a channel with its bundles, or nil.
func opmAccepts(pkg string, c declcfg.Channel, bundles map[string]declcfg.Bundle) error {
	probe := declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: declcfg.SchemaPackage, Name: pkg, DefaultChannel: c.Name}},
		Channels: []declcfg.Channel{c},
		Bundles:  bundlesIn([]declcfg.Channel{c}, bundles),
	}
	_, err := declcfg.ConvertToModel(probe)
	return err
}

// bundlesIn returns the bundles the channels hold, each once, in channel order.
func bundlesIn(channels []declcfg.Channel, bundles map[string]declcfg.Bundle) []declcfg.Bundle {
	var out []declcfg.Bundle
	seen := map[string]bool{}
	for _, c := range channels {
		for _, e := range c.Entries {
			if b, ok := bundles[e.Name]; ok && !seen[e.Name] {
				seen[e.Name] = true
				out = append(out, b)
			}
		}
	}
	return out
}

// renderBundleDir renders a bundle directory as `opm render <bundle dir>` does
// (alpha/action's renderBundleDirectory and bundleToDeclcfg: registry.NewImageInput parses the
// directory, registry.ObjectsAndPropertiesFromBundle derives the properties and
// olm.bundle.object values; alpha/action itself is not imported because it needs cgo's gpgme),
// and names its image as a catalog built from bundle images would. Related images are left
// out: nothing OLM installs reads them from the catalog.
func renderBundleDir(b *catalog.Bundle) (*declcfg.Bundle, error) {
	dir := bundleDir(b)
	img, err := registry.NewImageInput(image.SimpleReference(""), dir)
	if err != nil {
		return nil, fmt.Errorf("opm render %s: %w", dir, err)
	}
	objs, props, err := registry.ObjectsAndPropertiesFromBundle(img.Bundle)
	if err != nil {
		return nil, fmt.Errorf("opm render %s: %w", dir, err)
	}
	out := &declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: img.Bundle.Name, Package: img.Bundle.Package,
		Image: bundleImage(b), Properties: props, Objects: objs}
	return out, nil
}

// bundleDir returns the directory of a registry+v1 bundle: the parent of its CSV's folder.
func bundleDir(b *catalog.Bundle) string {
	return filepath.Dir(filepath.Dir(b.Origin.File))
}

// bundleImage is the image reference a bundle of a bundle tree is given (the tree has none).
func bundleImage(b *catalog.Bundle) string {
	if b.Image != "" {
		return b.Image
	}
	return "registry.invalid/" + b.Package + "-bundle:v" + b.Version.String()
}

// registryClient is operator-registry's registry client on a registry cache, answering as the
// gRPC server `opm serve` runs does (pkg/server/server.go).
type registryClient struct{ q cache.Cache }

var _ client.Interface = registryClient{}

// GetBundle implements client.Interface.
func (r registryClient) GetBundle(ctx context.Context, pkg, channel, csv string) (*api.Bundle, error) {
	return r.q.GetBundle(ctx, pkg, channel, csv)
}

// GetBundleInPackageChannel implements client.Interface.
func (r registryClient) GetBundleInPackageChannel(ctx context.Context, pkg, channel string) (*api.Bundle, error) {
	return r.q.GetBundleForChannel(ctx, pkg, channel)
}

// GetReplacementBundleInPackageChannel implements client.Interface.
func (r registryClient) GetReplacementBundleInPackageChannel(ctx context.Context, current, pkg, channel string) (*api.Bundle, error) {
	return r.q.GetBundleThatReplaces(ctx, current, pkg, channel)
}

// GetBundleThatProvides implements client.Interface.
func (r registryClient) GetBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error) {
	return r.q.GetBundleThatProvides(ctx, group, version, kind)
}

// ListBundles implements client.Interface with the cache's bundle stream (SendBundles).
func (r registryClient) ListBundles(ctx context.Context) (*client.BundleIterator, error) {
	s := &bundleStream{}
	if err := r.q.SendBundles(ctx, s); err != nil {
		return nil, fmt.Errorf("listing bundles: %w", err)
	}
	return client.NewBundleIterator(s), nil
}

// GetPackage implements client.Interface.
func (r registryClient) GetPackage(ctx context.Context, name string) (*api.Package, error) {
	p, err := r.q.GetPackage(ctx, name)
	if err != nil {
		return nil, err
	}
	return registry.PackageManifestToAPIPackage(p), nil
}

// HealthCheck implements client.Interface.
func (registryClient) HealthCheck(context.Context, time.Duration) (bool, error) { return true, nil }

// Close implements client.Interface.
func (registryClient) Close() error { return nil }

// bundleStream is a bundle stream held in memory: it is both the sender the cache writes to
// and the stream the iterator reads.
type bundleStream struct {
	bundles []*api.Bundle
	next    int
}

// Send implements registry.BundleSender.
func (s *bundleStream) Send(b *api.Bundle) error {
	s.bundles = append(s.bundles, b)
	return nil
}

// Recv implements client.BundleStream.
func (s *bundleStream) Recv() (*api.Bundle, error) {
	if s.next == len(s.bundles) {
		return nil, io.EOF
	}
	s.next++
	return s.bundles[s.next-1], nil
}

// clientProvider gives OLM's registry source provider the client of each CatalogSource.
type clientProvider map[olmregistry.CatalogKey]client.Interface

// ClientsForNamespaces implements resolver.RegistryClientProvider.
func (p clientProvider) ClientsForNamespaces(...string) map[olmregistry.CatalogKey]client.Interface {
	return p
}

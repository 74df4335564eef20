package pipeline

import (
	"context"
	"errors"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// loader loads catalog snapshots for inputs.Load: from the root, or pulled from a registry.
type loader struct {
	ctx    context.Context
	opts   *registry.Options
	client *registry.Client
	// metadataOnly leaves bundle images unpulled (Request.MetadataOnly).
	metadataOnly bool
}

// prepare creates the registry client, with the digest mirrors the inputs declare.
func (l *loader) prepare(set *inputs.Set) error {
	if l.opts == nil {
		return nil
	}
	opts := *l.opts
	for _, m := range set.ImageMirrors {
		opts.Mirrors = append(opts.Mirrors, registry.Mirror{Source: m.Source, Mirrors: m.Mirrors,
			NeverContactSource: m.NeverContactSource, From: m.Object})
	}
	client, err := registry.New(opts)
	if err != nil {
		return err
	}
	l.client = client
	return nil
}

// errNoRegistry is returned for a catalog given by image when the command pulls nothing.
var errNoRegistry = errors.New("this command does not pull images")

// load loads one catalog snapshot; bundles without manifests pull their images when rendered
// (unless metadataOnly: they then have none).
func (l *loader) load(root rootfs.FS, src inputs.Source) (*catalog.Catalog, error) {
	if src.Image != "" {
		if l.client == nil {
			return nil, errNoRegistry
		}
		if l.metadataOnly {
			return l.client.LoadIndex(l.ctx, src.Image)
		}
		return l.client.LoadCatalog(l.ctx, src.Image)
	}
	var cache catalog.DerivedCache
	if l.opts != nil && l.opts.Cache != nil {
		cache = l.opts.Cache
	}
	cat, err := catalog.LoadFSCached(root, src.Path, cache)
	if err != nil {
		return nil, err
	}
	if l.client != nil && !l.metadataOnly {
		l.client.AttachBundles(l.ctx, cat)
	}
	return cat, nil
}

// Prefetch reads the manifests of every chosen bundle, concurrently, so that bundle images are
// pulled in parallel rather than one by one as the renderer reaches them. Errors are kept by the
// bundles and reported by the renderer.
func Prefetch(res *resolver.Result) { catalog.ReadManifests(res.Bundles()) }

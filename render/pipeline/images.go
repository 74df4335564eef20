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
	// shared keeps snapshots between the requests of a run (Request.Shared).
	shared *Shared
}

// prepare creates the registry client, with the digest mirrors the inputs declare.
func (l *loader) prepare(set *inputs.Set) error {
	if l.opts == nil {
		return nil
	}
	opts := *l.opts
	for _, m := range set.ImageMirrors {
		opts.Mirrors = append(opts.Mirrors, registry.Mirror{Source: m.Source, Mirrors: m.Mirrors, Tags: m.Tags,
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

// load loads one catalog snapshot, once per run when the request shares its snapshots
// (Request.Shared).
func (l *loader) load(root rootfs.FS, src inputs.Source) (*catalog.Catalog, error) {
	key, ok := l.sharedKey(root, src)
	if !ok {
		return l.loadOwn(root, src)
	}
	return l.shared.load(key, func() (*catalog.Catalog, error) {
		if d, ok := root.(*rootfs.Dir); ok && src.Image == "" {
			own, err := l.shared.root(d)
			if err != nil {
				return nil, err
			}
			root = own
		}
		return l.loadOwn(root, src)
	})
}

// sharedKey is the identity a snapshot is shared by: its directory, or its index image's
// digest (a tag is resolved first: two clusters may pin it to different digests).
func (l *loader) sharedKey(root rootfs.FS, src inputs.Source) (string, bool) {
	if l.shared == nil {
		return "", false
	}
	mode := "full:"
	if l.metadataOnly {
		mode = "metadata:"
	}
	if src.Image == "" {
		key, ok := pathKey(root, src)
		return mode + key, ok
	}
	if l.client == nil {
		return "", false
	}
	pinned, err := l.client.Resolve(l.ctx, src.Image)
	if err != nil {
		return "", false
	}
	return mode + "image:" + pinned.String(), true
}

// loadOwn loads one catalog snapshot; bundles without manifests pull their images when rendered
// (unless metadataOnly: they then have none).
func (l *loader) loadOwn(root rootfs.FS, src inputs.Source) (*catalog.Catalog, error) {
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

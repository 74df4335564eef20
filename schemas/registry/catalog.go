package registry

import (
	"context"
	"fmt"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// LoadCatalog pulls an index image and loads its file-based catalog, with every bundle that has
// no inline manifests set to pull its bundle image when first rendered (AttachBundles).
func (c *Client) LoadCatalog(ctx context.Context, ref string) (*catalog.Catalog, error) {
	cat, err := c.LoadIndex(ctx, ref)
	if err != nil {
		return nil, err
	}
	c.AttachBundles(ctx, cat)
	return cat, nil
}

// LoadIndex pulls an index image and loads its file-based catalog: metadata only, as OLM's
// resolver reads it; a bundle without inline manifests has none (AttachBundles pulls them).
//
// The loaded catalog is cached by the index image's digest (and this build's catalog encoding),
// so a warm load reads one verified blob instead of parsing the catalog again.
func (c *Client) LoadIndex(ctx context.Context, ref string) (*catalog.Catalog, error) {
	p, err := parse(ref)
	if err != nil {
		return nil, err
	}
	pinned, err := c.resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	key := "index-catalog/" + catalog.EncodingKey() + "/" + pinned.Digest.String()
	cat, err := c.cachedCatalog(key)
	if err != nil {
		if cat, err = c.loadIndexCatalog(ctx, pinned, key); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

// cachedCatalog reads a catalog loaded earlier from the same index image.
func (c *Client) cachedCatalog(key string) (*catalog.Catalog, error) {
	data, err := c.opts.Cache.Derived(key, c.limits.MaxKeptSize*2)
	if err != nil {
		return nil, err
	}
	return catalog.Unmarshal(data)
}

// loadIndexCatalog pulls an index image, loads its catalog and caches the result.
func (c *Client) loadIndexCatalog(ctx context.Context, pinned Pinned, key string) (*catalog.Catalog, error) {
	idx, err := c.Index(ctx, pinned.String())
	if err != nil {
		return nil, err
	}
	cat, err := catalog.LoadFS(idx.FS, idx.Root)
	if err != nil {
		return nil, err
	}
	cat.Image = idx.Pinned.String()
	dropCSVMetadata(cat)
	data, err := catalog.Marshal(cat)
	if err != nil {
		return nil, err
	}
	if err := c.opts.Cache.SetDerived(key, data); err != nil {
		return nil, err
	}
	return cat, nil
}

// AttachBundles makes every bundle of cat that has no manifests but names a bundle image pull
// that image on first use (Bundle.Manifests), by the digest the catalog gives or the lock pins.
func (c *Client) AttachBundles(ctx context.Context, cat *catalog.Catalog) {
	for _, p := range cat.Packages {
		for _, b := range p.Bundles {
			if b.HasManifests() || b.Image == "" {
				continue
			}
			b.SetManifests(func() (*catalog.Manifests, error) { return c.bundleManifests(ctx, b) })
		}
	}
}

// dropCSVMetadata drops the olm.csv.metadata of every bundle whose manifests come from its image
// or the catalog: nothing reads it then (it is the CSV minus its install strategy), and it is most
// of an index's bytes, so a cached catalog loads in a fraction of the time. Both the first load
// and cached ones drop it, so they are the same.
func dropCSVMetadata(cat *catalog.Catalog) {
	for _, p := range cat.Packages {
		for _, b := range p.Bundles {
			if b.Image != "" || len(b.InlineObjects) > 0 {
				b.CSVMetadata = nil
			}
		}
	}
}

// bundleManifests reads a bundle's manifests from its image: from the cache of manifests read
// before (by the image's digest), else by pulling the image.
func (c *Client) bundleManifests(ctx context.Context, b *catalog.Bundle) (*catalog.Manifests, error) {
	ref := c.bundleRef(b)
	pinned, err := c.Resolve(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	key := "bundle-manifests/" + catalog.EncodingKey() + "/" + pinned.Digest.String() + "/" + b.Package + "/" + b.Name
	if data, err := c.opts.Cache.Derived(key, c.limits.MaxKeptSize); err == nil {
		if m, err := catalog.UnmarshalManifests(data); err == nil {
			b.SetPinnedImage(pinned.String())
			return m, nil
		}
	}
	m, err := c.pullBundleManifests(ctx, b, pinned.String())
	if err != nil {
		return nil, err
	}
	data, err := catalog.MarshalManifests(m)
	if err != nil {
		return nil, err
	}
	return m, c.opts.Cache.SetDerived(key, data)
}

// pullBundleManifests pulls a bundle's image and reads its manifests, checking that the image
// holds the bundle the catalog says it does.
func (c *Client) pullBundleManifests(ctx context.Context, b *catalog.Bundle, ref string) (*catalog.Manifests, error) {
	img, err := c.Bundle(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	got, err := catalog.LoadBundle(img.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("bundle %s: image %s: %w", b.Name, img.Pinned, err)
	}
	switch {
	case got.Name != b.Name:
		return nil, fmt.Errorf("bundle %s: image %s holds ClusterServiceVersion %s, not %s", b.Name, img.Pinned, got.Name, b.Name)
	case got.Package != b.Package:
		return nil, fmt.Errorf("bundle %s: image %s belongs to package %s, not %s", b.Name, img.Pinned, got.Package, b.Package)
	}
	b.SetPinnedImage(img.Pinned.String())
	return got.Manifests()
}

// bundleRef is the reference a bundle is pulled at: the catalog's, or the lock's pin when the
// catalog gives a tag of the same repository.
func (c *Client) bundleRef(b *catalog.Bundle) string {
	pin, ok := c.opts.BundlePins[b.Package+"/"+b.Name]
	if !ok || IsPinned(b.Image) {
		return b.Image
	}
	want, err1 := parse(b.Image)
	got, err2 := parse(pin)
	if err1 != nil || err2 != nil || want.named.Name() != got.named.Name() {
		return b.Image
	}
	return pin
}

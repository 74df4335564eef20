package registry

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// SourceSchema is the schema of the FBC object a vendored snapshot records its origin in.
const SourceSchema = catalog.SourceSchema

// Source is the origin of a vendored snapshot: the index image (by digest) it was cut from and
// the packages asked for.
type Source = catalog.Source

// Snapshot is a self-contained file-based catalog cut from an index image.
type Snapshot struct {
	// FBC is the catalog: a JSON stream.
	FBC []byte
	// Source is where it came from.
	Source Source
	// Packages are the packages it holds: the named ones and their dependency closure.
	Packages []string
	// Unfollowed are the CEL constraints whose dependencies could not be followed.
	Unfollowed []string
	// Bundles counts the bundles, each with its manifests inlined.
	Bundles int
}

// SnapshotWorkers bounds the bundle images pulled at once.
const SnapshotWorkers = 8

// Snapshot pulls an index image and cuts a pinned, self-contained file-based catalog from it:
// only the named packages and their dependency closure (every package when none is named), each
// bundle's manifests inlined as olm.bundle.object properties (its bundle image pulled,
// concurrently), bundle images by digest, and the index image's digest recorded.
func (c *Client) Snapshot(ctx context.Context, ref string, packages []string) (*Snapshot, error) {
	cat, err := c.LoadCatalog(ctx, ref)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Source: Source{Schema: SourceSchema, Image: cat.Image, Packages: packages}}
	if len(packages) > 0 {
		if s.Packages, s.Unfollowed, err = catalog.Closure(cat, packages); err != nil {
			return nil, fmt.Errorf("%s: %w", cat.Image, err)
		}
		cat = catalog.Subset(cat, s.Packages)
	} else {
		for _, p := range cat.Packages {
			s.Packages = append(s.Packages, p.Name)
		}
	}
	if s.Bundles, err = pullAll(cat); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	image := func(b *catalog.Bundle) string { return cmp.Or(b.PinnedImage(), b.Image) }
	if err := catalog.WriteFBC(&buf, cat, catalog.WriteOptions{Objects: true, Image: image}); err != nil {
		return nil, err
	}
	src, err := json.Marshal(s.Source)
	if err != nil {
		return nil, err
	}
	s.FBC = append(append(buf.Bytes(), src...), '\n')
	return s, nil
}

// pullAll reads every bundle's manifests (pulling bundle images), concurrently; it returns the
// number of bundles or the first error in bundle order.
func pullAll(cat *catalog.Catalog) (int, error) {
	var bundles []*catalog.Bundle
	for _, p := range cat.Packages {
		bundles = append(bundles, p.Bundles...)
	}
	errs := make([]error, len(bundles))
	sem := make(chan struct{}, SnapshotWorkers)
	var wg sync.WaitGroup
	for i, b := range bundles {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, errs[i] = b.Manifests()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return 0, fmt.Errorf("bundle %s: %w", bundles[i].Name, err)
		}
	}
	return len(bundles), nil
}

package pipeline

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// Shared keeps the catalog snapshots loaded by the requests of one run (a fleet's clusters),
// so that a snapshot several of them bind is read and parsed once. A catalog is shared only
// where its identity is certain: a snapshot in a directory by its path, an index image by its
// digest. It is safe for concurrent use.
type Shared struct {
	mu       sync.Mutex
	catalogs map[string]*sharedCatalog
	// roots are the roots shared snapshots are read through, one per directory, open until
	// Close: a snapshot reads its bundles' manifests on first use, after the request that
	// loaded it closed its own root.
	roots map[string]*rootfs.Dir
}

// sharedCatalog is one snapshot, loaded by the first request that needs it.
type sharedCatalog struct {
	once sync.Once
	cat  *catalog.Catalog
	err  error
}

// NewShared returns an empty Shared.
func NewShared() *Shared {
	return &Shared{catalogs: map[string]*sharedCatalog{}, roots: map[string]*rootfs.Dir{}}
}

// Close closes the roots the shared snapshots read through.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, d := range s.roots {
		errs = append(errs, d.Close())
	}
	s.roots = map[string]*rootfs.Dir{}
	return errors.Join(errs...)
}

// root returns the Shared's own handle on a root, opened the first time.
func (s *Shared) root(d *rootfs.Dir) (*rootfs.Dir, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if own, ok := s.roots[d.Root()]; ok {
		return own, nil
	}
	own, err := d.Reopen()
	if err != nil {
		return nil, err
	}
	s.roots[d.Root()] = own
	return own, nil
}

// Loads returns how many distinct snapshots were loaded, for tests and benchmarks.
func (s *Shared) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.catalogs)
}

// load returns the snapshot of key, loading it with fn the first time.
func (s *Shared) load(key string, fn func() (*catalog.Catalog, error)) (*catalog.Catalog, error) {
	s.mu.Lock()
	c, ok := s.catalogs[key]
	if !ok {
		c = &sharedCatalog{}
		s.catalogs[key] = c
	}
	s.mu.Unlock()
	c.once.Do(func() { c.cat, c.err = fn() })
	return c.cat, c.err
}

// pathKey is the identity of a snapshot read from a directory: its absolute path, when the
// root is a directory (a root in memory has none).
func pathKey(root rootfs.FS, src inputs.Source) (string, bool) {
	d, ok := root.(*rootfs.Dir)
	if !ok || src.Image != "" {
		return "", false
	}
	return "path:" + filepath.Join(d.Root(), filepath.FromSlash(src.Path)), true
}

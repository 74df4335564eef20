package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// DerivedCache keeps what loading derives from content, under keys that name the content
// (schemas/imagecache.Cache is one).
type DerivedCache interface {
	Derived(key string, limit int64) ([]byte, error)
	SetDerived(key string, data []byte) error
}

// LoadFSCached is LoadFS with a cache for the bundles of a bundle tree: each bundle directory
// whose files (metadata/ and manifests/, names and contents) were loaded before without a
// problem is taken from the cache, so a warm load reads and hashes the files but parses none.
// A nil cache caches nothing.
func LoadFSCached(fsys rootfs.FS, name string, cache DerivedCache) (*Catalog, error) {
	return loadFS(fsys, name, cache)
}

// bundleCacheFormat names the format of cached bundles. The key also holds the digest of the
// running executable (builder), so that no cache serves what another build derived.
const bundleCacheFormat = "olm-render/bundle-dir/v2"

// builder identifies the running executable by its content's digest, computed once; "" when it
// cannot be read (then nothing is cached).
var builder = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
})

// maxCachedBundle bounds a cached bundle record.
const maxCachedBundle = 16 << 20

// cachedBundle is what a bundle directory's files give: enough to serve the bundle without
// parsing them again (its manifests are read when rendered, as lazyManifests reads them).
type cachedBundle struct {
	Package        string         `json:"package"`
	Channels       []string       `json:"channels"`
	DefaultChannel string         `json:"defaultChannel,omitempty"`
	Annotations    string         `json:"annotations"` // the annotations file, relative to the bundle directory
	Entry          ChannelEntry   `json:"entry"`
	Version        string         `json:"version"`
	Properties     []Property     `json:"properties"`
	RelatedImages  []RelatedImage `json:"relatedImages,omitempty"`
	CSV            string         `json:"csv"` // the CSV's file, relative to the bundle directory
	CSVIndex       int            `json:"csvIndex"`
	Digest         string         `json:"digest"`                 // of manifests/, as Manifests.digest
	Dependencies   string         `json:"dependencies,omitempty"` // the metadata/ file of the dependencies, relative to the bundle directory
	// Declared are the fields its declared properties were written at (Bundle.Declared).
	Declared map[string]string `json:"declared,omitempty"`
}

// readBundleDirCached reads a bundle directory of a tree through the cache.
func readBundleDirCached(fsys rootfs.FS, dir string, cache DerivedCache) (*dirBundle, diag.Problems) {
	if cache == nil || builder() == "" {
		return readBundleDir(fsys, dir, true)
	}
	key, files, err := bundleDirKey(fsys, dir)
	if err != nil {
		return readBundleDir(fsys, dir, true) // which reports what cannot be read
	}
	if data, err := cache.Derived(key, maxCachedBundle); err == nil {
		if b, ok := fromCache(fsys, dir, data); ok {
			return b, nil
		}
	}
	b, problems := readBundleFiles(fsys, dir, files)
	if len(problems) == 0 && b.bundle != nil {
		if data, err := json.Marshal(toCache(fsys, dir, b)); err == nil {
			_ = cache.SetDerived(key, data) // a cache that cannot store is only slower
		}
	}
	return b, problems
}

// bundleDirKey names a bundle directory's content: the cache format and the executable, then
// every file of its metadata/ and manifests/ that loading reads (not hidden, not directories),
// by name and content. It returns the files too, by their names in the bundle directory.
func bundleDirKey(fsys rootfs.FS, dir string) (string, map[string][]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", bundleCacheFormat, builder())
	files := map[string][]byte{}
	for _, sub := range []string{"metadata", "manifests"} {
		entries, err := fsys.ReadDir(path.Join(dir, sub))
		if err != nil {
			return "", nil, err
		}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			data, err := fsys.ReadFile(path.Join(dir, sub, e.Name()))
			if err != nil {
				return "", nil, err
			}
			fmt.Fprintf(h, "%s/%s\n%d\n", sub, e.Name(), len(data))
			h.Write(data)
			files[sub+"/"+e.Name()] = data
		}
	}
	return bundleCacheFormat + "/sha256:" + hex.EncodeToString(h.Sum(nil)), files, nil
}

// readBundleFiles reads a bundle directory from the files bundleDirKey read, so that nothing is
// read twice (each read counts against the root's budget), as readBundleDir reads it from fsys.
func readBundleFiles(fsys rootfs.FS, dir string, files map[string][]byte) (*dirBundle, diag.Problems) {
	hasMetadata, hasManifests := false, false
	for name := range files {
		hasMetadata = hasMetadata || strings.HasPrefix(name, "metadata/")
		hasManifests = hasManifests || strings.HasPrefix(name, "manifests/")
	}
	mem, err := rootfs.NewMap(fsys.Path(dir), files)
	if err != nil || !hasMetadata || !hasManifests {
		return readBundleDir(fsys, dir, true) // an empty directory, which the map cannot hold
	}
	b, problems := readBundleDir(mem, ".", false)
	b.dir = dir
	b.annotationsFile = path.Join(dir, b.annotationsFile)
	if b.csvFile != "" {
		b.csvFile = path.Join(dir, b.csvFile)
	}
	if b.dependenciesFile != "" {
		b.dependenciesFile = path.Join(dir, b.dependenciesFile)
	}
	if b.bundle != nil && len(b.bundle.Invalid) == 0 {
		b.bundle.SetManifests(lazyManifests(fsys, path.Join(dir, "manifests"), b.digest))
	}
	return b, problems
}

// toCache records a bundle read without a problem.
func toCache(fsys rootfs.FS, dir string, b *dirBundle) cachedBundle {
	return cachedBundle{
		Package: b.pkg, Channels: b.channels, DefaultChannel: b.defaultChannel,
		Annotations: relTo(dir, b.annotationsFile), Entry: b.entry,
		Version: b.bundle.Version.String(), Properties: b.bundle.Properties, RelatedImages: b.bundle.RelatedImages,
		CSV: relTo(dir, b.csvFile), CSVIndex: b.bundle.Origin.Index, Digest: hex.EncodeToString(b.digest[:]),
		Dependencies: relTo(dir, b.dependenciesFile), Declared: b.bundle.declaredAt,
	}
}

// fromCache rebuilds a bundle from its record; false when the record does not fit.
func fromCache(fsys rootfs.FS, dir string, data []byte) (*dirBundle, bool) {
	var c cachedBundle
	if err := json.Unmarshal(data, &c); err != nil || c.Package == "" || c.Entry.Name == "" {
		return nil, false
	}
	version, err := semver.Parse(c.Version)
	if err != nil {
		return nil, false
	}
	var digest [sha256.Size]byte
	if raw, err := hex.DecodeString(c.Digest); err != nil || len(raw) != len(digest) {
		return nil, false
	} else {
		copy(digest[:], raw)
	}
	annotations := path.Join(dir, c.Annotations)
	csv := path.Join(dir, c.CSV)
	b := &dirBundle{dir: dir, pkg: c.Package, channels: c.Channels, defaultChannel: c.DefaultChannel,
		annotations: diag.Origin{File: fsys.Path(annotations)}, annotationsFile: annotations, csvFile: csv,
		entry: c.Entry, digest: digest}
	b.bundle = &Bundle{Package: c.Package, Name: c.Entry.Name, Version: version, RelatedImages: c.RelatedImages,
		Properties: c.Properties, Origin: diag.Origin{File: fsys.Path(csv), Index: c.CSVIndex},
		Channels: sortedChannels(c.Channels), declaredAt: c.Declared}
	if c.Dependencies != "" {
		b.dependenciesFile = path.Join(dir, c.Dependencies)
		b.bundle.DependenciesOrigin = diag.Origin{File: fsys.Path(b.dependenciesFile)}
	}
	b.bundle.SetManifests(lazyManifests(fsys, path.Join(dir, "manifests"), digest))
	return b, true
}

// relTo returns name relative to dir (name is under dir).
func relTo(dir, name string) string {
	if dir == "." {
		return name
	}
	return strings.TrimPrefix(name, dir+"/")
}

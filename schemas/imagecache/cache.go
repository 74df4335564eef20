// Package imagecache is a content-addressed store for image content: manifests, configs and
// layers kept by digest and verified on every write and every read, plus the small records that
// point at them (the digest a tag resolved to, content derived from a blob). It is safe for
// several processes at once: every file is written to a temporary name and renamed into place,
// and content-addressed files never change once written.
//
// # Layout
//
//	<dir>/blobs/<algorithm>/<hex>     content, by digest (as in an OCI image layout)
//	<dir>/tags/<sha256 of reference>  JSON {reference, digest, time}: what a tag last resolved to
//	<dir>/derived/<sha256 of key>     JSON {key, digest}: a blob derived from other blobs
package imagecache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/opencontainers/go-digest"
)

// ErrMissing is returned for content that is not in the cache.
var ErrMissing = errors.New("not in the cache")

// Cache is a cache directory.
type Cache struct {
	dir string
}

// DefaultDir is $OLM_RENDER_CACHE, else $XDG_CACHE_HOME/olm-render, else ~/.cache/olm-render.
func DefaultDir() (string, error) {
	if d := os.Getenv("OLM_RENDER_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory (set OLM_RENDER_CACHE): %w", err)
	}
	return filepath.Join(base, "olm-render"), nil
}

// Open opens the cache in dir. Nothing is created until something is stored, so a run that
// pulls nothing needs no writable cache; dir "" is a cache that holds nothing and refuses to
// store (no cache directory could be found).
func Open(dir string) (*Cache, error) {
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// errNoDir is returned when storing in a cache without a directory.
var errNoDir = errors.New("no cache directory (set OLM_RENDER_CACHE or --cache-dir to a writable directory)")

func (c *Cache) blobPath(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil {
		return "", fmt.Errorf("invalid digest %q: %w", d, err)
	}
	if c.dir == "" {
		return "", fmt.Errorf("blob %s: %w", d, ErrMissing)
	}
	return filepath.Join(c.dir, "blobs", d.Algorithm().String(), d.Encoded()), nil
}

// Has reports whether the blob is cached (without verifying it).
func (c *Cache) Has(d digest.Digest) bool {
	p, err := c.blobPath(d)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// Get returns a cached blob of at most limit bytes, verified against its digest. A blob that does
// not match is removed and reported as missing, so it is fetched again.
func (c *Cache) Get(d digest.Digest, limit int64) ([]byte, error) {
	p, err := c.blobPath(d)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", d, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("reading cached blob %s: %w", d, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading cached blob %s: %w", d, err)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("cached blob %s: %d bytes, more than the limit of %d", d, info.Size(), limit)
	}
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("reading cached blob %s: %w", d, err)
	}
	if d.Algorithm().FromBytes(data) != d {
		os.Remove(p)
		return nil, fmt.Errorf("blob %s: cached copy is corrupt, removed: %w", d, ErrMissing)
	}
	return data, nil
}

// Open returns a cached blob as a stream that fails at its end if the content does not match the
// digest (callers must read it to the end, or discard what they read).
func (c *Cache) Open(d digest.Digest) (io.ReadCloser, error) {
	p, err := c.blobPath(d)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", d, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("reading cached blob %s: %w", d, err)
	}
	return &verifying{f: f, path: p, d: d, v: d.Verifier()}, nil
}

// verifying checks a cached blob's digest as it is read.
type verifying struct {
	f    *os.File
	path string
	d    digest.Digest
	v    digest.Verifier
}

func (r *verifying) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.v.Write(p[:n])
	if errors.Is(err, io.EOF) && !r.v.Verified() {
		os.Remove(r.path)
		return n, fmt.Errorf("blob %s: cached copy is corrupt, removed: %w", r.d, ErrMissing)
	}
	return n, err
}

func (r *verifying) Close() error { return r.f.Close() }

// Put stores a blob read from r, at most limit bytes, verifying its digest; nothing is cached when
// it does not match or r fails.
func (c *Cache) Put(d digest.Digest, r io.Reader, limit int64) error {
	if c.dir == "" {
		return fmt.Errorf("caching blob %s: %w", d, errNoDir)
	}
	p, err := c.blobPath(d)
	if err != nil {
		return err
	}
	v := d.Verifier()
	return writeAtomic(p, func(w io.Writer) error {
		n, err := io.Copy(io.MultiWriter(w, v), io.LimitReader(r, limit+1))
		switch {
		case err != nil:
			return fmt.Errorf("blob %s: %w", d, err)
		case n > limit:
			return fmt.Errorf("blob %s: larger than the limit of %d bytes", d, limit)
		case !v.Verified():
			return fmt.Errorf("blob %s: content does not match its digest", d)
		}
		return nil
	})
}

// PutBytes stores data under its sha256 digest and returns the digest.
func (c *Cache) PutBytes(data []byte) (digest.Digest, error) {
	d := digest.FromBytes(data)
	if c.Has(d) {
		return d, nil
	}
	return d, c.Put(d, bytes.NewReader(data), int64(len(data)))
}

// TagRecord is what a tag last resolved to.
type TagRecord struct {
	Reference string        `json:"reference"`
	Digest    digest.Digest `json:"digest"`
	Time      time.Time     `json:"time"`
}

// SetTag records what a tag resolved to.
func (c *Cache) SetTag(reference string, d digest.Digest, at time.Time) error {
	return c.putRecord("tags", reference, TagRecord{Reference: reference, Digest: d, Time: at.UTC()})
}

// Tag returns what a tag last resolved to, or ErrMissing.
func (c *Cache) Tag(reference string) (TagRecord, error) {
	var r TagRecord
	err := c.getRecord("tags", reference, &r)
	if err == nil && r.Reference != reference {
		err = fmt.Errorf("tag %s: %w", reference, ErrMissing)
	}
	return r, err
}

// derivedRecord points a key at the blob derived for it.
type derivedRecord struct {
	Key    string        `json:"key"`
	Digest digest.Digest `json:"digest"`
}

// SetDerived stores content derived from other blobs (e.g. the catalog files unpacked from an
// index image's layers) under a key naming what it was derived from and how.
func (c *Cache) SetDerived(key string, data []byte) error {
	d, err := c.PutBytes(data)
	if err != nil {
		return err
	}
	return c.putRecord("derived", key, derivedRecord{Key: key, Digest: d})
}

// Derived returns content stored with SetDerived, verified, or ErrMissing.
func (c *Cache) Derived(key string, limit int64) ([]byte, error) {
	var r derivedRecord
	if err := c.getRecord("derived", key, &r); err != nil {
		return nil, err
	}
	if r.Key != key {
		return nil, fmt.Errorf("derived %s: %w", key, ErrMissing)
	}
	return c.Get(r.Digest, limit)
}

func recordName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func (c *Cache) putRecord(kind, key string, v any) error {
	if c.dir == "" {
		return fmt.Errorf("caching %s: %w", key, errNoDir)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding cache record: %w", err)
	}
	p := filepath.Join(c.dir, kind, recordName(key))
	return writeAtomic(p, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func (c *Cache) getRecord(kind, key string, v any) error {
	if c.dir == "" {
		return fmt.Errorf("%s: %w", key, ErrMissing)
	}
	data, err := os.ReadFile(filepath.Join(c.dir, kind, recordName(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", key, ErrMissing)
	}
	if err != nil {
		return fmt.Errorf("reading cache record %s: %w", key, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: unreadable cache record: %w", key, ErrMissing)
	}
	return nil
}

// writeAtomic writes a file through a temporary file in its directory and renames it into place,
// so readers (and other processes) see either nothing or the whole file.
func writeAtomic(p string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("writing the cache: %w (set OLM_RENDER_CACHE or --cache-dir to a writable directory)", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-"+filepath.Base(p)+"-*")
	if err != nil {
		return fmt.Errorf("writing the cache: %w (set OLM_RENDER_CACHE or --cache-dir to a writable directory)", err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("writing cache: %w", err)
	}
	return nil
}

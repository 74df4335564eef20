package imagecache

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
)

func open(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPutGetVerifies(t *testing.T) {
	c := open(t)
	data := []byte("hello")
	d := digest.FromBytes(data)
	if err := c.Put(d, strings.NewReader("hellO"), 100); err == nil {
		t.Fatal("Put accepted content that does not match its digest")
	}
	if c.Has(d) {
		t.Fatal("mismatching content was cached")
	}
	if err := c.Put(d, strings.NewReader("hello"), 3); err == nil {
		t.Fatal("Put accepted content over the limit")
	}
	if err := c.Put(d, strings.NewReader("hello"), 100); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Get(d, 100); err != nil || string(got) != "hello" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	// A cached blob damaged on disk is detected, removed and reported missing.
	p, _ := c.blobPath(d)
	if err := os.WriteFile(p, []byte("HELLO"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(d, 100); !errors.Is(err, ErrMissing) {
		t.Fatalf("Get of a damaged blob: %v", err)
	}
	if c.Has(d) {
		t.Fatal("the damaged blob was kept")
	}
}

func TestOpenVerifiesAtEOF(t *testing.T) {
	c := open(t)
	d, err := c.PutBytes([]byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := c.blobPath(d)
	os.WriteFile(p, []byte("CONTENT"), 0o644)
	r, err := c.Open(d)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); !errors.Is(err, ErrMissing) {
		t.Fatalf("reading a damaged blob: %v", err)
	}
}

func TestTagsAndDerived(t *testing.T) {
	c := open(t)
	if _, err := c.Tag("quay.io/x:v1"); !errors.Is(err, ErrMissing) {
		t.Fatalf("Tag of an unknown reference: %v", err)
	}
	d := digest.FromString("x")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := c.SetTag("quay.io/x:v1", d, at); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Tag("quay.io/x:v1"); err != nil || r.Digest != d || !r.Time.Equal(at) {
		t.Fatalf("Tag = %+v, %v", r, err)
	}
	if err := c.SetDerived("k", []byte("derived")); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Derived("k", 100); err != nil || string(got) != "derived" {
		t.Fatalf("Derived = %q, %v", got, err)
	}
}

// TestConcurrentWriters: several writers of the same blob, as two olm-render runs sharing a
// cache are, all succeed and leave one intact file and no temporary files.
func TestConcurrentWriters(t *testing.T) {
	c := open(t)
	data := []byte(strings.Repeat("x", 1<<20))
	d := digest.FromBytes(data)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.Put(d, strings.NewReader(string(data)), 2<<20)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Get(d, 2<<20); err != nil || len(got) != len(data) {
		t.Fatalf("Get after concurrent Puts: %d bytes, %v", len(got), err)
	}
	entries, _ := os.ReadDir(filepath.Join(c.Dir(), "blobs", "sha256"))
	if len(entries) != 1 {
		t.Fatalf("blobs/sha256 holds %d entries, want 1", len(entries))
	}
}

// TestNoDirectory: opening a cache creates nothing, so a run that stores nothing needs no
// writable cache; a cache without a directory holds nothing and refuses to store.
func TestNoDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open created %s: %v", dir, err)
	}
	c, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("content")
	if _, err := c.Get(digest.FromBytes(data), 100); !errors.Is(err, ErrMissing) {
		t.Errorf("Get = %v, want ErrMissing", err)
	}
	if _, err := c.PutBytes(data); err == nil || !strings.Contains(err.Error(), "OLM_RENDER_CACHE") {
		t.Errorf("PutBytes = %v, want an error naming OLM_RENDER_CACHE", err)
	}
	if err := c.SetDerived("k", data); err == nil {
		t.Error("SetDerived stored without a directory")
	}
}

package registry_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/opencontainers/go-digest"

	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/registry"
	"github.com/olm-render/olm-render/test/registrytest"
)

const fbc = `{"schema":"olm.package","name":"p","defaultChannel":"stable"}
{"schema":"olm.channel","package":"p","name":"stable","entries":[{"name":"p.v1.0.0"}]}
{"schema":"olm.bundle","name":"p.v1.0.0","package":"p","image":"quay.io/x/p-bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0"}}]}
`

// client returns a client with a fresh cache and the registries.conf that lets it talk to reg.
func client(t *testing.T, reg *registrytest.Registry, mod func(*registry.Options)) (*registry.Client, *imagecache.Cache) {
	t.Helper()
	cache, err := imagecache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := registry.Options{Cache: cache, RegistriesConf: registrytest.RegistriesConf(t, []string{reg.Host}, nil)}
	if mod != nil {
		mod(&opts)
	}
	c, err := registry.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, cache
}

func pushIndex(t *testing.T, reg *registrytest.Registry, repo, tag string) string {
	files, labels := registrytest.IndexFiles([]byte(fbc))
	return reg.Push(t, repo, tag, files, labels)
}

func TestIndexFromTagAndWarmCache(t *testing.T) {
	reg := registrytest.Start(t)
	files, labels := registrytest.IndexFiles([]byte(fbc))
	pinned := reg.PushIndex(t, "catalog", "v1", registrytest.Image(t, files, labels))
	c, cache := client(t, reg, nil)
	idx, err := c.Index(context.Background(), reg.Host+"/catalog:v1")
	if err != nil {
		t.Fatal(err)
	}
	if idx.Pinned.String() != pinned || idx.Root != "configs" {
		t.Fatalf("pinned %s root %q, want %s configs", idx.Pinned, idx.Root, pinned)
	}
	if got, _ := idx.FS.ReadFile("configs/catalog.json"); string(got) != fbc {
		t.Fatalf("catalog = %q", got)
	}
	// Warm: by digest, a new client on the same cache makes no request, even with the registry gone.
	reg.Stop()
	before := reg.Requests.Load()
	c2, err := registry.New(registry.Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Index(context.Background(), pinned); err != nil {
		t.Fatalf("warm pull with the registry stopped: %v", err)
	}
	if n := reg.Requests.Load() - before; n != 0 {
		t.Fatalf("a warm pull made %d requests", n)
	}
}

func TestOfflineColdCache(t *testing.T) {
	reg := registrytest.Start(t)
	pinned := pushIndex(t, reg, "catalog", "v1")
	c, _ := client(t, reg, func(o *registry.Options) { o.Offline = true })
	pushed := reg.Requests.Load()
	for _, ref := range []string{pinned, reg.Host + "/catalog:v1"} {
		_, err := c.Index(context.Background(), ref)
		if err == nil || !strings.Contains(err.Error(), "--offline") || !strings.Contains(err.Error(), reg.Host+"/catalog") {
			t.Errorf("offline pull of %s: %v", ref, err)
		}
	}
	if n := reg.Requests.Load() - pushed; n != 0 {
		t.Errorf("offline pulls made %d requests", n)
	}
}

func TestBasicAuth(t *testing.T) {
	reg := registrytest.Start(t, registrytest.WithBasicAuth("alice", "s3cret"))
	pinned := pushIndex(t, reg, "catalog", "v1")
	c, _ := client(t, reg, nil)
	_, err := c.Index(context.Background(), pinned)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "auth") {
		t.Fatalf("pull without credentials: %v", err)
	}
	auth := registrytest.AuthFile(t, reg.Host, "alice", "s3cret")
	c, _ = client(t, reg, func(o *registry.Options) { o.AuthFile = auth })
	if _, err := c.Index(context.Background(), pinned); err != nil {
		t.Fatalf("pull with credentials: %v", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatal("an error shows the password")
	}
}

func TestMirrors(t *testing.T) {
	reg := registrytest.Start(t)
	pinned := pushIndex(t, reg, "mirror/catalog", "v1")
	_, d, _ := strings.Cut(pinned, "@")
	source := "registry.example.invalid/redhat/catalog@" + d
	t.Run("registries.conf", func(t *testing.T) {
		c, _ := client(t, reg, func(o *registry.Options) {
			o.RegistriesConf = registrytest.RegistriesConf(t, []string{reg.Host}, map[string]string{"registry.example.invalid/redhat": reg.Host + "/mirror"})
		})
		if _, err := c.Index(context.Background(), source); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ImageDigestMirrorSet", func(t *testing.T) {
		c, _ := client(t, reg, func(o *registry.Options) {
			o.Mirrors = []registry.Mirror{{Source: "registry.example.invalid/redhat", Mirrors: []string{reg.Host + "/mirror"}, NeverContactSource: true}}
		})
		if _, err := c.Index(context.Background(), source); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPins(t *testing.T) {
	reg := registrytest.Start(t)
	first := pushIndex(t, reg, "catalog", "v1")
	_, d, _ := strings.Cut(first, "@")
	files, labels := registrytest.IndexFiles([]byte(strings.ReplaceAll(fbc, `"stable"`, `"fast"`)))
	reg.Push(t, "catalog", "v1", files, labels) // the tag moves
	tag := reg.Host + "/catalog:v1"
	c, _ := client(t, reg, func(o *registry.Options) { o.Pins = map[string]string{tag: d}; o.RequirePins = true })
	idx, err := c.Index(context.Background(), tag)
	if err != nil || idx.Pinned.String() != first {
		t.Fatalf("pinned pull = %v, %v; want %s", idx, err, first)
	}
	c, _ = client(t, reg, func(o *registry.Options) { o.RequirePins = true })
	if _, err := c.Index(context.Background(), tag); err == nil || !strings.Contains(err.Error(), "olm-render lock") {
		t.Fatalf("unpinned tag with RequirePins: %v", err)
	}
}

// corrupting serves every blob with one byte changed.
func corrupting(t *testing.T, target string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get("http://" + target + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if strings.Contains(r.URL.Path, "/blobs/") && len(body) > 0 {
			body[len(body)/2] ^= 0xff
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestCorruptBlobIsNotCached(t *testing.T) {
	reg := registrytest.Start(t)
	pinned := pushIndex(t, reg, "catalog", "v1")
	proxy := corrupting(t, reg.Host)
	ref := strings.Replace(pinned, reg.Host, proxy, 1)
	cache, err := imagecache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := registry.New(registry.Options{Cache: cache, RegistriesConf: registrytest.RegistriesConf(t, []string{proxy}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Index(context.Background(), ref)
	if err == nil || !strings.Contains(err.Error(), "does not match its digest") {
		t.Fatalf("corrupt blob: %v", err)
	}
	img, err := remote.Image(mustRef(t, pinned))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigName()
	if cache.Has(digest.Digest(cfg.String())) {
		t.Fatal("the corrupt config blob was cached")
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// bomb is a gzip layer of a tar holding one file of n zero bytes: a few kilobytes that
// decompress to n bytes.
func bomb(t *testing.T, n int64) v1.Layer {
	t.Helper()
	var tarball bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&tarball, gzip.BestCompression)
	tw := newTar(zw)
	tw.file(t, "configs/zeros.json", n)
	tw.close(t)
	zw.Close()
	return static.NewLayer(tarball.Bytes(), types.DockerLayer)
}

func TestDecompressionBomb(t *testing.T) {
	reg := registrytest.Start(t)
	img, err := mutate.AppendLayers(empty.Image, bomb(t, 64<<20))
	if err != nil {
		t.Fatal(err)
	}
	img = withLabels(t, img, map[string]string{"operators.operatorframework.io.index.configs.v1": "/configs"})
	ref := mustRef(t, reg.Host+"/bomb:v1")
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	c, _ := client(t, reg, func(o *registry.Options) {
		o.Limits = registry.Limits{MaxUnpackedSize: 8 << 20, MaxFileSize: 4 << 20}
	})
	_, err = c.Index(context.Background(), reg.Host+"/bomb:v1")
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("bomb: %v", err)
	}
}

func withLabels(t *testing.T, img v1.Image, labels map[string]string) v1.Image {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Config.Labels = "linux", "amd64", labels
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestBundleImage(t *testing.T) {
	reg := registrytest.Start(t)
	files := map[string][]byte{
		"bundle/manifests/csv.yaml":        []byte("kind: ClusterServiceVersion\n"),
		"bundle/metadata/annotations.yaml": []byte("annotations: {}\n"),
		"etc/passwd":                       []byte("root:x:0:0\n"),
	}
	pinned := reg.Push(t, "bundle", "v1", files, map[string]string{
		registry.BundleManifestsLabel: "bundle/manifests/",
		registry.BundleMetadataLabel:  "bundle/metadata/",
	})
	c, _ := client(t, reg, nil)
	b, err := c.Bundle(context.Background(), pinned)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.FS.Names(); strings.Join(got, ",") != "manifests/csv.yaml,metadata/annotations.yaml" {
		t.Fatalf("bundle files = %v", got)
	}
}

func TestInvalidReferences(t *testing.T) {
	c, err := registry.New(registry.Options{Cache: mustCache(t), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"", "UPPER/case", "a@sha256:123", "quay.io/x:tag:tag"} {
		if _, err := c.Index(context.Background(), ref); err == nil || errors.Is(err, imagecache.ErrMissing) {
			t.Errorf("Index(%q) = %v, want an invalid reference error", ref, err)
		}
	}
}

func mustCache(t *testing.T) *imagecache.Cache {
	t.Helper()
	c, err := imagecache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStalledRegistry: a registry that accepts requests and never answers fails the pull after
// the stall timeout, saying so, instead of hanging the render.
func TestStalledRegistry(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	host := strings.TrimPrefix(srv.URL, "http://")
	cache := mustCache(t)
	c, err := registry.New(registry.Options{Cache: cache, StallTimeout: 200 * time.Millisecond,
		RegistriesConf: registrytest.RegistriesConf(t, []string{host}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.Index(ctx, host+"/catalog:v1")
	if err == nil || !strings.Contains(err.Error(), "no answer from the registry for 200ms") {
		t.Fatalf("a stalled registry: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the pull waited for the test's own deadline")
	}
}

// TestStalledBlob: a registry that stops in the middle of a blob fails the pull after the stall
// timeout, and nothing of the blob is cached.
func TestStalledBlob(t *testing.T) {
	reg := registrytest.Start(t)
	pinned := pushIndex(t, reg, "catalog", "v1")
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get("http://" + reg.Host + r.URL.Path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		if !strings.Contains(r.URL.Path, "/blobs/") || len(body) < 2 {
			w.Write(body)
			return
		}
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	proxy := strings.TrimPrefix(srv.URL, "http://")
	cache := mustCache(t)
	c, err := registry.New(registry.Options{Cache: cache, StallTimeout: 200 * time.Millisecond,
		RegistriesConf: registrytest.RegistriesConf(t, []string{proxy}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Index(context.Background(), strings.Replace(pinned, reg.Host, proxy, 1))
	if err == nil || !strings.Contains(err.Error(), "no answer from the registry for 200ms") {
		t.Fatalf("a stalled blob: %v", err)
	}
	img, err := remote.Image(mustRef(t, pinned))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigName()
	if cache.Has(digest.Digest(cfg.String())) {
		t.Fatal("the stalled config blob was cached")
	}
}

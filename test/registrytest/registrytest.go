// Package registrytest runs a real OCI registry in the test process (go-containerregistry's
// registry under httptest) and builds the images olm-render pulls: index images holding a
// file-based catalog and registry+v1 bundle images, with the labels opm gives them.
package registrytest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is a registry serving on 127.0.0.1.
type Registry struct {
	// Host is host:port.
	Host  string
	close func()
	user  string
	pass  string
	// Requests counts the HTTP requests served (a warm pull makes none).
	Requests atomic.Int64

	mu        sync.Mutex
	requested []string
}

// Requested returns the requests served so far, in order, as "METHOD PATH"
// ("GET /v2/bundles/widget-operator/manifests/sha256:...").
func (r *Registry) Requested() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requested)
}

// Option configures Start.
type Option func(*Registry)

// WithBasicAuth makes the registry require basic authentication.
func WithBasicAuth(user, pass string) Option {
	return func(r *Registry) { r.user, r.pass = user, pass }
}

// Start starts a registry, stopped when the test ends.
func Start(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	r, err := Serve("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Serve starts a registry listening on addr (host:port; port 0 picks a free one) until Stop.
// It serves plain HTTP: clients need the host marked insecure (RegistriesConf).
func Serve(addr string, opts ...Option) (*Registry, error) {
	r := &Registry{}
	for _, o := range opts {
		o(r)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("starting a registry on %s: %w", addr, err)
	}
	handler := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.Requests.Add(1)
		r.mu.Lock()
		r.requested = append(r.requested, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
		if r.user != "" {
			if u, p, ok := req.BasicAuth(); !ok || u != r.user || p != r.pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
		}
		handler.ServeHTTP(w, req)
	}), ReadHeaderTimeout: time.Minute}
	go srv.Serve(l) //nolint:errcheck // ends with Stop
	r.Host = l.Addr().String()
	var once sync.Once
	r.close = func() {
		once.Do(func() {
			srv.Close()
		})
	}
	return r, nil
}

// Stop stops the registry: later pulls fail to connect.
func (r *Registry) Stop() { r.close() }

// Push builds a single-layer image of files with config labels and pushes it as
// host/repo:tag; it returns the reference by digest (host/repo@sha256:...).
func (r *Registry) Push(t testing.TB, repo, tag string, files map[string][]byte, labels map[string]string) string {
	t.Helper()
	ref, err := r.PushFiles(repo, tag, files, labels)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// PushFiles is Push, returning its error.
func (r *Registry) PushFiles(repo, tag string, files map[string][]byte, labels map[string]string) (string, error) {
	img, err := newImage(files, labels)
	if err != nil {
		return "", err
	}
	ref, err := name.ParseReference(r.Host+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, r.auth()); err != nil {
		return "", fmt.Errorf("pushing %s: %w", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	return r.Host + "/" + repo + "@" + d.String(), nil
}

// PushIndex pushes a multi-platform image index holding img for linux/amd64 and linux/arm64,
// and returns the reference by the index's digest.
func (r *Registry) PushIndex(t testing.TB, repo, tag string, img v1.Image) string {
	t.Helper()
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}}},
		mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
	)
	ref, err := name.ParseReference(r.Host+"/"+repo+":"+tag, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx, r.auth()); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return r.Host + "/" + repo + "@" + d.String()
}

func (r *Registry) auth() remote.Option {
	if r.user == "" {
		return remote.WithAuth(authn.Anonymous)
	}
	return remote.WithAuth(&authn.Basic{Username: r.user, Password: r.pass})
}

// Image builds a single-layer image of files (gzip layer) with config labels.
func Image(t testing.TB, files map[string][]byte, labels map[string]string) v1.Image {
	t.Helper()
	img, err := newImage(files, labels)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func newImage(files map[string][]byte, labels map[string]string) (v1.Image, error) {
	layer, err := crane.Layer(files)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", "amd64"
	cfg.Config.Labels = labels
	return mutate.ConfigFile(img, cfg)
}

// BundleFiles reads a registry+v1 bundle directory (manifests/ and metadata/) into the files of
// a bundle image, and returns them with the labels opm puts on bundle images.
func BundleFiles(t testing.TB, dir string) (map[string][]byte, map[string]string) {
	t.Helper()
	files, labels, err := bundleFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files, labels
}

func bundleFiles(dir string) (map[string][]byte, map[string]string, error) {
	files := map[string][]byte{}
	for _, sub := range []string{"manifests", "metadata"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			files[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil && !os.IsNotExist(err) {
			return nil, nil, err
		}
	}
	labels := map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1": "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":  "metadata/",
	}
	return files, labels, nil
}

// IndexFiles returns the files and labels of an index image whose catalog (fbc, a file-based
// catalog file) sits at /configs/catalog.json, as opm builds them.
func IndexFiles(fbc []byte) (map[string][]byte, map[string]string) {
	return map[string][]byte{path.Join("configs", "catalog.json"): fbc},
		map[string]string{"operators.operatorframework.io.index.configs.v1": "/configs"}
}

// RegistriesConf writes a registries.conf that marks hosts as plain-HTTP registries and mirrors
// each source in mirrors to its mirror location; it returns its path.
func RegistriesConf(t testing.TB, insecure []string, mirrors map[string]string) string {
	t.Helper()
	type mirror struct {
		Location string `toml:"location"`
		Insecure bool   `toml:"insecure"`
	}
	type reg struct {
		Prefix   string   `toml:"prefix,omitempty"`
		Location string   `toml:"location"`
		Insecure bool     `toml:"insecure"`
		Mirror   []mirror `toml:"mirror,omitempty"`
	}
	conf := struct {
		Unqualified []string `toml:"unqualified-search-registries"`
		Registry    []reg    `toml:"registry"`
	}{Unqualified: []string{}}
	for _, h := range insecure {
		conf.Registry = append(conf.Registry, reg{Location: h, Insecure: true})
	}
	for src, m := range mirrors {
		conf.Registry = append(conf.Registry, reg{Prefix: src, Location: src, Mirror: []mirror{{Location: m, Insecure: true}}})
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "registries.conf")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// RegistriesConfRewrite writes a registries.conf that sends every pull of a name under each prefix
// to the location (a plain-HTTP registry), as a mirror does, by tag and by digest.
func RegistriesConfRewrite(t testing.TB, rewrites map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "registries.conf")
	if err := WriteRegistriesConf(p, rewrites); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteRegistriesConf writes RegistriesConfRewrite's registries.conf at path.
func WriteRegistriesConf(path string, rewrites map[string]string) error {
	type reg struct {
		Prefix   string `toml:"prefix"`
		Location string `toml:"location"`
		Insecure bool   `toml:"insecure"`
	}
	conf := struct {
		Unqualified []string `toml:"unqualified-search-registries"`
		Registry    []reg    `toml:"registry"`
	}{Unqualified: []string{}}
	for _, prefix := range slices.Sorted(maps.Keys(rewrites)) {
		conf.Registry = append(conf.Registry, reg{Prefix: prefix, Location: rewrites[prefix], Insecure: true})
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// AuthFile writes a Podman auth.json with credentials for host; it returns its path.
func AuthFile(t testing.TB, host, user, pass string) string {
	t.Helper()
	type entry struct {
		Auth string `json:"auth"`
	}
	data, err := json.Marshal(struct {
		Auths map[string]entry `json:"auths"`
	}{map[string]entry{host: {Auth: base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

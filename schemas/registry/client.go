package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"go.podman.io/image/v5/docker"
	"go.podman.io/image/v5/manifest"
	"go.podman.io/image/v5/pkg/blobinfocache/none"
	"go.podman.io/image/v5/types"

	"github.com/olm-render/olm-render/schemas/imagecache"
)

// Limits bound what a pull reads.
type Limits struct {
	// MaxManifestSize bounds a manifest or a config blob.
	MaxManifestSize int64
	// MaxLayerSize bounds one compressed layer.
	MaxLayerSize int64
	// MaxUnpackedSize bounds the bytes decompressed from all layers of one image.
	MaxUnpackedSize int64
	// MaxFileSize bounds one file kept from an image.
	MaxFileSize int64
	// MaxKeptSize bounds all files kept from one image.
	MaxKeptSize int64
}

// DefaultLimits fit the largest real catalogs (a Red Hat index's catalog is about 60 MB of FBC, its
// image about 1 GB) with room to spare, and stop a hostile image long before memory runs out.
func DefaultLimits() Limits {
	return Limits{
		MaxManifestSize: 4 << 20,
		MaxLayerSize:    4 << 30,
		MaxUnpackedSize: 16 << 30,
		MaxFileSize:     256 << 20,
		MaxKeptSize:     1 << 30,
	}
}

func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, def *int64 }{
		{&l.MaxManifestSize, &d.MaxManifestSize}, {&l.MaxLayerSize, &d.MaxLayerSize},
		{&l.MaxUnpackedSize, &d.MaxUnpackedSize}, {&l.MaxFileSize, &d.MaxFileSize}, {&l.MaxKeptSize, &d.MaxKeptSize},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return l
}

// Options configure a Client.
type Options struct {
	// Cache stores every blob by digest; required.
	Cache *imagecache.Cache
	// Offline forbids every network call: what is not cached is an error naming it.
	Offline bool
	// AuthFile is the registry credentials file (Podman's auth.json format); the
	// containers/image defaults ($XDG_RUNTIME_DIR/containers/auth.json, ~/.docker/config.json,
	// credential helpers) when empty.
	AuthFile string
	// RegistriesConf is the registries.conf to use; CONTAINERS_REGISTRIES_CONF or the system's
	// when empty.
	RegistriesConf string
	// Mirrors redirect pulls by digest (ImageDigestMirrorSet, ImageContentSourcePolicy); they are
	// tried before registries.conf's own mirrors.
	Mirrors []Mirror
	// Pins resolve tags without asking the registry: normalized reference → digest (the lock's
	// catalog pins).
	Pins map[string]string
	// BundlePins are the bundle images the lock records, by "package/bundle" (name@digest): a
	// bundle whose catalog gives its image by tag is pulled at the pinned digest.
	BundlePins map[string]string
	// RequirePins forbids resolving a tag: a reference by tag without a pin is an error (render
	// --locked).
	RequirePins bool
	// Limits bound what pulls read; DefaultLimits when zero.
	Limits Limits
	// StallTimeout is how long a request may wait without receiving a byte;
	// DefaultStallTimeout when zero.
	StallTimeout time.Duration
	// UserAgent is sent to registries.
	UserAgent string
}

// Client pulls images through the cache. It is safe for concurrent use.
type Client struct {
	opts   Options
	sys    *types.SystemContext
	limits Limits
	stall  time.Duration

	mu       sync.Mutex
	resolved map[string]Pinned // normalized tag reference → what it resolved to in this run
}

// New returns a client.
func New(opts Options) (*Client, error) {
	if opts.Cache == nil {
		return nil, errors.New("registry client: no cache")
	}
	sys := &types.SystemContext{
		AuthFilePath:             opts.AuthFile,
		SystemRegistriesConfPath: opts.RegistriesConf,
		DockerRegistryUserAgent:  opts.UserAgent,
		OSChoice:                 "linux",
		ArchitectureChoice:       "amd64",
	}
	stall := opts.StallTimeout
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	return &Client{opts: opts, sys: sys, limits: opts.Limits.orDefault(), stall: stall, resolved: map[string]Pinned{}}, nil
}

// Resolved returns every tag this client resolved, by normalized reference.
func (c *Client) Resolved() map[string]Pinned {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]Pinned, len(c.resolved))
	for k, v := range c.resolved {
		out[k] = v
	}
	return out
}

// Resolve pins a reference to the digest of its top-level manifest: a digest reference as it
// is; a tag from Options.Pins, else from the registry (offline: from the cache's last answer).
func (c *Client) Resolve(ctx context.Context, ref string) (Pinned, error) {
	p, err := parse(ref)
	if err != nil {
		return Pinned{}, err
	}
	return c.resolve(ctx, p)
}

func (c *Client) resolve(ctx context.Context, p parsed) (Pinned, error) {
	if p.digest != "" {
		return Pinned{Name: p.named.Name(), Digest: p.digest}, nil
	}
	key := p.String()
	if d, ok := c.opts.Pins[key]; ok {
		pinned := Pinned{Name: p.named.Name(), Digest: digest.Digest(d), Tag: p.tag}
		if err := pinned.Digest.Validate(); err != nil {
			return Pinned{}, fmt.Errorf("the lock pins %s to an invalid digest %q", key, d)
		}
		return pinned, nil
	}
	if c.opts.RequirePins {
		return Pinned{}, fmt.Errorf("%s is given by tag and the lock pins no digest for it: run `olm-render lock` to pin it", key)
	}
	c.mu.Lock()
	done, ok := c.resolved[key]
	c.mu.Unlock()
	if ok {
		return done, nil
	}
	pinned, err := c.resolveTag(ctx, p)
	if err != nil {
		return Pinned{}, err
	}
	c.mu.Lock()
	c.resolved[key] = pinned
	c.mu.Unlock()
	return pinned, nil
}

// resolveTag asks the registry what a tag points at (offline: the cache's last answer), and
// caches the manifest on the way.
func (c *Client) resolveTag(ctx context.Context, p parsed) (Pinned, error) {
	key := p.String()
	if c.opts.Offline {
		rec, err := c.opts.Cache.Tag(key)
		if err != nil {
			return Pinned{}, c.offlineError(key)
		}
		return Pinned{Name: p.named.Name(), Digest: rec.Digest, Tag: p.tag}, nil
	}
	src, err := c.open(ctx, p)
	if err != nil {
		return Pinned{}, err
	}
	defer src.Close()
	wctx, _, done := watch(ctx, c.stall)
	data, _, err := src.GetManifest(wctx, nil)
	err = c.stalled(wctx, "reading manifest of "+key, err)
	done()
	if err != nil {
		return Pinned{}, fmt.Errorf("reading manifest of %s: %w", key, err)
	}
	if int64(len(data)) > c.limits.MaxManifestSize {
		return Pinned{}, fmt.Errorf("manifest of %s is larger than %d bytes", key, c.limits.MaxManifestSize)
	}
	d, err := c.opts.Cache.PutBytes(data)
	if err != nil {
		return Pinned{}, err
	}
	if err := c.opts.Cache.SetTag(key, d, time.Now()); err != nil {
		return Pinned{}, err
	}
	return Pinned{Name: p.named.Name(), Digest: d, Tag: p.tag}, nil
}

// offlineError says what is missing and how to get it.
func (c *Client) offlineError(what string) error {
	return fmt.Errorf("%s is not in the image cache %s and --offline forbids pulling it: run the same command once without --offline (or vendor the catalog with `olm-render catalog pull`)", what, c.opts.Cache.Dir())
}

// source is an image source opened lazily, on the first fetch the cache cannot answer.
type source struct {
	c   *Client
	p   parsed
	mu  sync.Mutex
	src types.ImageSource
}

func (s *source) get(ctx context.Context) (types.ImageSource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.src != nil {
		return s.src, nil
	}
	if s.c.opts.Offline {
		return nil, s.c.offlineError(s.p.String())
	}
	src, err := s.c.open(ctx, s.p)
	if err != nil {
		return nil, err
	}
	s.src = src
	return src, nil
}

func (s *source) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.src != nil {
		s.src.Close()
	}
}

// open opens the image at the first candidate (digest mirrors first) that answers.
func (c *Client) open(ctx context.Context, p parsed) (types.ImageSource, error) {
	var errs []error
	for _, cand := range candidates(p, c.opts.Mirrors) {
		ref, err := docker.NewReference(namedForOpen(cand))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cand, err))
			continue
		}
		wctx, _, done := watch(ctx, c.stall)
		src, err := ref.NewImageSource(wctx, c.sys)
		err = c.stalled(wctx, "opening "+cand.String(), err)
		done()
		if err == nil {
			return src, nil
		}
		errs = append(errs, fmt.Errorf("pulling %s: %w", cand, err))
	}
	if hint := tagMirrorOnly(p, c.opts.Mirrors); hint != "" {
		errs = append(errs, errors.New(hint))
	}
	return nil, errors.Join(errs...)
}

// manifest returns the manifest blob of digest d in p's repository, from the cache or the
// registry, verified.
func (c *Client) manifest(ctx context.Context, src *source, d digest.Digest) ([]byte, error) {
	if data, err := c.opts.Cache.Get(d, c.limits.MaxManifestSize); err == nil {
		return data, nil
	} else if !errors.Is(err, imagecache.ErrMissing) {
		return nil, err
	}
	s, err := src.get(ctx)
	if err != nil {
		return nil, err
	}
	wctx, _, done := watch(ctx, c.stall)
	data, _, err := s.GetManifest(wctx, instance(src.p, d))
	err = c.stalled(wctx, "reading manifest "+d.String(), err)
	done()
	if err != nil {
		return nil, fmt.Errorf("reading manifest %s of %s: %w", d, src.p.named.Name(), err)
	}
	if int64(len(data)) > c.limits.MaxManifestSize {
		return nil, fmt.Errorf("manifest %s of %s is larger than %d bytes", d, src.p.named.Name(), c.limits.MaxManifestSize)
	}
	if got := d.Algorithm().FromBytes(data); got != d {
		return nil, fmt.Errorf("manifest %s of %s: the registry sent content with digest %s", d, src.p.named.Name(), got)
	}
	if err := c.opts.Cache.Put(d, bytes.NewReader(data), int64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}

// instance is the instance digest GetManifest needs: nil for the manifest the source was opened
// at (its own digest), else the digest.
func instance(p parsed, d digest.Digest) *digest.Digest {
	if p.digest == d {
		return nil
	}
	return &d
}

// blob returns a blob as a stream from the cache, fetching it into the cache first if needed.
func (c *Client) blob(ctx context.Context, src *source, info types.BlobInfo, limit int64) (io.ReadCloser, error) {
	if !c.opts.Cache.Has(info.Digest) {
		if err := c.fetchBlob(ctx, src, info, limit); err != nil {
			return nil, err
		}
	}
	return c.opts.Cache.Open(info.Digest)
}

func (c *Client) fetchBlob(ctx context.Context, src *source, info types.BlobInfo, limit int64) error {
	if info.Size > limit {
		return fmt.Errorf("blob %s of %s: %d bytes, more than the limit of %d", info.Digest, src.p.named.Name(), info.Size, limit)
	}
	s, err := src.get(ctx)
	if err != nil {
		return err
	}
	wctx, w, done := watch(ctx, c.stall)
	defer done()
	r, _, err := s.GetBlob(wctx, types.BlobInfo{Digest: info.Digest, Size: -1, MediaType: info.MediaType}, none.NoCache)
	if err != nil {
		return fmt.Errorf("reading blob %s of %s: %w", info.Digest, src.p.named.Name(), c.stalled(wctx, "reading blob", err))
	}
	defer r.Close()
	if err := c.opts.Cache.Put(info.Digest, w.reader(r), limit); err != nil {
		return fmt.Errorf("%s: %w", src.p.named.Name(), c.stalled(wctx, "reading blob "+info.Digest.String(), err))
	}
	return nil
}

// image is a resolved single-platform image: its manifest parsed.
type image struct {
	pinned   Pinned
	manifest manifest.Manifest
	src      *source
}

// resolveImage pins a reference and reads its manifest, choosing linux/amd64 (else the first
// entry) from a multi-platform index.
func (c *Client) resolveImage(ctx context.Context, ref string) (*image, error) {
	p, err := parse(ref)
	if err != nil {
		return nil, err
	}
	pinned, err := c.resolve(ctx, p)
	if err != nil {
		return nil, err
	}
	src := &source{c: c, p: p.at(pinned.Digest)}
	data, err := c.manifest(ctx, src, pinned.Digest)
	if err != nil {
		src.Close()
		return nil, err
	}
	m, err := c.platformManifest(ctx, src, data)
	if err != nil {
		src.Close()
		return nil, err
	}
	return &image{pinned: pinned, manifest: m, src: src}, nil
}

func (c *Client) platformManifest(ctx context.Context, src *source, data []byte) (manifest.Manifest, error) {
	mime := manifest.GuessMIMEType(data)
	if manifest.MIMETypeIsMultiImage(mime) {
		list, err := manifest.ListFromBlob(data, mime)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid manifest list: %w", src.p, err)
		}
		d, err := list.ChooseInstance(c.sys)
		if err != nil {
			instances := list.Instances()
			if len(instances) == 0 {
				return nil, fmt.Errorf("%s: empty manifest list", src.p)
			}
			d = instances[0]
		}
		if data, err = c.manifest(ctx, src, d); err != nil {
			return nil, err
		}
		mime = manifest.GuessMIMEType(data)
		if manifest.MIMETypeIsMultiImage(mime) {
			return nil, fmt.Errorf("%s: a manifest list inside a manifest list", src.p)
		}
	}
	m, err := manifest.FromBlob(data, mime)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid manifest: %w", src.p, err)
	}
	return m, nil
}

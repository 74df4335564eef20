package main

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/imagecache"
	"github.com/olm-render/olm-render/schemas/registry"
)

// imageFlags configure pulling index and bundle images.
type imageFlags struct {
	offline                            bool
	cacheDir, authFile, registriesConf string
	stallTimeout                       time.Duration
}

func (f *imageFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.offline, "offline", false, "never use the network: images must be in the cache (or vendored with olm-render catalog pull)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "the image cache (default: $OLM_RENDER_CACHE, else $XDG_CACHE_HOME/olm-render)")
	fs.StringVar(&f.authFile, "authfile", "", "registry credentials, Podman's auth.json format (default: $REGISTRY_AUTH_FILE, else the containers/image defaults: $XDG_RUNTIME_DIR/containers/auth.json, ~/.docker/config.json, credential helpers)")
	fs.DurationVar(&f.stallTimeout, "registry-timeout", registry.DefaultStallTimeout, "how long a registry may keep a request waiting without sending a byte before the pull fails")
	fs.StringVar(&f.registriesConf, "registries-conf", "", "registries.conf with mirrors and insecure registries (default: $CONTAINERS_REGISTRIES_CONF, else the system's)")
}

// options returns the registry options the flags describe. The cache is opened (created) only
// when something is pulled: opening it is cheap and does no network call.
func (f *imageFlags) options() (*registry.Options, error) {
	dir := f.cacheDir
	if dir == "" {
		// Without a home directory there is no default cache: pulls then fail, naming the
		// setting, while renders from snapshots in the repository need none.
		dir, _ = imagecache.DefaultDir()
	}
	cache, err := imagecache.Open(dir)
	if err != nil {
		return nil, err
	}
	auth := f.authFile
	if auth == "" {
		auth = os.Getenv("REGISTRY_AUTH_FILE")
	}
	return &registry.Options{Cache: cache, Offline: f.offline, AuthFile: auth, RegistriesConf: f.registriesConf,
		StallTimeout: f.stallTimeout, UserAgent: "olm-render/" + versionString()}, nil
}

// pinImages makes pulls use the digests the lock records; with locked, a tag the lock does not
// pin is an error instead of a registry lookup.
func pinImages(req *pipeline.Request, l *lock.Lock, locked bool) {
	if req.Registry == nil {
		return
	}
	req.Registry.Pins = l.ImagePins()
	req.Registry.BundlePins = l.BundlePins()
	req.Registry.RequirePins = locked
}

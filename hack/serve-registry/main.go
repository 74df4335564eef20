// Command serve-registry serves a catalog of registry+v1 bundles as an index image on localhost,
// to try olm-render's registry commands without a registry of your own (examples/registry):
//
//	go run ./hack/serve-registry
//
// It publishes examples/quickstart/catalog as registry.example.com/olm-render/catalog:v1 (an
// index of olm.csv.metadata naming each bundle image by digest, as OpenShift's are), writes a
// registries.conf that sends registry.example.com/olm-render to it over plain HTTP, prints the
// variable that selects that file, and serves until interrupted.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/olm-render/olm-render/test/registrytest"
)

func main() {
	catalogDir := flag.String("catalog", "examples/quickstart/catalog", "the registry+v1 bundle tree to publish")
	image := flag.String("image", "registry.example.com/olm-render/catalog:v1", "the index image's name, as CatalogSources give it")
	addr := flag.String("addr", "127.0.0.1:0", "where to listen (port 0: a free one)")
	conf := flag.String("registries-conf", filepath.Join(os.TempDir(), "olm-render-registries.conf"), "the registries.conf to write")
	flag.Parse()
	if err := serve(*catalogDir, *image, *addr, *conf); err != nil {
		fmt.Fprintln(os.Stderr, "serve-registry:", err)
		os.Exit(1)
	}
}

func serve(catalogDir, image, addr, conf string) error {
	reg, err := registrytest.Serve(addr)
	if err != nil {
		return err
	}
	defer reg.Stop()
	pub, err := reg.PublishCatalog(catalogDir, image)
	if err != nil {
		return err
	}
	// registry.example.com/olm-render → 127.0.0.1:PORT/olm-render
	repo := image[:strings.LastIndex(image, "/")]
	_, path, _ := strings.Cut(repo, "/")
	if err := registrytest.WriteRegistriesConf(conf, map[string]string{repo: reg.Host + "/" + path}); err != nil {
		return err
	}
	fmt.Printf("serving %s (%d bundle images) from %s on %s\n", pub.Index, len(pub.Bundles), catalogDir, reg.Host)
	fmt.Printf("export CONTAINERS_REGISTRIES_CONF=%s\n", conf)
	fmt.Println("ready; interrupt to stop")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nil
}

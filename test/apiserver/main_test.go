package apiserver

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// cfg is the REST config of the API server the suite started, nil when it runs without one;
// kubeconfig is a kubeconfig file for it.
var (
	cfg        *rest.Config
	kubeconfig string
)

const noAssets = "KUBEBUILDER_ASSETS is not set: `make test-e2e` (and `make test`) builds kube-apiserver and etcd with hack/envtest-assets.sh and sets it"

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if testing.Short() || os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if !testing.Short() && os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, noAssets)
			return 1
		}
		return m.Run()
	}
	ctrllog.SetLogger(logr.Discard())
	env := &envtest.Environment{}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "starting kube-apiserver and etcd: %v\n", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "olm-render-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping kube-apiserver and etcd: %v\n", err)
		}
	}()
	return m.Run()
}

// needServer skips a test when no API server runs.
func needServer(t *testing.T) {
	t.Helper()
	if cfg == nil {
		t.Skip(noAssets)
	}
}

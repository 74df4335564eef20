package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/operator-framework/api/crds"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/api/client/clientset/versioned"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configure a Cluster.
type Options struct {
	// Assets is the directory holding kube-apiserver and etcd ($KUBEBUILDER_ASSETS).
	Assets string
	// Binaries is the directory holding OLM's olm and catalog binaries (Binaries); "" runs no
	// OLM v0 (a cluster for OLM v1 alone: StartV1).
	Binaries string
	// Dir receives the cluster's files: its kubeconfig and the logs of OLM's controllers.
	Dir string
	// CatalogNamespace is OLM's global catalog namespace ("olm" when empty), where a
	// CatalogSource serves every namespace.
	CatalogNamespace string
}

// Cluster is a real API server with OLM's controllers running against it.
type Cluster struct {
	// Config is an administrator's REST config.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for Config.
	Kubeconfig string
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface
	OLM        versioned.Interface

	opts     Options
	env      *envtest.Environment
	olm      *controllers
	v1       *v1Controllers
	setup    *v1Setup
	kubelet  *Kubelet
	baseline map[types.UID]bool
}

// Start starts etcd and kube-apiserver, installs OLM's CRDs (operator-framework/api's, the
// ones OLM's own manifests install), the stand-in Kubelet and OLM's controllers. What exists
// then is the cluster's baseline, which Reset returns to.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	if opts.CatalogNamespace == "" {
		opts.CatalogNamespace = "olm"
	}
	if opts.Binaries != "" {
		if err := haveBinaries(opts.Binaries); err != nil {
			return nil, err
		}
	}
	c := &Cluster{opts: opts, env: &envtest.Environment{
		BinaryAssetsDirectory:   opts.Assets,
		CRDs:                    olmCRDs(),
		ControlPlaneStopTimeout: 30 * time.Second,
	}}
	if c.Config, err = c.env.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	if err := c.connect(); err != nil {
		return nil, err
	}
	if c.baseline, err = c.uids(ctx); err != nil {
		return nil, err
	}
	c.kubelet = NewKubelet(c.Kube)
	if err := c.kubelet.Start(); err != nil {
		return nil, err
	}
	if err := c.StartOLM(); err != nil {
		return nil, err
	}
	return c, nil
}

// olmCRDs are OLM's CRDs.
func olmCRDs() []*apiextensionsv1.CustomResourceDefinition {
	return []*apiextensionsv1.CustomResourceDefinition{
		crds.CatalogSource(), crds.ClusterServiceVersion(), crds.InstallPlan(), crds.OLMConfig(),
		crds.Operator(), crds.OperatorCondition(), crds.OperatorGroup(), crds.Subscription(),
	}
}

// connect writes the kubeconfig and makes the clients.
func (c *Cluster) connect() error {
	if err := os.MkdirAll(c.opts.Dir, 0o755); err != nil {
		return fmt.Errorf("creating the cluster's directory: %w", err)
	}
	c.Kubeconfig = filepath.Join(c.opts.Dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, c.env.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	cfg := rest.CopyConfig(c.Config)
	// OLM's controllers, the stand-in kubelet and a test's polling share one API server: the
	// client-side rate limit would only slow the test down.
	cfg.QPS, cfg.Burst = 500, 1000
	// Listing every kind includes deprecated ones (ComponentStatus, Endpoints): their warnings
	// say nothing about the install.
	cfg.WarningHandler = rest.NoWarnings{}
	var err error
	if c.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	if c.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	if c.OLM, err = versioned.NewForConfig(cfg); err != nil {
		return fmt.Errorf("OLM client: %w", err)
	}
	return nil
}

// Kubelet returns the stand-in kubelet, to hold a Deployment's rollout back.
func (c *Cluster) Kubelet() *Kubelet { return c.kubelet }

// CatalogNamespace is OLM's global catalog namespace.
func (c *Cluster) CatalogNamespace() string { return c.opts.CatalogNamespace }

// Stop stops OLM's controllers (v0's and v1's), the stand-in kubelet, kube-apiserver and etcd.
func (c *Cluster) Stop() error {
	var errs []error
	if c.olm != nil {
		errs = append(errs, c.StopOLM())
	}
	if c.v1 != nil {
		errs = append(errs, c.StopV1())
	}
	if c.kubelet != nil {
		c.kubelet.Stop()
	}
	if err := c.env.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stopping kube-apiserver and etcd: %w", err))
	}
	return errors.Join(errs...)
}

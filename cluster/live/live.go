package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/homedir"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// FieldManager is the server-side apply field manager olm-render applies with.
const FieldManager = "olm-render"

// Cluster is a connection to a live cluster.
type Cluster struct {
	manager *ssa.ResourceManager
	// WaitTimeout bounds the wait for CRDs and Namespaces to be ready between stages.
	WaitTimeout time.Duration
}

// Connect connects to the cluster of a REST config.
func Connect(cfg *rest.Config) (*Cluster, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("discovering the API of %s: %w", cfg.Host, err)
	}
	c, err := client.New(cfg, client.Options{HTTPClient: httpClient, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	poller := polling.NewStatusPoller(c, mapper, polling.Options{})
	return &Cluster{
		manager:     ssa.NewResourceManager(c, poller, ssa.Owner{Field: FieldManager, Group: "olm-render.dev"}),
		WaitTimeout: time.Minute,
	}, nil
}

// ConnectKubeconfig connects with a kubeconfig file ("" follows $KUBECONFIG and the default
// loading rules) and an optional context.
func ConnectKubeconfig(path, context string) (*Cluster, error) {
	cfg, err := RESTConfig(path, context)
	if err != nil {
		return nil, err
	}
	return Connect(cfg)
}

// ErrNoCluster is RESTConfig's error when there is nothing to connect to: no kubeconfig (or
// only empty ones) and no Pod service account.
var ErrNoCluster = errors.New("no cluster to connect to")

// RESTConfig loads the REST config of a kubeconfig file ("" follows $KUBECONFIG and the default
// loading rules, then the service account of the Pod it runs in) and an optional context.
// Without any of them, the error wraps ErrNoCluster and says how to name a cluster.
func RESTConfig(path, context string) (*rest.Config, error) {
	rules := loadingRules(path)
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	switch {
	case clientcmd.IsEmptyConfig(err):
		return nil, fmt.Errorf("%w: %s; pass --kubeconfig FILE, set $KUBECONFIG, or run in a Pod with a service account", ErrNoCluster, looked(path))
	case err != nil && path != "":
		return nil, fmt.Errorf("loading kubeconfig %s: %w", path, err)
	case err != nil:
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	return cfg, nil
}

// loadingRules are kubectl's rules for finding the kubeconfig, with the home directory read
// when called (client-go reads it once, when the program starts).
func loadingRules(path string) *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	if os.Getenv(clientcmd.RecommendedConfigPathEnvVar) == "" {
		home := homeKubeconfig()
		rules.Precedence = []string{home}
		// kubectl's one migration: ~/.kube/.kubeconfig, the name of long ago, moves to ~/.kube/config.
		rules.MigrationRules = map[string]string{home: filepath.Join(filepath.Dir(home), ".kubeconfig")}
	}
	return rules
}

// homeKubeconfig is the kubeconfig in the home directory, ~/.kube/config.
func homeKubeconfig() string {
	return filepath.Join(homedir.HomeDir(), clientcmd.RecommendedHomeDir, clientcmd.RecommendedFileName)
}

// looked says where RESTConfig looked for a cluster and found none.
func looked(path string) string {
	switch env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); {
	case path != "":
		return "kubeconfig " + path + " is empty"
	case env != "":
		return "$KUBECONFIG (" + env + ") names no kubeconfig that exists or holds anything, and this is no Pod with a service account"
	}
	return "no $KUBECONFIG, no kubeconfig at " + homeKubeconfig() + ", and this is no Pod with a service account"
}

// Apply applies the objects server-side in stages and returns what changed.
func (c *Cluster) Apply(ctx context.Context, objs []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	opts := ssa.DefaultApplyOptions()
	opts.WaitTimeout = c.WaitTimeout
	cs, err := c.manager.ApplyAllStaged(ctx, copies(objs), opts)
	if err != nil {
		return cs, fmt.Errorf("applying: %w", err)
	}
	return cs, nil
}

// Drift is the live state of the objects against their rendered state: for every object that
// would change, the live object (nil when it does not exist) and the object as a server-side
// apply would leave it.
type Drift struct {
	// Live holds the live state of the objects that would be modified; Merged holds every object
	// that would be created or modified, as it would be after an apply.
	Live, Merged []*unstructured.Unstructured
	// Unchanged counts the objects that would not change.
	Unchanged int
}

// Diff compares the objects with the cluster by server-side dry-run apply.
func (c *Cluster) Diff(ctx context.Context, objs []*unstructured.Unstructured) (*Drift, error) {
	d := &Drift{}
	for _, o := range copies(objs) {
		entry, live, merged, err := c.manager.Diff(ctx, o, ssa.DefaultDiffOptions())
		if err != nil {
			return nil, fmt.Errorf("comparing %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		switch entry.Action {
		case ssa.CreatedAction:
			d.Merged = append(d.Merged, o)
		case ssa.ConfiguredAction:
			d.Live = append(d.Live, clean(live))
			d.Merged = append(d.Merged, clean(merged))
		default:
			d.Unchanged++
		}
	}
	return d, nil
}

// Before returns the live side for diff.Compare.
func (d *Drift) Before() []*unstructured.Unstructured { return d.Live }

// After returns the objects as they would be after an apply.
func (d *Drift) After() []*unstructured.Unstructured { return d.Merged }

// clean removes what the server manages and a render never holds.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	if u == nil {
		return nil
	}
	u = u.DeepCopy()
	for _, f := range []string{"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	return u
}

func copies(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.DeepCopy()
	}
	return out
}

// Comparison is one object compared with the cluster.
type Comparison struct {
	// Missing is true when the object does not exist.
	Missing bool
	// Live is the object in the cluster and Merged the object as an apply of the render would
	// leave it, both without what the server manages; equal when the object has not drifted.
	Live, Merged *unstructured.Unstructured
}

// Drifted reports whether applying the render would change the object.
func (c Comparison) Drifted() bool { return c.Missing || c.Live != nil }

// Compare compares one object with the cluster by server-side dry-run apply.
func (c *Cluster) Compare(ctx context.Context, o *unstructured.Unstructured) (Comparison, error) {
	entry, live, merged, err := c.manager.Diff(ctx, o.DeepCopy(), ssa.DefaultDiffOptions())
	if err != nil {
		return Comparison{}, fmt.Errorf("comparing %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
	}
	switch entry.Action {
	case ssa.CreatedAction:
		return Comparison{Missing: true}, nil
	case ssa.ConfiguredAction:
		return Comparison{Live: clean(live), Merged: clean(merged)}, nil
	}
	return Comparison{}, nil
}

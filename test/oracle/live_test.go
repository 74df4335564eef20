package oracle

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/oracle/live"
)

var (
	liveKeep = flag.Bool("live-keep", false, "keep the live cluster's directory (kubeconfig, OLM's logs) after the run")
	liveDump = flag.String("live-dump", "", "write both sides of every live case (what OLM created, the render as stored) as YAML under this directory, for triage")
)

// noLiveAssets says why the live suite skips.
const noLiveAssets = "KUBEBUILDER_ASSETS is not set: `make test-oracle` builds kube-apiserver and etcd (hack/envtest-assets.sh) and sets it"

// liveState is the live cluster the tests share: one API server and OLM, reset between cases.
var liveState struct {
	once sync.Once
	cl   *live.Cluster
	dir  string
	err  error
}

// liveCluster returns the shared live cluster with OLM v0's controllers running (and OLM v1's
// stopped, should a test of OLM v1 have run before).
func liveCluster(t *testing.T) *live.Cluster {
	t.Helper()
	cl := sharedLiveCluster(t)
	if err := useOLMv0(cl); err != nil {
		t.Fatal(err)
	}
	return cl
}

// sharedLiveCluster returns the shared live cluster, starting it on first use: kube-apiserver
// and etcd from KUBEBUILDER_ASSETS, OLM's controllers built by live.Binaries. It skips the test
// when no API server can be started, except under CI, where it fails.
func sharedLiveCluster(t *testing.T) *live.Cluster {
	t.Helper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(noLiveAssets)
		}
		t.Skip(noLiveAssets)
	}
	liveState.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		bin, err := live.Binaries(ctx)
		if err != nil {
			liveState.err = fmt.Errorf("OLM's binaries: %w", err)
			return
		}
		if liveState.dir, err = os.MkdirTemp("", "olm-render-live-"); err != nil {
			liveState.err = err
			return
		}
		liveState.cl, liveState.err = live.Start(ctx, live.Options{Assets: assets, Binaries: bin, Dir: liveState.dir, CatalogNamespace: olmNamespace})
	})
	if liveState.err != nil {
		t.Fatalf("starting the live cluster: %v", liveState.err)
	}
	t.Logf("live cluster: kubeconfig and OLM's logs in %s", liveState.dir)
	return liveState.cl
}

// stopLive stops the live cluster, if one was started; its directory is kept when the run
// failed or -live-keep says so.
func stopLive(failed bool) {
	if liveState.cl == nil {
		return
	}
	if err := liveState.cl.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if liveV1State.reg != nil {
		liveV1State.reg.Stop()
	}
	if failed || *liveKeep {
		fmt.Fprintf(os.Stderr, "live cluster's files (OLM's logs): %s\n", liveState.dir)
		return
	}
	os.RemoveAll(liveState.dir)
}

// liveFBC writes the file-based catalog live OLM is served: the catalog as opm renders it
// (treeToFBC for a bundle tree), with every bundle's image left empty, so that OLM reads the
// manifests from the catalog (the olm.bundle.object properties the gRPC API carries) instead
// of unpacking a bundle image with a Job no node would run (resolver/source_registry.go:
// an entry with no BundlePath carries its bundle). It returns the directory and the channels
// opm refuses, by package/channel.
func liveFBC(path, dir string) (map[string]string, error) {
	ours, err := ourCatalog(path)
	if err != nil {
		return nil, err
	}
	var cfg *declcfg.DeclarativeConfig
	dropped := map[string]string{}
	switch ours.Format {
	case catalog.FormatBundles:
		if cfg, dropped, err = treeToFBC(ours); err != nil {
			return nil, err
		}
	case catalog.FormatFBC:
		if cfg, err = declcfg.LoadFS(context.Background(), os.DirFS(path)); err != nil {
			return nil, fmt.Errorf("loading %s: %w", path, err)
		}
	default:
		return nil, fmt.Errorf("catalog %s: format %s has no file-based catalog", path, ours.Format)
	}
	for i := range cfg.Bundles {
		cfg.Bundles[i].Image = ""
	}
	var buf bytes.Buffer
	if err := declcfg.WriteJSON(*cfg, &buf); err != nil {
		return nil, fmt.Errorf("writing the file-based catalog of %s: %w", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return dropped, os.WriteFile(filepath.Join(dir, "catalog.json"), buf.Bytes(), 0o644)
}

// unstructuredOf converts typed objects and maps to unstructured objects.
func unstructuredOf(objs ...any) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		switch o := o.(type) {
		case map[string]any:
			out = append(out, &unstructured.Unstructured{Object: o})
		case runtime.Object:
			m, err := toUnstructured(o)
			if err != nil {
				return nil, err
			}
			out = append(out, &unstructured.Unstructured{Object: m})
		default:
			return nil, fmt.Errorf("%T is not an object", o)
		}
	}
	return out, nil
}

// liveSide is one install by live OLM, with the render as the API server stores it.
type liveSide struct {
	// OLM is the cluster once OLM settled: every object the install created.
	OLM *olmResult
	// Stored is the render as the API server would store it (a server-side dry-run create of
	// each object before OLM created anything).
	Stored []map[string]any
	// Refused are the rendered objects the API server refuses, with its message.
	Refused []string
	// Rendered is the render as olm-render wrote it.
	Rendered []map[string]any
	Took     time.Duration
}

// installLive installs inputs with live OLM on a reset cluster and returns what OLM created,
// with out (the render of the same inputs) as the API server stores it. approve decides
// InstallPlans that wait for approval.
func installLive(ctx context.Context, cl *live.Cluster, in installInputs, out []map[string]any, approve live.Approver, timeout time.Duration) (*liveSide, error) {
	if err := cl.Reset(ctx); err != nil {
		return nil, err
	}
	side := &liveSide{}
	nss := make([]any, 0, len(in.Namespaces))
	for _, ns := range in.Namespaces {
		nss = append(nss, ns)
	}
	namespaces, err := unstructuredOf(nss...)
	if err != nil {
		return nil, err
	}
	// The render's Namespaces as stored before any exists, then the rest once they do.
	var rendered, renderedNamespaces []*unstructured.Unstructured
	for _, o := range out {
		u := &unstructured.Unstructured{Object: o}
		if u.GetKind() == "Namespace" && u.GetAPIVersion() == "v1" {
			renderedNamespaces = append(renderedNamespaces, u)
		} else {
			rendered = append(rendered, u)
		}
	}
	if err := side.store(ctx, cl, renderedNamespaces); err != nil {
		return nil, err
	}
	if err := cl.Apply(ctx, namespaces...); err != nil {
		return nil, err
	}
	if err := side.store(ctx, cl, rendered); err != nil {
		return nil, err
	}
	rest, err := unstructuredOf(in.OperatorGroup, in.CatalogSource, in.Subscription)
	if err != nil {
		return nil, err
	}
	if err := cl.Apply(ctx, rest...); err != nil {
		return nil, err
	}
	outcome, err := cl.Settle(ctx, []string{in.Subscription.Namespace}, approve, timeout)
	if err != nil {
		return nil, err
	}
	side.Took = outcome.Took
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	side.OLM = &olmResult{Failure: outcome.Failure}
	for _, o := range snap {
		side.OLM.Objects = append(side.OLM.Objects, o.Object)
	}
	return side, nil
}

// store adds objects as the API server stores them to side.Stored; those it refuses go to
// side.Refused, and those of kinds it does not serve are kept as rendered.
func (side *liveSide) store(ctx context.Context, cl *live.Cluster, objs []*unstructured.Unstructured) error {
	stored, errs, err := cl.AsStored(ctx, objs)
	if err != nil {
		return err
	}
	for i, o := range objs {
		side.Rendered = append(side.Rendered, o.Object)
		switch {
		case errs[i] == nil:
			side.Stored = append(side.Stored, stored[i].Object)
		case errors.Is(errs[i], live.ErrNotServed):
			side.Stored = append(side.Stored, o.Object)
		default:
			side.Stored = append(side.Stored, o.Object)
			side.Refused = append(side.Refused, firstLine(errs[i].Error()))
		}
	}
	return nil
}

// dump writes both sides of a live case under -live-dump, for triage.
func (side *liveSide) dump(name string) error {
	if *liveDump == "" {
		return nil
	}
	dir := filepath.Join(*liveDump, strings.NewReplacer("/", "_", "@", "_").Replace(name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, objs := range map[string][]map[string]any{"olm.yaml": side.OLM.Objects, "render.yaml": side.Stored, "render-raw.yaml": side.Rendered} {
		var buf bytes.Buffer
		for _, o := range objs {
			data, err := yaml.Marshal(o)
			if err != nil {
				return err
			}
			buf.WriteString("---\n")
			buf.Write(data)
		}
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

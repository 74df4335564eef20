package oracle

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/oracle/live"
	"github.com/olm-render/olm-render/test/registrytest"
)

// v1Registry is the name catalog and bundle images stand under in the v1 live suite; OLM v1's
// registries.conf sends it to the in-process registry, so that what is recorded does not
// depend on the registry's port.
const v1Registry = "registry.live.test/olm-render"

// v1CaseTimeout bounds how long operator-controller may take to settle one case.
const v1CaseTimeout = 3 * time.Minute

// liveV1State is what the v1 live suite shares beside the live cluster: OLM v1's binaries and
// the in-process registry its catalogs and bundles are served from, with what was published.
var liveV1State struct {
	once      sync.Once
	binaries  string
	reg       *registrytest.Registry
	published map[string]*registrytest.Published // by catalog directory
	err       error
	crds      sync.Once
	crdsErr   error
}

// liveV1Cluster returns the shared live cluster running OLM v1 (operator-controller and
// catalogd, built by live.V1Binaries) with experimental and gates as asked, OLM v0's
// controllers stopped (so that nothing but OLM v1 acts on what it installs), reset to its
// baseline.
func liveV1Cluster(t *testing.T, experimental bool, gates map[string]bool) *live.Cluster {
	t.Helper()
	cl := sharedLiveCluster(t)
	liveV1State.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		if liveV1State.binaries, liveV1State.err = live.V1Binaries(ctx); liveV1State.err != nil {
			return
		}
		liveV1State.reg, liveV1State.err = registrytest.Serve("127.0.0.1:0")
		liveV1State.published = map[string]*registrytest.Published{}
	})
	if liveV1State.err != nil {
		t.Fatalf("OLM v1: %v", liveV1State.err)
	}
	opts := live.V1Options{
		Binaries: liveV1State.binaries, Experimental: experimental, Gates: gates,
		Registries: map[string]string{v1Registry: liveV1State.reg.Host + "/olm-render"},
	}
	ctx := context.Background()
	if err := useOLMv1(ctx, cl, opts); err != nil {
		t.Fatal(err)
	}
	liveV1State.crds.Do(func() {
		objs, err := live.ReadYAMLFile(v1ThirdPartyCRDs)
		if err == nil {
			err = cl.ApplyBaseline(ctx, objs...)
		}
		liveV1State.crdsErr = err
	})
	if liveV1State.crdsErr != nil {
		t.Fatalf("third-party CRDs: %v", liveV1State.crdsErr)
	}
	return cl
}

// v1ThirdPartyCRDs are stand-ins for the Prometheus operator's CRDs (ServiceMonitor,
// PrometheusRule, PodMonitor: schemaless, as the API server suite has them), whose objects
// bundles of the corpus ship: operator-controller's Helm applier maps every object of a release
// to a resource before it applies any, so a bundle with one of them installs only where the
// kind is served, as on a cluster running the Prometheus operator.
const v1ThirdPartyCRDs = "../apiserver/testdata/crds/monitoring.yaml"

// useOLMv1 makes OLM v1 with opts the cluster's only OLM, on a cluster reset to its baseline.
func useOLMv1(ctx context.Context, cl *live.Cluster, opts live.V1Options) error {
	if err := cl.StopOLM(); err != nil {
		return err
	}
	if running, ok := cl.V1Options(); ok && !sameV1Options(running, opts) {
		if err := cl.StopV1(); err != nil {
			return err
		}
	}
	if err := cl.Reset(ctx); err != nil {
		return err
	}
	if _, ok := cl.V1Options(); ok {
		return nil
	}
	return cl.StartV1(ctx, opts)
}

// sameV1Options reports whether OLM v1 runs as asked.
func sameV1Options(a, b live.V1Options) bool {
	return a.Binaries == b.Binaries && a.Experimental == b.Experimental &&
		maps.Equal(a.Gates, b.Gates) && maps.Equal(a.Registries, b.Registries)
}

// useOLMv0 makes OLM v0 the cluster's only OLM (its objects are cleaned by the next Reset).
func useOLMv0(cl *live.Cluster) error {
	if err := cl.StopV1(); err != nil {
		return err
	}
	if cl.OLMRunning() == nil {
		return nil
	}
	return cl.StartOLM()
}

// publishV1 publishes a bundle tree of the corpus (a package's directory, or a catalog of
// several) in the in-process registry as v1Registry/<name>:live, once per run, and returns its
// images.
func publishV1(t *testing.T, dir, name string) *registrytest.Published {
	t.Helper()
	if p, ok := liveV1State.published[dir]; ok {
		return p
	}
	p, err := liveV1State.reg.PublishCatalog(dir, v1Registry+"/"+name+":live")
	if err != nil {
		t.Fatalf("publishing %s: %v", dir, err)
	}
	liveV1State.published[dir] = p
	return p
}

// clusterCatalog returns a ClusterCatalog of an index image, as a user writes one.
func clusterCatalog(name, image string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"source": map[string]any{"type": "Image", "image": map[string]any{"ref": image}}},
	}}
}

// v1Extension is what a ClusterExtension asks for.
type v1Extension struct {
	Name, Namespace, Package, Version, Channel, Catalog string
	// WatchNamespace is spec.config.inline.watchNamespace ("" for none).
	WatchNamespace string
}

// clusterExtension returns the ClusterExtension a user writes for e, with the catalog selected
// by name and the version pinned.
func clusterExtension(e v1Extension) *unstructured.Unstructured {
	catalog := map[string]any{"packageName": e.Package, "version": e.Version, "upgradeConstraintPolicy": "CatalogProvided"}
	if e.Channel != "" {
		catalog["channels"] = []any{e.Channel}
	}
	if e.Catalog != "" {
		catalog["selector"] = map[string]any{"matchLabels": map[string]any{"olm.operatorframework.io/metadata.name": e.Catalog}}
	}
	spec := map[string]any{
		"namespace": e.Namespace,
		"source":    map[string]any{"sourceType": "Catalog", "catalog": catalog},
	}
	if e.WatchNamespace != "" {
		spec["config"] = map[string]any{"configType": "Inline", "inline": map[string]any{"watchNamespace": e.WatchNamespace}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
		"metadata": map[string]any{"name": e.Name}, "spec": spec,
	}}
}

// namespaceObject returns a Namespace.
func namespaceObject(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
}

// liveV1SmokeGolden is what TestLiveV1Install compares with (and writes with -update).
const liveV1SmokeGolden = "testdata/live-v1-install.txt"

// The smoke test's operator: kube-green's newest bundle (AllNamespaces only; a Deployment,
// ServiceAccount, RBAC, a CRD, two Services and a validating webhook).
const (
	v1SmokePackage = "kube-green"
	v1SmokeVersion = "0.7.1"
)

// TestLiveV1Install installs one operator with OLM v1 as a user does: its package published in
// the in-process registry (an index image whose catalog names bundle images by digest), a
// ClusterCatalog of the index, then a Namespace and a ClusterExtension pinned to a version,
// selecting the catalog by name. operator-controller must install it (Installed True); what it
// and catalogd created, normalised as the live differential normalises OLM v0's objects, is
// the golden testdata/live-v1-install.txt.
func TestLiveV1Install(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	cl := liveV1Cluster(t, false, nil)
	ctx := context.Background()
	pub := publishV1(t, filepath.Join(catalogPath(liveCatalog), v1SmokePackage), v1SmokePackage)
	ext := v1Extension{Name: v1SmokePackage, Namespace: v1SmokePackage, Package: v1SmokePackage, Version: v1SmokeVersion, Catalog: v1SmokePackage}
	if err := cl.Apply(ctx, clusterCatalog(v1SmokePackage, pub.Index)); err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitCatalogsServing(ctx, []string{v1SmokePackage}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := cl.Apply(ctx, namespaceObject(ext.Namespace), clusterExtension(ext)); err != nil {
		t.Fatal(err)
	}
	out, err := cl.SettleV1(ctx, []string{ext.Name}, v1CaseTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if f := out.Failure(); f != "" {
		t.Fatalf("operator-controller did not install %s %s: %s", v1SmokePackage, v1SmokeVersion, f)
	}
	t.Logf("installed %s in %s", out.Installed[ext.Name], out.Took.Round(100*time.Millisecond))
	objs, err := cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, liveV1SmokeGolden, v1SmokeText(ext, out, objs))
}

// v1SmokeText writes what operator-controller settled on and every object created since the
// cluster's baseline, normalised (normaliseV1), one YAML document each, in order.
func v1SmokeText(ext v1Extension, out live.V1Outcome, objs []*unstructured.Unstructured) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# TestLiveV1Install: operator-controller and catalogd %s installing %s %s from a ClusterCatalog\n", live.OperatorControllerVersion, ext.Package, ext.Version)
	fmt.Fprintf(&b, "# (regenerate with: go test -run TestLiveV1Install -update .; docs/live-olm.md)\n")
	fmt.Fprintf(&b, "# installed: %s\n", out.Installed[ext.Name])
	fmt.Fprintf(&b, "# objects created since the cluster's baseline, normalised (the live differential's normalisation,\n")
	fmt.Fprintf(&b, "# the Helm release's payload and allocated cluster IPs left out):\n")
	var norm []map[string]any
	for _, o := range objs {
		norm = append(norm, normaliseV1(o.Object))
	}
	norm = dropAllocatedClusterIPs(norm)
	for _, o := range norm {
		fmt.Fprintf(&b, "#   %s\n", idOf(o))
	}
	for _, o := range norm {
		data, err := yaml.Marshal(o)
		if err != nil {
			data = []byte(err.Error() + "\n")
		}
		fmt.Fprintf(&b, "---\n%s", data)
	}
	return b.Bytes()
}

// normaliseV1 is normalise (what an offline render cannot reproduce: uids, resource versions,
// managed fields, status...) with what OLM v1 writes by the clock or in an order that depends
// on timing: the Helm release operator-controller stores in chunked Secrets
// (helm-operator-plugins' storage: operatorframework.io/index.v1 and chunk.v1, the gzipped
// release holding the time of the install, and the createdAt and modifiedAt labels), and the
// order of finalizers, which its reconcile steps add as they run.
func normaliseV1(obj map[string]any) map[string]any {
	o := normalise(obj)
	switch str(o["type"]) {
	case "operatorframework.io/index.v1", "operatorframework.io/chunk.v1":
		if o["kind"] == "Secret" {
			for k := range mapOf(o["data"]) {
				mapOf(o["data"])[k] = "(the Helm release: gzipped, with the time of the install)"
			}
			labels := mapOf(mapOf(o["metadata"])["labels"])
			for _, k := range []string{"createdAt", "modifiedAt"} {
				if _, ok := labels[k]; ok {
					labels[k] = "(time)"
				}
			}
		}
	}
	md := mapOf(o["metadata"])
	if fin := listOf(md["finalizers"]); len(fin) > 1 {
		slices.SortFunc(fin, func(a, b any) int { return strings.Compare(str(a), str(b)) })
	}
	return o
}

package apiserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/crds"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/olm-render/olm-render/cluster/importer"
	"github.com/olm-render/olm-render/diff"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

// The resources the import tests write status to.
var (
	subscriptionsGVR  = v1alpha1.SchemeGroupVersion.WithResource("subscriptions")
	csvsGVR           = v1alpha1.SchemeGroupVersion.WithResource("clusterserviceversions")
	installPlansGVR   = v1alpha1.SchemeGroupVersion.WithResource("installplans")
	operatorGroupsGVR = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1", Resource: "operatorgroups"}
	podsGVR           = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// importCase is one operator of the imported cluster.
type importCase struct {
	pkg  string
	mode v1alpha1.InstallModeType
	// ns is the namespace it is installed in; targets its OperatorGroup's target namespaces
	// (none: all namespaces).
	ns      string
	targets []string
}

// importCases install, in one cluster, operators in Own, Single and All namespace modes: etcd
// (whose channel head the catalog gains after the install), hawtio, kube-green (webhooks
// through cert-manager) and special-resource-operator (which pulls in NFD as a dependency, in
// a Subscription OLM creates).
var importCases = []importCase{
	{pkg: "etcd", mode: v1alpha1.InstallModeTypeOwnNamespace, ns: "imp-etcd", targets: []string{"imp-etcd"}},
	{pkg: "hawtio-operator", mode: v1alpha1.InstallModeTypeSingleNamespace, ns: "imp-hawtio", targets: []string{"imp-hawtio-a"}},
	{pkg: "kube-green", mode: v1alpha1.InstallModeTypeAllNamespaces, ns: "imp-kube-green"},
	{pkg: "special-resource-operator", mode: v1alpha1.InstallModeTypeOwnNamespace, ns: "imp-sro", targets: []string{"imp-sro"}},
}

// importCatalogs is the namespace of the imported cluster's CatalogSources, the global catalog
// namespace.
const importCatalogs = "olm"

// TestImport applies a render of several corpus operators as "the cluster", writes the status
// OLM would have written, and runs `olm-render import` on it, by then with a catalog that moved
// on (etcd has a newer channel head). A `render --locked` of the import must leave the lock as
// the import wrote it, pin etcd to the installed CSV, render exactly the objects of the cluster
// (compared object by object), and show no drift against the cluster (as `diff --live` does).
func TestImport(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	cluster := connect(t)
	applyFixture(t, cluster, "testdata/crds/monitoring.yaml")
	applyFixture(t, cluster, "testdata/crds/cert-manager.yaml")
	now := operatorsCatalog(t)
	nfd, err := filepath.Abs(nfdCatalog)
	if err != nil {
		t.Fatal(err)
	}
	then, installedEtcd, headEtcd := catalogBeforeHead(t, "etcd")
	t.Logf("etcd: the cluster installed %s; the catalog's head is now %s", installedEtcd, headEtcd)

	in := t.TempDir()
	writeImportInputs(t, in, then, nfd)
	original := renderInputs(t, in)
	if _, err := cluster.Apply(ctx, original.Objects); err != nil {
		t.Fatalf("applying the cluster: %v", err)
	}
	writeOLMStatus(t, original)

	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "cluster")
	catalogFlags := []string{"--root", "/", "--catalog", importCatalogs + "/operators=" + now, "--catalog", importCatalogs + "/nfd=" + nfd}
	args := []string{"import", "--kubeconfig", kubeconfig, "-o", out}
	for _, ns := range importNamespaces() {
		args = append(args, "--namespace", ns)
	}
	stdout, stderr := runBinary(t, bin, append(args, catalogFlags...)...)
	t.Logf("import: %s%s", stdout, stderr)
	if !strings.Contains(stdout, " 0 reports") {
		t.Errorf("a cluster OLM installed cleanly got reports:\n%s", stderr)
	}

	for _, name := range []string{"namespaces.yaml", "olm/catalogsources.yaml", "imp-etcd/operatorgroups.yaml", "imp-etcd/subscriptions.yaml", lock.FileName} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the import lacks %s: %v", name, err)
		}
	}
	l := readImportedLock(t, out)
	etcd := l.Entry("imp-etcd", "etcd")
	if etcd == nil || etcd.Bundle != installedEtcd || !strings.HasPrefix(etcd.Digest, "sha256:") {
		t.Fatalf("the lock does not pin etcd to the installed %s with its digest: %+v", installedEtcd, etcd)
	}
	if n := l.Len(); n != selections(original.Resolution) {
		t.Errorf("the lock holds %d Subscriptions, the cluster %d", n, selections(original.Resolution))
	}

	rendered, _ := runBinary(t, bin, append([]string{"render", "--locked", "--include-olm-crds", "--keep-intent", out}, catalogFlags...)...)
	objs := decodeStream(t, rendered)
	report, err := diff.Compare(original.Objects, objs, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if report.Changed() {
		var b strings.Builder
		_ = report.WriteText(&b)
		t.Fatalf("the render of the import differs from the cluster:\n%s", b.String())
	}
	drift, err := cluster.Diff(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(drift.Merged) != 0 {
		var names []string
		for _, o := range drift.Merged {
			names = append(names, fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName()))
		}
		t.Errorf("applying the render of the import would change %d objects:\n%s", len(names), strings.Join(names, "\n"))
	}
	t.Logf("%d objects rendered from the import, equal to the cluster's, %d unchanged on a dry-run apply", len(objs), drift.Unchanged)
}

// TestImportReports imports a namespace holding what an import cannot reproduce: a Failed CSV, a
// Subscription whose manual InstallPlan waits for approval, a configMap CatalogSource and a CSV
// installed without a Subscription. Each must be reported with the object named, and the lock
// must pin the index image of a CatalogSource to the digest its catalog pod runs.
func TestImportReports(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	cluster := connect(t)
	applyOLMCRDs(t)
	removeWebhooks(t)
	const ns = "imp-reports"
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	objs := reportObjects(t, ns)
	if _, err := cluster.Apply(ctx, objs); err != nil {
		t.Fatalf("applying: %v", err)
	}
	dyn := dynamicClient(t)
	now := time.Now().UTC().Format(time.RFC3339)
	setStatus(t, dyn, csvsGVR, ns, "failing.v1.0.0", map[string]any{"phase": "Failed", "reason": "InstallComponentFailed", "message": "install strategy failed: deployment failing not ready"})
	for _, name := range []string{"manual.v1.0.0", "legacy.v1.0.0", "orphan.v1.0.0"} {
		setStatus(t, dyn, csvsGVR, ns, name, map[string]any{"phase": "Succeeded", "reason": "InstallSucceeded"})
	}
	setStatus(t, dyn, subscriptionsGVR, ns, "failing", subscriptionStatus("failing.v1.0.0", now))
	setStatus(t, dyn, subscriptionsGVR, ns, "legacy", subscriptionStatus("legacy.v1.0.0", now))
	manual := subscriptionStatus("manual.v1.0.0", now)
	manual["currentCSV"], manual["state"] = "manual.v1.1.0", string(v1alpha1.SubscriptionStateUpgradePending)
	manual["installPlanRef"] = map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan", "name": "install-manual", "namespace": ns}
	setStatus(t, dyn, subscriptionsGVR, ns, "manual", manual)
	setStatus(t, dyn, installPlansGVR, ns, "install-manual", map[string]any{"phase": "RequiresApproval", "catalogSources": []any{"index"}})
	setStatus(t, dyn, podsGVR, ns, "index-x7k2p", map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{
		"name": "registry-server", "image": "registry.example.com/olm/index:v1", "imageID": "registry.example.com/olm/index@" + digest,
		"ready": true, "restartCount": 0, "state": map[string]any{"running": map[string]any{}},
	}}})

	client, err := importer.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.Read(ctx, client, importer.Options{Namespaces: []string{ns}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Reports {
		got = append(got, string(r.Reason)+" "+r.String())
	}
	t.Logf("reports:\n%s", strings.Join(got, "\n"))
	for _, want := range []string{
		"CSVFailed ClusterServiceVersion imp-reports/failing.v1.0.0: phase Failed (InstallComponentFailed: install strategy failed",
		"NoSubscription ClusterServiceVersion imp-reports/orphan.v1.0.0: installed without a Subscription",
		"NoImage CatalogSource imp-reports/legacy: has no spec.image (sourceType configmap, configMap legacy-catalog)",
		"PendingApproval Subscription imp-reports/manual: InstallPlan imp-reports/install-manual waits for approval to install manual.v1.1.0: the lock keeps manual.v1.0.0",
	} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
			t.Errorf("missing report %q", want)
		}
	}
	if len(got) != 4 {
		t.Errorf("got %d reports, want the 4 above", len(got))
	}
	wantPins := []lock.CatalogPin{{Namespace: ns, Name: "index", Image: "registry.example.com/olm/index:v1", Digest: digest}}
	if !slices.Equal(res.Lock.Catalogs, wantPins) {
		t.Errorf("catalog pins %+v, want %+v", res.Lock.Catalogs, wantPins)
	}
	for sub, csv := range map[string]string{"failing": "failing.v1.0.0", "manual": "manual.v1.0.0", "legacy": "legacy.v1.0.0"} {
		if e := res.Lock.Entry(ns, sub); e == nil || e.Bundle != csv {
			t.Errorf("Subscription %s: locked %+v, want %s", sub, e, csv)
		}
	}
	var namespaces []string
	for _, o := range res.Objects {
		if o.GetKind() == "Namespace" {
			namespaces = append(namespaces, o.GetName())
		}
	}
	if want := []string{ns, ns + "-copy"}; !slices.Equal(namespaces, want) {
		t.Errorf("imported Namespaces %v, want %v (the one holding a copy of an installed CSV too)", namespaces, want)
	}
}

// catalogBeforeHead writes, as a file-based catalog with the manifests inline, the corpus's
// packages of the import cases as they were before pkg's default channel gained its head. It
// returns the catalog's path, the head then and the head now.
func catalogBeforeHead(t *testing.T, pkg string) (path, then, now string) {
	t.Helper()
	c, err := catalog.Load(operatorsCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	var keep []*catalog.Package
	for _, tc := range importCases {
		keep = append(keep, c.Package(tc.pkg))
	}
	c.Packages = keep
	p := c.Package(pkg)
	ch := p.Channel(p.DefaultChannel)
	now, err = ch.Head()
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range p.Channels {
		other.Entries = slices.DeleteFunc(other.Entries, func(e catalog.ChannelEntry) bool { return e.Name == now })
	}
	p.Bundles = slices.DeleteFunc(p.Bundles, func(b *catalog.Bundle) bool { return b.Name == now })
	fixture.Prune(c)
	if then, err = ch.Head(); err != nil {
		t.Fatal(err)
	}
	// A published catalog names each bundle's image, as the bundle tree stands for: OLM unpacks
	// such a bundle (and lists its requirements twice in the CSV's properties annotation)
	// where one with no image would be taken as the catalog carries it.
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			if b.Image == "" {
				b.Image = fmt.Sprintf("registry.invalid/%s-bundle@sha256:%x", p.Name, sha256.Sum256([]byte(b.Name)))
			}
		}
	}
	var buf bytes.Buffer
	if err := catalog.WriteFBC(&buf, c, catalog.WriteOptions{Objects: true}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, then, now
}

// importNamespaces are the namespaces of the imported operators. The import is limited to them
// (the suite's other tests share the cluster): it reads the CatalogSources in olm because their
// Subscriptions name them, and the Namespace olm because it holds those and copies of CSVs.
func importNamespaces() []string {
	var out []string
	for _, tc := range importCases {
		out = append(out, tc.ns)
		out = append(out, tc.targets...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// writeImportInputs writes the inputs of the imported cluster into dir: its Namespaces, the
// CatalogSources operators (bound to catalogPath) and nfd, and per case an OperatorGroup and a
// Subscription to the default channel.
func writeImportInputs(t *testing.T, dir, catalogPath, nfdPath string) {
	t.Helper()
	c, err := catalog.Load(catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	docs := []map[string]any{
		fixture.CatalogSource("operators", fixture.Rel(t, dir, catalogPath), ""),
		fixture.CatalogSource("nfd", fixture.Rel(t, dir, nfdPath), ""),
	}
	for _, d := range docs {
		unstructured.SetNestedField(d, importCatalogs, "metadata", "namespace")
	}
	for _, ns := range append(importNamespaces(), importCatalogs) {
		docs = append(docs, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	}
	for _, tc := range importCases {
		spec := map[string]any{}
		if tc.targets != nil {
			spec["targetNamespaces"] = toAny(tc.targets)
		}
		docs = append(docs,
			map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
				"metadata": map[string]any{"name": "og", "namespace": tc.ns}, "spec": spec},
			map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
				"metadata": map[string]any{"name": tc.pkg, "namespace": tc.ns},
				"spec": map[string]any{"name": tc.pkg, "channel": c.Package(tc.pkg).DefaultChannel,
					"source": "operators", "sourceNamespace": importCatalogs}})
	}
	for i, d := range docs {
		fixture.WriteObject(t, filepath.Join(dir, fmt.Sprintf("%02d.yaml", i)), d)
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// renderInputs renders the inputs of dir as the cluster has them: with the OLM CRDs, the
// Subscriptions and the CatalogSources.
func renderInputs(t *testing.T, dir string) *pipeline.Output {
	t.Helper()
	set, err := inputs.Load([]string{dir}, fixture.SystemOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	req := pipeline.Request{}
	req.Render.IncludeOLMCRDs = true
	req.Render.KeepIntent = true
	out, err := pipeline.RunSet(context.Background(), set, req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeOLMStatus writes the status OLM would have written on the rendered objects: each
// Subscription at its installed CSV, each installed CSV Succeeded, each OperatorGroup with its
// target namespaces.
func writeOLMStatus(t *testing.T, out *pipeline.Output) {
	t.Helper()
	dyn := dynamicClient(t)
	now := time.Now().UTC().Format(time.RFC3339)
	for _, nr := range out.Resolution.Namespaces {
		for _, sel := range nr.Selections {
			setStatus(t, dyn, subscriptionsGVR, nr.Namespace, sel.Subscription.Name, subscriptionStatus(sel.Bundle.Name, now))
		}
	}
	for _, o := range out.Objects {
		switch {
		case o.GetKind() == "ClusterServiceVersion" && o.GetLabels()["olm.copiedFrom"] == "":
			setStatus(t, dyn, csvsGVR, o.GetNamespace(), o.GetName(), map[string]any{
				"phase": "Succeeded", "reason": "InstallSucceeded", "message": "install strategy completed with no errors"})
		case o.GetKind() == "OperatorGroup":
			status, _, _ := unstructured.NestedMap(o.Object, "status")
			status["lastUpdated"] = now
			setStatus(t, dyn, operatorGroupsGVR, o.GetNamespace(), o.GetName(), status)
		}
	}
}

func subscriptionStatus(csv, now string) map[string]any {
	return map[string]any{"installedCSV": csv, "currentCSV": csv, "state": string(v1alpha1.SubscriptionStateAtLatest), "lastUpdated": now}
}

func selections(res *resolver.Result) int {
	n := 0
	for _, nr := range res.Namespaces {
		n += len(nr.Selections)
	}
	return n
}

func dynamicClient(t *testing.T) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// removeWebhooks deletes the admission webhook configurations earlier tests applied with their
// operators: no operator runs in the suite's cluster to answer them, and a webhook on Pods with
// failurePolicy Fail would refuse every Pod this test creates.
func removeWebhooks(t *testing.T) {
	t.Helper()
	dyn := dynamicClient(t)
	for _, resource := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} {
		gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
		if err := dyn.Resource(gvr).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatalf("deleting %s: %v", resource, err)
		}
	}
}

// setStatus writes an object's status through the status subresource, as OLM's controllers do.
func setStatus(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, status map[string]any) {
	t.Helper()
	ctx := context.Background()
	u, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
	u.Object["status"] = status
	if _, err := dyn.Resource(gvr).Namespace(ns).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: "olm"}); err != nil {
		t.Fatalf("writing the status of %s %s/%s: %v", gvr.Resource, ns, name, err)
	}
}

// buildCLI builds olm-render.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "olm-render")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/olm-render")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building olm-render: %v\n%s", err, out)
	}
	return bin
}

// runBinary runs olm-render and fails the test unless it exits 0.
func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("olm-render %s: %v\n%s", strings.Join(args, " "), err, e.String())
	}
	return o.String(), e.String()
}

func readImportedLock(t *testing.T, dir string) *lock.Lock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Unmarshal(lock.FileName, data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func decodeStream(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	items, problems := inputs.ReadBytes("render", []byte(stream))
	if err := problems.Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]*unstructured.Unstructured, len(items))
	for i, it := range items {
		out[i] = it.Object
	}
	return out
}

// applyOLMCRDs applies the operators.coreos.com CRDs.
func applyOLMCRDs(t *testing.T) {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, crd := range []any{crds.CatalogSource(), crds.ClusterServiceVersion(), crds.InstallPlan(), crds.OLMConfig(),
		crds.Operator(), crds.OperatorCondition(), crds.OperatorGroup(), crds.Subscription()} {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("apiextensions.k8s.io/v1")
		u.SetKind("CustomResourceDefinition")
		objs = append(objs, u)
	}
	if _, err := connect(t).Apply(context.Background(), objs); err != nil {
		t.Fatalf("applying the OLM CRDs: %v", err)
	}
}

// reportObjects are the objects of TestImportReports in namespace ns.
func reportObjects(t *testing.T, ns string) []*unstructured.Unstructured {
	t.Helper()
	csv := func(name, namespace string, labels map[string]any) map[string]any {
		meta := map[string]any{"name": name, "namespace": namespace}
		if labels != nil {
			meta["labels"] = labels
		}
		return map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion", "metadata": meta,
			"spec": map[string]any{"displayName": name, "version": strings.TrimPrefix(name[strings.Index(name, "."):], ".v"),
				"install": map[string]any{"strategy": "deployment"}}}
	}
	sub := func(name, source, approval string) map[string]any {
		return map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     map[string]any{"name": name, "channel": "stable", "source": source, "sourceNamespace": ns, "installPlanApproval": approval}}
	}
	source := func(name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}
	}
	docs := []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}},
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns + "-copy"}},
		source("index", map[string]any{"sourceType": "grpc", "image": "registry.example.com/olm/index:v1"}),
		source("legacy", map[string]any{"sourceType": "configmap", "configMap": "legacy-catalog"}),
		{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "index-x7k2p", "namespace": ns,
			"labels": map[string]any{"olm.catalogSource": "index"}},
			"spec": map[string]any{"automountServiceAccountToken": false, "containers": []any{map[string]any{
				"name": "registry-server", "image": "registry.example.com/olm/index:v1"}}}},
		sub("failing", "index", "Automatic"),
		sub("manual", "index", "Manual"),
		sub("legacy", "legacy", "Automatic"),
		csv("failing.v1.0.0", ns, nil),
		csv("manual.v1.0.0", ns, nil),
		csv("manual.v1.0.0", ns+"-copy", map[string]any{"olm.copiedFrom": ns}),
		csv("legacy.v1.0.0", ns, nil),
		csv("orphan.v1.0.0", ns, nil),
		{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan", "metadata": map[string]any{"name": "install-manual", "namespace": ns},
			"spec": map[string]any{"approval": "Manual", "approved": false, "clusterServiceVersionNames": []any{"manual.v1.1.0"}}},
	}
	out := make([]*unstructured.Unstructured, len(docs))
	for i, d := range docs {
		out[i] = &unstructured.Unstructured{Object: d}
	}
	return out
}

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/resolver/lock"
)

// importedCatalog is the catalog the quickstart's CatalogSource olm/examples binds.
const importedCatalog = "olm/examples=../../examples/quickstart/catalog"

// quickstartCluster is the quickstart as OLM installed it before the catalog gained
// widget-operator v0.2.0, plus a CSV installed without a Subscription.
var quickstartCluster = []string{
	`{apiVersion: v1, kind: Namespace, metadata: {name: operators, uid: a1, labels: {kubernetes.io/metadata.name: operators}}, spec: {finalizers: [kubernetes]}}`,
	`{apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {team: a, olm.operatorgroup.uid/a2: ""}}}`,
	`{apiVersion: v1, kind: Namespace, metadata: {name: olm}}`,
	`{apiVersion: operators.coreos.com/v1, kind: OperatorGroup, metadata: {name: global-operators, namespace: operators, uid: a2,
	  annotations: {olm.providedAPIs: Widget.v1.example.com}}, spec: {upgradeStrategy: Default}, status: {namespaces: [""]}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: CatalogSource, metadata: {name: examples, namespace: olm}, spec: {sourceType: grpc, address: "examples.olm.svc:50051"}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: widget-operator, namespace: operators,
	  labels: {operators.coreos.com/widget-operator.operators: ""}},
	  spec: {name: widget-operator, channel: stable, source: examples, sourceNamespace: olm, installPlanApproval: Automatic},
	  status: {installedCSV: widget-operator.v0.1.0, currentCSV: widget-operator.v0.1.0, state: AtLatestKnown}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: widget-operator.v0.1.0, namespace: operators},
	  spec: {version: 0.1.0}, status: {phase: Succeeded}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: widget-operator.v0.1.0, namespace: team-a,
	  labels: {olm.copiedFrom: operators}}, spec: {version: 0.1.0}, status: {phase: Succeeded}}`,
	`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: hand-made.v1.0.0, namespace: operators},
	  spec: {version: 1.0.0}, status: {phase: Succeeded}}`,
}

// TestImportCommand imports the quickstart from a fake API server: the reports go to stderr as
// warnings, the exit status is 0, the directory holds the inputs and a complete lock pinning the
// installed CSV, and a locked render of it succeeds (the lock does not change).
func TestImportCommand(t *testing.T) {
	kubeconfig := fakeAPIServer(t, quickstartCluster)
	out := filepath.Join(t.TempDir(), "cluster")
	code, stdout, stderr := runCLI(t, "import", "--kubeconfig", kubeconfig, "--catalog", importedCatalog, "--output-dir", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"warning: CatalogSource/olm/examples: has no spec.image (sourceType grpc, address examples.olm.svc:50051)",
		"warning: ClusterServiceVersion/operators/hand-made.v1.0.0: installed without a Subscription",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if og := readFile(t, filepath.Join(out, "operators", "operatorgroups.yaml")); strings.Contains(og, "olm.providedAPIs") || strings.Contains(og, "uid:") {
		t.Errorf("the OperatorGroup keeps what OLM and the server added:\n%s", og)
	}
	if !strings.Contains(stdout, "2 reports") {
		t.Errorf("stdout: %s", stdout)
	}
	for _, name := range []string{"namespaces.yaml", "operators/operatorgroups.yaml", "operators/subscriptions.yaml", "olm/catalogsources.yaml", lock.FileName} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the import lacks %s: %v", name, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, lock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := lock.Unmarshal(lock.FileName, data)
	if err != nil {
		t.Fatal(err)
	}
	if e := l.Entry("operators", "widget-operator"); e == nil || e.Bundle != "widget-operator.v0.1.0" || e.Digest == "" {
		t.Fatalf("widget-operator locked as %+v, want widget-operator.v0.1.0 with its digest", e)
	}
	code, rendered, stderr := runCLI(t, "render", "--locked", "--root", "/", "--catalog", importedCatalog, out)
	if code != 0 {
		t.Fatalf("render --locked of the import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(rendered, "name: widget-operator.v0.1.0") || strings.Contains(rendered, "widget-operator.v0.2.0") {
		t.Errorf("the render of the import does not hold the installed widget-operator.v0.1.0 alone")
	}
}

// TestImportCommandErrors: each failure exits non-zero, says why, and writes nothing.
func TestImportCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"import"}, "import needs --output-dir DIR"},
		{"no kubeconfig", []string{"import", "--kubeconfig", filepath.Join(t.TempDir(), "missing")}, "loading kubeconfig"},
		{"nothing to import", []string{"import", "--kubeconfig", fakeAPIServer(t, quickstartCluster[:3])},
			"no Subscription in any namespace: nothing to import"},
		{"installed CSV not in the catalog", []string{"import", "--catalog", importedCatalog,
			"--kubeconfig", fakeAPIServer(t, replaceCSV(quickstartCluster, "widget-operator.v0.1.0", "widget-operator.v0.0.9"))},
			"bundle widget-operator.v0.0.9 installed for Subscription operators/widget-operator is no longer in catalog olm/examples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if len(args) > 1 {
				args = append(args, "--output-dir", out)
			}
			code, _, stderr := runCLI(t, args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want non-zero with %q:\n%s", code, tc.want, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a failed import wrote %s", out)
			}
		})
	}
}

func replaceCSV(docs []string, from, to string) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = strings.ReplaceAll(d, from, to)
	}
	return out
}

// fakeAPIServer serves the objects read-only, as the API server lists and gets them (label
// selectors included), and returns a kubeconfig for it.
func fakeAPIServer(t *testing.T, docs []string) string {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &u.Object); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveFake(w, r, objs)
	}))
	t.Cleanup(srv.Close)
	kubeconfig := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "fake",
		"clusters": []any{map[string]any{"name": "fake", "cluster": map[string]any{"server": srv.URL}}},
		"contexts": []any{map[string]any{"name": "fake", "context": map[string]any{"cluster": "fake", "user": "fake"}}},
		"users":    []any{map[string]any{"name": "fake", "user": map[string]any{}}},
	}
	data, err := yaml.Marshal(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeKinds are the resources the fake API server knows.
var fakeKinds = map[string]string{
	"namespaces": "Namespace", "pods": "Pod", "subscriptions": "Subscription", "catalogsources": "CatalogSource",
	"clusterserviceversions": "ClusterServiceVersion", "installplans": "InstallPlan", "operatorgroups": "OperatorGroup",
	"olmconfigs": "OLMConfig",
}

// serveFake answers a GET of /api/v1/... or /apis/GROUP/VERSION/...: [namespaces/NS/]RESOURCE[/NAME].
func serveFake(w http.ResponseWriter, r *http.Request, objs []*unstructured.Unstructured) {
	path := strings.TrimPrefix(r.URL.Path, "/api/")
	path = strings.TrimPrefix(path, "/apis/")
	segs := strings.Split(path, "/")
	gv := segs[0]
	if strings.HasPrefix(r.URL.Path, "/apis/") && len(segs) > 1 {
		gv, segs = segs[0]+"/"+segs[1], segs[2:]
	} else {
		segs = segs[1:]
	}
	var ns, resource, name string
	switch {
	case len(segs) >= 3 && segs[0] == "namespaces":
		ns, resource = segs[1], segs[2]
		if len(segs) > 3 {
			name = segs[3]
		}
	case len(segs) >= 1:
		resource = segs[0]
		if len(segs) > 1 {
			name = segs[1]
		}
	}
	kind, ok := fakeKinds[resource]
	selector, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if !ok || err != nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
		return
	}
	var items []any
	for _, o := range objs {
		if o.GetAPIVersion() == gv && o.GetKind() == kind && (ns == "" || o.GetNamespace() == ns) &&
			(name == "" || o.GetName() == name) && selector.Matches(labels.Set(o.GetLabels())) {
			items = append(items, o.Object)
		}
	}
	switch {
	case name == "":
		writeJSON(w, http.StatusOK, map[string]any{"apiVersion": gv, "kind": kind + "List", "metadata": map[string]any{}, "items": items})
	case len(items) == 0:
		writeJSON(w, http.StatusNotFound, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
	default:
		writeJSON(w, http.StatusOK, items[0])
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

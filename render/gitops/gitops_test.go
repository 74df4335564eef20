package gitops

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// large returns a ConfigMap whose client-side apply needs about n bytes of annotations.
func large(t *testing.T, n int) *unstructured.Unstructured {
	u := object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: ops}\n")
	u.Object["data"] = map[string]any{"blob": strings.Repeat("x", n)}
	return u
}

func TestClientSideApplySize(t *testing.T) {
	u := object(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {a: bc, kubectl.kubernetes.io/last-applied-configuration: old}}\n")
	got, err := ClientSideApplySize(u)
	if err != nil {
		t.Fatal(err)
	}
	// The object's JSON without the old last-applied, the annotation's key, and a: bc.
	const json = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"a":"bc"},"name":"c"}}`
	if want := len(json) + len(lastApplied) + len("a") + len("bc"); got != want {
		t.Errorf("size %d, want %d", got, want)
	}
}

// TestPrepare: what each engine adds, and what kubectl is warned about.
func TestPrepare(t *testing.T) {
	const (
		ns   = "apiVersion: v1\nkind: Namespace\nmetadata: {name: ops}\n"
		crd  = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com, annotations: {argocd.argoproj.io/sync-options: 'Validate=false,Prune=true'}}\n"
		sa   = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op, namespace: ops}\n"
		wave = ArgoSyncWave
		opts = ArgoSyncOptions
	)
	tests := []struct {
		name     string
		engine   Engine
		objs     []*unstructured.Unstructured
		want     []map[string]string // annotations added, per object
		warnings []string
	}{{
		name:   "argocd: waves for prerequisites, server-side for the large, CRDs never pruned",
		engine: ArgoCD,
		objs:   []*unstructured.Unstructured{object(t, ns), object(t, crd), object(t, sa), large(t, maxAnnotationBytes), large(t, maxAnnotationBytes-200)},
		want: []map[string]string{
			{wave: "-1"},
			{wave: "-1", opts: "Validate=false,Prune=false"},
			nil,
			{opts: "ServerSideApply=true"},
			nil,
		},
	}, {
		name:   "flux: CRDs never pruned, nothing else",
		engine: Flux,
		objs:   []*unstructured.Unstructured{object(t, ns), object(t, crd), large(t, maxAnnotationBytes)},
		want:   []map[string]string{nil, {FluxPrune: "disabled"}, nil},
	}, {
		name:     "kubectl: nothing added, the large object reported",
		engine:   Kubectl,
		objs:     []*unstructured.Unstructured{object(t, crd), large(t, maxAnnotationBytes), large(t, maxAnnotationBytes-200)},
		want:     []map[string]string{nil, nil, nil},
		warnings: []string{"ConfigMap/ops/big: metadata.annotations:"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]map[string]string, len(tt.objs))
			for i, u := range tt.objs {
				before[i] = u.GetAnnotations()
			}
			got, warnings, err := Prepare(tt.objs, tt.engine)
			if err != nil {
				t.Fatal(err)
			}
			for i, u := range got {
				added := map[string]string{}
				for k, v := range u.GetAnnotations() {
					if before[i][k] != v {
						added[k] = v
					}
				}
				if len(added) != len(tt.want[i]) {
					t.Errorf("%s: added %v, want %v", ObjectName(u), added, tt.want[i])
				}
				for k, v := range tt.want[i] {
					if added[k] != v {
						t.Errorf("%s: %s = %q, want %q", ObjectName(u), k, added[k], v)
					}
				}
				if tt.objs[i].GetAnnotations()[opts] != before[i][opts] {
					t.Errorf("%s: the input was modified", ObjectName(u))
				}
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings %v, want %v", warnings, tt.warnings)
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i].Error(), w) || !strings.Contains(warnings[i].Error(), "kubectl apply --server-side") {
					t.Errorf("warning %q, want it to contain %q and the command", warnings[i].Error(), w)
				}
			}
		})
	}
}

func TestFluxSourceChecked(t *testing.T) {
	for _, source := range []string{"GitRepository", "../x/y", "Kustomization/flux-system", "GitRepository/../x", "GitRepository/Fleet"} {
		if _, err := FluxKustomizations(FluxOptions{Name: "operators", Namespace: "flux-system", Source: source, Path: "./x"}); err == nil {
			t.Errorf("source %q accepted", source)
		}
	}
}

func TestFluxKustomizations(t *testing.T) {
	got, err := FluxKustomizations(FluxOptions{Name: "operators", Namespace: "flux-system", Source: "GitRepository/fleet", Path: "./clusters/prod/operators"})
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: operators, namespace: flux-system}
spec:
  dependsOn: [{name: operators-crds}]
  healthCheckExprs:
  - apiVersion: operators.coreos.com/v1alpha1
    kind: ClusterServiceVersion
    current: "!(has(metadata.finalizers) && 'operators.coreos.com/csv-cleanup' in metadata.finalizers) || has(status.phase) && status.phase == 'Succeeded'"
    failed: "has(metadata.finalizers) && 'operators.coreos.com/csv-cleanup' in metadata.finalizers && has(status.phase) && status.phase == 'Failed'"
    inProgress: "has(metadata.finalizers) && 'operators.coreos.com/csv-cleanup' in metadata.finalizers && (!has(status.phase) || !(status.phase in ['Succeeded', 'Failed']))"
  interval: 10m
  path: ./clusters/prod/operators/operators
  prune: true
  sourceRef: {kind: GitRepository, name: fleet}
  timeout: 10m
  wait: true
`
	if len(got) != 2 || got[0].GetName() != "operators-crds" || got[0].Object["spec"].(map[string]any)["path"] != "./clusters/prod/operators/crds" {
		t.Fatalf("crds Kustomization: %v", got)
	}
	if w := object(t, want); !equalJSON(t, w.Object, got[1].Object) {
		g, _ := yaml.Marshal(got[1].Object)
		t.Errorf("operators Kustomization:\n%s\nwant:\n%s", g, want)
	}
	for _, bad := range []FluxOptions{
		{Name: "operators", Namespace: "flux-system", Source: "flux-system"},
		{Name: "Operators_", Namespace: "flux-system", Source: DefaultFluxSource},
		{Name: "operators", Namespace: "flux system", Source: DefaultFluxSource},
	} {
		if _, err := FluxKustomizations(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func equalJSON(t *testing.T, a, b map[string]any) bool {
	t.Helper()
	x, err1 := yaml.Marshal(a)
	y, err2 := yaml.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

func TestParseEngine(t *testing.T) {
	for in, want := range map[string]Engine{"": Kubectl, "kubectl": Kubectl, "argocd": ArgoCD, "flux": Flux} {
		if got, err := ParseEngine(in); err != nil || got != want {
			t.Errorf("%q: %v, %v", in, got, err)
		}
	}
	if _, err := ParseEngine("argo"); err == nil || !strings.Contains(err.Error(), "argocd") {
		t.Errorf("argo: %v", err)
	}
}

// TestCSVHealthCheckIsTheExample: the check a --for flux render writes is the --olm=absent
// fragment examples/flux ships (and test/e2e evaluates).
func TestCSVHealthCheckIsTheExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "flux", "health-check-exprs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(strings.SplitN(string(data), "\n---\n", 2)[1], "\n---\n")
	var k struct {
		Spec struct {
			HealthCheckExprs []map[string]any `json:"healthCheckExprs"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(first), &k); err != nil {
		t.Fatal(err)
	}
	if len(k.Spec.HealthCheckExprs) != 1 {
		t.Fatalf("%d entries in the --olm=absent fragment", len(k.Spec.HealthCheckExprs))
	}
	if diff := cmp.Diff(k.Spec.HealthCheckExprs[0], CSVHealthCheck()); diff != "" {
		t.Errorf("CSVHealthCheck differs from examples/flux/health-check-exprs.yaml (-example +code):\n%s", diff)
	}
}

// TestJSONBound: the bound is never below the JSON encoding's real size, for escapes, unicode,
// numbers, nested lists and maps, and is unbounded for values it does not know.
func TestJSONBound(t *testing.T) {
	values := []any{
		nil, true, false, int64(math.MinInt64), int64(math.MaxInt64), 1e308, -math.SmallestNonzeroFloat64, 0.1,
		"", "plain", "<&>\u2028\u2029\x00\x1f\"\\", strings.Repeat("é", 100), "\xff\xfe invalid utf-8",
		[]any{}, []any{nil, "a", []any{map[string]any{}}},
		map[string]any{"<key>": "v", "": []any{int64(1), 2.5}, "n": map[string]any{"\x01": nil}},
	}
	for _, v := range values {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if b := jsonBound(v); b < len(data) {
			t.Errorf("jsonBound(%#v) = %d, below the encoding's %d bytes", v, b, len(data))
		}
	}
	if b := jsonBound(map[string]any{"a": []string{"not unstructured"}}); b < unboundedJSON {
		t.Errorf("jsonBound of a []string = %d, want unbounded", b)
	}
}

// TestTooLargeForClientSide: objects near the limit are settled by their real size, not the
// bound, on both sides of it.
func TestTooLargeForClientSide(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want bool
	}{{1000, false}, {maxAnnotationBytes / 2, false}, {maxAnnotationBytes - 200, false}, {maxAnnotationBytes, true}} {
		u := large(t, tt.n)
		_, got, err := tooLargeForClientSide(u)
		if err != nil {
			t.Fatal(err)
		}
		size, err := ClientSideApplySize(u)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want || got != (size > maxAnnotationBytes) {
			t.Errorf("%d bytes of data: too large = %v, want %v (size %d)", tt.n, got, tt.want, size)
		}
	}
}

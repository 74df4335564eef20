package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// write writes files under a temp dir and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeCatalogs records the sources it is asked to load.
func fakeCatalogs(loaded *[]string) LoadFunc {
	return func(_ rootfs.FS, src Source) (*catalog.Catalog, error) {
		*loaded = append(*loaded, src.String())
		return &catalog.Catalog{Path: src.String()}, nil
	}
}

// openRoot opens dir as the root of a load.
func openRoot(t *testing.T, dir string) *rootfs.Dir {
	t.Helper()
	d, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

const good = `apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: operators.coreos.com/v1alpha2
kind: OperatorGroup
metadata: {name: og, namespace: ops}
spec: {targetNamespaces: [ops]}
---
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: cat
  namespace: olm
  annotations: {olm-render.dev/catalog: ../catalog}
spec: {sourceType: grpc, priority: 5}
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: etcd, namespace: ops}
spec: {name: etcd, channel: alpha, source: cat, sourceNamespace: olm}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: passthrough, namespace: ops}
`

func TestLoad(t *testing.T) {
	dir := write(t, map[string]string{
		"in/all.yaml":             good,
		"in/sub/extra.json":       `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`,
		"in/.hidden/x.yaml":       "not: [valid",
		"in/olm-render.lock.yaml": "apiVersion: olm-render.dev/v1alpha1\nkind: Lock\n",
		"in/notes.txt":            "ignored",
	})
	var loaded []string
	set, err := Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Namespaces) != 2 || len(set.OperatorGroups) != 1 || len(set.Subscriptions) != 1 || len(set.CatalogSources) != 1 || len(set.Others) != 1 {
		t.Fatalf("set: %d ns, %d og, %d subs, %d catsrc, %d others", len(set.Namespaces), len(set.OperatorGroups), len(set.Subscriptions), len(set.CatalogSources), len(set.Others))
	}
	og := set.OperatorGroups[0]
	if og.SourceAPIVersion != "operators.coreos.com/v1alpha2" || og.APIVersion != "operators.coreos.com/v1" || og.Spec.TargetNamespaces[0] != "ops" {
		t.Errorf("v1alpha2 OperatorGroup: %+v", og)
	}
	if want := openRoot(t, dir).Path("in/all.yaml"); og.Origin.File != want || og.Origin.Index != 1 {
		t.Errorf("origin %v", og.Origin)
	}
	if len(set.Catalogs) != 1 || set.Catalogs[0].Priority != 5 || set.Catalogs[0].Key() != "olm/cat" {
		t.Fatalf("catalogs %+v", set.Catalogs)
	}
	if want := "catalog"; len(loaded) != 1 || loaded[0] != want {
		t.Errorf("loaded %v, want %s", loaded, want)
	}
}

func TestBindingOverridesAnnotation(t *testing.T) {
	dir := write(t, map[string]string{"in/all.yaml": good})
	var loaded []string
	b, err := ParseBinding("olm/cat=" + filepath.Join(dir, "elsewhere"))
	if err != nil {
		t.Fatal(err)
	}
	prio := 9
	b.Priority = &prio
	set, err := Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir), Catalogs: []Binding{b}, LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 1 || loaded[0] != "elsewhere" || set.Catalogs[0].Priority != 9 {
		t.Errorf("loaded %v priority %d", loaded, set.Catalogs[0].Priority)
	}
}

func TestParseBinding(t *testing.T) {
	for _, bad := range []string{"", "a", "a/b", "a=b", "/b=c", "a/=c", "a/b=", "a/b/c=d"} {
		if _, err := ParseBinding(bad); err == nil {
			t.Errorf("ParseBinding(%q) accepted", bad)
		}
	}
	b, err := ParseBinding("olm/community=./cat=x")
	if err != nil || b.Namespace != "olm" || b.Name != "community" || b.Path != "./cat=x" {
		t.Errorf("%+v %v", b, err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"truncated YAML", map[string]string{"a.yaml": "apiVersion: v1\nkind: [Namespace\n"}, []string{"a.yaml: invalid YAML"}},
		{"not an object", map[string]string{"a.yaml": "hello: world\n"}, []string{"a.yaml: not a Kubernetes object"}},
		{"wrong type", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: ops}\nspec: {targetNamespaces: ops}\n"},
			[]string{"a.yaml: OperatorGroup/ops/og: spec.targetNamespaces: wrong type: want a list of strings, got a string"}},
		{"a quantity the API server refuses", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s, namespace: ops}\nspec: {name: p, source: c, sourceNamespace: olm, config: {resources: {limits: {cpu: lots}}}}\n"},
			[]string{`a.yaml: Subscription/ops/s: spec.config.resources.limits.cpu: "lots" is not a quantity: want a number with an optional suffix, such as 500m, 2 or 64Mi`}},
		{"a time the API server refuses", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v2\nkind: OperatorCondition\nmetadata: {name: op.v1, namespace: ops}\nspec: {conditions: [{type: A, status: 'True', reason: r, message: m, lastTransitionTime: '2024-01-02T15:04:05Z'}, {type: Upgradeable, status: 'False', reason: r, message: m, lastTransitionTime: yesterday}]}\n"},
			[]string{`a.yaml: OperatorCondition/ops/op.v1: spec.conditions[1].lastTransitionTime: "yesterday" is not a time: want RFC 3339, such as 2024-01-02T15:04:05Z`}},
		{"missing namespace", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s}\nspec: {name: p, source: c, sourceNamespace: olm}\n"},
			[]string{"a.yaml: Subscription/s: metadata.namespace: required"}},
		{"duplicate", map[string]string{"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"},
			[]string{"a.yaml#1: Namespace/x: metadata.name: declared twice (first in "}},
		{"unbound catalog", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s, namespace: ops}\nspec: {name: p, source: c, sourceNamespace: olm}\n"},
			[]string{"a.yaml: Subscription/ops/s: spec.source: no catalog snapshot is bound to CatalogSource olm/c: declare it with spec.image or the annotation olm-render.dev/catalog: <path>, or pass --catalog olm/c=PATH"}},
		{"missing spec fields", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s, namespace: ops}\nspec: {source: c}\n"},
			[]string{"spec.name: required", "spec.sourceNamespace: required"}},
		{"another object's name the API server refuses", map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a/../../b, namespace: ops}\n"},
			[]string{`a.yaml: ConfigMap/ops/a/../../b: metadata.name: invalid name "a/../../b": may not contain '/'`}},
		{"another object's invalid namespace", map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: Ops_1}\n"},
			[]string{"a.yaml: ConfigMap/Ops_1/a: metadata.namespace: invalid namespace"}},
		{"another object without a name", map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: ops}\n"},
			[]string{"a.yaml: ConfigMap: metadata.name: required"}},
		{"a target namespace that cannot exist", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: ops}\nspec: {targetNamespaces: [ops, '..']}\n"},
			[]string{`a.yaml: OperatorGroup/ops/og: spec.targetNamespaces[1]: invalid namespace "..": a lowercase RFC 1123 label`}},
		{"a Subscription config the API server refuses", map[string]string{"a.yaml": `apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: s, namespace: ops}
spec:
  name: p
  source: c
  sourceNamespace: olm
  config:
    tolerations: [{key: a, operator: Maybe}]
    nodeSelector: {"bad key!": x}
    env: [{name: "A=B", value: x}]
    resources: {requests: {cpu: "2"}, limits: {cpu: "1"}}
    volumes: [{name: Data_1, emptyDir: {}}]
    volumeMounts: [{name: data}]
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchExpressions: [{key: app, operator: Near, values: [x]}]}
          topologyKey: kubernetes.io/hostname
`},
			[]string{`Subscription/ops/s: spec.config.tolerations[0].operator: must be Exists or Equal, got "Maybe"`,
				"spec.config.nodeSelector[bad key!]: invalid key",
				`spec.config.env[0].name: invalid name "A=B"`,
				"spec.config.resources.requests[cpu]: 2 must be less than or equal to the limit 1",
				`spec.config.volumes[0].name: invalid name "Data_1"`,
				"spec.config.volumeMounts[0].mountPath: required",
				"spec.config.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: invalid label selector"}},
		{"a CatalogSource bound to its own directory", map[string]string{"a.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: c, namespace: olm, annotations: {olm-render.dev/catalog: .}}\nspec: {sourceType: grpc}\n"},
			[]string{"a.yaml: CatalogSource/olm/c: metadata.annotations[olm-render.dev/catalog]: binds the directory holding this CatalogSource's own file"}},
		{"a Subscription in a misspelt group", map[string]string{"a.yaml": "apiVersion: operator.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s, namespace: ops}\nspec: {name: p, source: c, sourceNamespace: olm}\n"},
			[]string{`a.yaml: Subscription/ops/s: kind: API group "operator.coreos.com" is not served here`, "did you mean apiVersion operators.coreos.com/v1alpha1?"}},
		{"an OperatorGroup in a misspelt group", map[string]string{"a.yaml": "apiVersion: operators.coreos.io/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: ops}\n"},
			[]string{"a.yaml: OperatorGroup/ops/og: kind:", "did you mean apiVersion operators.coreos.com/v1?"}},
		{"a Deployment in a misspelt built-in group", map[string]string{"a.yaml": "apiVersion: app/v1\nkind: Deployment\nmetadata: {name: d, namespace: ops}\n"},
			[]string{"a.yaml: Deployment/ops/d: kind:", "did you mean apiVersion apps/v1?"}},
		{"a file of NUL bytes", map[string]string{"a.yaml": strings.Repeat("\x00", 4096)},
			[]string{"a.yaml: not a YAML or JSON text file: a NUL byte at offset 0"}},
		{"NUL bytes after a document", map[string]string{"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n\x00"},
			[]string{"a.yaml: not a YAML or JSON text file: a NUL byte at offset 51"}},
		{"another object declared twice", map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ops}\ndata: {k: a}\n", "b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ops}\ndata: {k: b}\n"},
			[]string{"b.yaml: ConfigMap/ops/a: metadata.name: declared twice, with other content (first in "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.files)
			var loaded []string
			_, err := Load([]string{dir}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
			if err == nil {
				t.Fatal("no error")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error\n%s\ndoes not contain\n%s", msg, w)
				}
			}
			if len(diag.From(err)) == 0 {
				t.Error("the error carries no problems")
			}
		})
	}
}

func TestUnknownFieldIsAWarning(t *testing.T) {
	dir := write(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\nspce: {}\n"})
	set, err := Load([]string{dir}, LoadOptions{Root: openRoot(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Warnings) != 1 || set.Warnings[0].Field != "spce" {
		t.Errorf("warnings %v", set.Warnings)
	}
}

func TestMissingInput(t *testing.T) {
	_, err := Load([]string{"does-not-exist"}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "does-not-exist: cannot read input: no such file or directory") {
		t.Fatalf("%v", err)
	}
}

func FuzzReadBytes(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, _ := ReadBytes("f.yaml", data)
		_, _ = FromItems(items, LoadOptions{LoadCatalog: func(rootfs.FS, Source) (*catalog.Catalog, error) { return &catalog.Catalog{}, nil }})
	})
}

// TestByteOrderMark: a file that opens with a UTF-8 byte order mark (editors on Windows write
// one) is read as YAML allows.
func TestByteOrderMark(t *testing.T) {
	dir := write(t, map[string]string{"a.yaml": "\ufeffapiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"})
	set, err := Load([]string{dir}, LoadOptions{Root: openRoot(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Namespaces) != 1 || set.Namespaces[0].Name != "x" {
		t.Errorf("namespaces %v", set.Namespaces)
	}
}

// TestIdenticalDuplicatePassesOnce: an object passed through and declared again with the same
// content (oc-mirror writes its signature ConfigMap as signature-configmap.json and .yaml) is
// one object.
func TestIdenticalDuplicatePassesOnce(t *testing.T) {
	const labels = `{"release.openshift.io/verification-signatures": ""}`
	dir := write(t, map[string]string{
		"in/all.yaml": good,
		"in/cluster-resources/signature-configmap.json": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"mirrored-release-signatures","namespace":"openshift-config-managed","labels":` +
			labels + `},"binaryData":{"sha256-1":"YWJj"}}`,
		"in/cluster-resources/signature-configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mirrored-release-signatures\n  namespace: openshift-config-managed\n" +
			"  labels:\n    release.openshift.io/verification-signatures: \"\"\nbinaryData:\n  sha256-1: YWJj\n",
	})
	var loaded []string
	set, err := Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir), LoadCatalog: fakeCatalogs(&loaded)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range set.Others {
		if o.GetName() == "mirrored-release-signatures" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the ConfigMap declared twice alike passes through %d times, want once", n)
	}
}

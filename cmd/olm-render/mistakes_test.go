package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// edit is a change to one quickstart input file: old replaced by new, or, with old empty, new
// appended.
type edit struct{ file, old, new string }

// quickstartWith copies the quickstart inputs and catalog into a temp dir, applies the edits and
// returns the inputs' directory, with the temp dir as the working directory (the root).
func quickstartWith(t *testing.T, edits ...edit) string {
	t.Helper()
	top := t.TempDir()
	if err := os.CopyFS(filepath.Join(top, "catalog"), os.DirFS("../../examples/quickstart/catalog")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "input")
	if err := os.CopyFS(dir, os.DirFS(quickstart)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "olm-render.lock.yaml"))
	for _, e := range edits {
		p := filepath.Join(dir, e.file)
		data, _ := os.ReadFile(p)
		s := string(data)
		switch {
		case e.old == "":
			s += e.new
		case !strings.Contains(s, e.old):
			t.Fatalf("%s does not contain %q", e.file, e.old)
		default:
			s = strings.ReplaceAll(s, e.old, e.new)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	return "input"
}

// TestMistakes: the commonest mistakes fail (or warn, where OLM would still install) with a
// message naming the file, the object, the field and the fix; none exits 0 having dropped an
// operator.
func TestMistakes(t *testing.T) {
	const sub, og = "subscription.yaml", "operatorgroup.yaml"
	tests := []struct {
		name  string
		edits []edit
		args  []string
		code  int
		want  []string
	}{
		{name: "wrong kind", edits: []edit{{sub, "kind: Subscription", "kind: Subcription"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subcription/operators/widget-operator", "kind", "did you mean Subscription?"}},
		{name: "wrong version", edits: []edit{{sub, "operators.coreos.com/v1alpha1", "operators.coreos.com/v1"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operators/widget-operator", "set apiVersion to operators.coreos.com/v1alpha1"}},
		{name: "unknown field", edits: []edit{{sub, "  channel: stable", "  chanel: stable\n  channel: stable"}}, code: 0,
			want: []string{"warning: input/subscription.yaml: Subscription/operators/widget-operator: spec.chanel: unknown field", "did you mean spec.channel?"}},
		{name: "unknown field, strict", edits: []edit{{sub, "  channel: stable", "  chanel: stable\n  channel: stable"}}, args: []string{"--strict"}, code: 1,
			want: []string{"error: input/subscription.yaml: Subscription/operators/widget-operator: spec.chanel: unknown field"}},
		{name: "repeated field", edits: []edit{{sub, "  channel: stable", "  channel: stable\n  channel: stable"}}, code: 1,
			want: []string{"input/subscription.yaml", "repeated key"}},
		{name: "empty input", edits: []edit{{sub, "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription", "apiVersion: v1\nkind: ConfigMap"}}, code: 1,
			want: []string{"no Subscription in input", "--allow-empty"}},
		{name: "undeclared namespace", edits: []edit{{sub, "namespace: operators", "namespace: operatorz"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operatorz/widget-operator", "metadata.namespace", "did you mean operators?", "declare an OperatorGroup in namespace operatorz"}},
		{name: "two OperatorGroups", edits: []edit{{og, "", "---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: second, namespace: operators}\n"}}, code: 1,
			want: []string{"expected 1 OperatorGroup in the namespace, found 2", "keep one of global-operators (input/operatorgroup.yaml) and second (input/operatorgroup.yaml#1)"}},
		{name: "package typo", edits: []edit{{sub, "  name: widget-operator\n", "  name: widget-operatr\n"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operators/widget-operatr", `spec.name "widget-operatr" does not exist: did you mean "widget-operator"?`}},
		{name: "channel typo", edits: []edit{{sub, "channel: stable", "channel: stabel"}}, code: 1,
			want: []string{"input/subscription.yaml", `spec.channel "stabel" does not exist: did you mean "stable"?`}},
		{name: "startingCSV typo", edits: []edit{{sub, "  channel: stable", "  channel: stable\n  startingCSV: widget-operator.v0.2.1"}}, code: 1,
			want: []string{"input/subscription.yaml", `spec.startingCSV "widget-operator.v0.2.1" does not exist: did you mean`}},
		{name: "CatalogSource typo", edits: []edit{{sub, "source: examples", "source: exampels"}}, code: 1,
			want: []string{"input/subscription.yaml", "spec.source", "did you mean CatalogSource olm/examples?"}},
		{name: "OpenShift catalog namespace", edits: []edit{{sub, "sourceNamespace: olm", "sourceNamespace: openshift-marketplace"}, {"catalogsource.yaml", "namespace: olm", "namespace: openshift-marketplace"}}, code: 1,
			want: []string{"input/subscription.yaml", "spec.sourceNamespace", "pass --global-catalog-namespace openshift-marketplace"}},
		{name: "group typo", edits: []edit{{sub, "operators.coreos.com/v1alpha1", "operator.coreos.com/v1alpha1"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operators/widget-operator", "kind", "did you mean apiVersion operators.coreos.com/v1alpha1?"}},
		{name: "a file of NUL bytes", edits: []edit{{"zeros.yaml", "", strings.Repeat("\x00", 512)}}, code: 1,
			want: []string{"input/zeros.yaml", "not a YAML or JSON text file: a NUL byte at offset 0"}},
		{name: "CatalogSource naming no catalog", edits: []edit{{"catalogsource.yaml", "    olm-render.dev/catalog: ../catalog\n", "    note: none\n"}}, code: 1,
			want: []string{"input/subscription.yaml", "spec.source", "CatalogSource olm/examples (input/catalogsource.yaml) names no catalog"}},
		{name: "an object OLM creates declared differently", edits: []edit{{"csv.yaml", "", "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: widget-operator.v0.2.0, namespace: operators}\nspec: {displayName: mine}\n"}}, code: 1,
			want: []string{"input/csv.yaml: ClusterServiceVersion/operators/widget-operator.v0.2.0: declared in the inputs and also created by OLM", "remove it from the inputs"}},
		{name: "control characters in a name", edits: []edit{{sub, "  name: widget-operator\n  namespace", "  name: \"widget\\nerror: forged\\e[2J\"\n  namespace"}}, code: 1,
			want: []string{`Subscription/operators/widget\nerror: forged\x1b[2J: metadata.name: invalid name`}},
		{name: "a dependency no resolution can read", edits: []edit{{"../catalog/widget-operator/0.2.0/metadata/dependencies.yaml", "", "dependencies:\n- type: olm.constraint\n  value:\n    cel:\n      rule: 'properties.exists(p, p.type == '\n"}}, code: 1,
			want: []string{"catalog/widget-operator/0.2.0/metadata/dependencies.yaml: bundle widget-operator.v0.2.0: its dependencies: convert olm.constraint to resolver predicate"}},
		{name: "output over the inputs", args: []string{"-o", "input"}, code: 1,
			want: []string{"-o input would overwrite input, which this render reads"}},
		{name: "output over the catalog", args: []string{"-o", "catalog"}, code: 1,
			want: []string{"-o catalog would overwrite catalog, which this render reads"}},
		{name: "output holding the inputs", args: []string{"-o", "."}, code: 1,
			want: []string{"-o . would overwrite input, which this render reads"}},
		{name: "output inside the catalog", args: []string{"-o", "catalog/rendered"}, code: 1,
			want: []string{"-o catalog/rendered is inside the catalog snapshot catalog"}},
		{name: "--catalog naming nothing", args: []string{"--catalog", "olm/examples=/nonexistent/catalog"}, code: 1,
			want: []string{"--catalog olm/examples=/nonexistent/catalog: cannot read the catalog snapshot: no such file or directory"}},
		{name: "--catalog naming no image", args: []string{"--catalog", "olm/examples=oci://"}, code: 1,
			want: []string{"CatalogSource/olm/examples: --catalog olm/examples: \"oci://\" names no image"}},
		{name: "unsupported OperatorGroup", edits: []edit{{og, "  namespace: operators\n", "  namespace: operators\nspec:\n  targetNamespaces: [operators, team-a]\n"}}, code: 1,
			want: []string{"UnsupportedOperatorGroup", "supports OwnNamespace, SingleNamespace, AllNamespaces", "operators/global-operators (input/operatorgroup.yaml)", "MultiNamespace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := quickstartWith(t, tt.edits...)
			code, out, errOut := runCLI(t, append(append([]string{"render", "--no-lock"}, tt.args...), dir)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.code, errOut)
			}
			if code != 0 && out != "" {
				t.Errorf("a failed render wrote %d bytes to stdout", len(out))
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not contain %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestBadLimits: sizes that are none are refused, not taken as the default.
func TestBadLimits(t *testing.T) {
	dir := quickstartWith(t)
	code, _, errOut := runCLI(t, "render", "--no-lock", "--max-file-size", "-1", dir)
	if code != 1 || !strings.Contains(errOut, "--max-file-size and --max-total-size are sizes in bytes") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

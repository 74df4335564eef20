package main

import (
	"os"
	"path/filepath"
	"slices"
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
// message naming the file, the object, the field and the fix, the user's own mistake and its
// did-you-mean first; none exits 0 having dropped an operator or rendered another value than
// the one written, and a failed render leaves the lock as it was.
func TestMistakes(t *testing.T) {
	const sub, og = "subscription.yaml", "operatorgroup.yaml"
	tests := []struct {
		name  string
		edits []edit
		args  []string
		code  int
		want  []string
		// first must all be in the first problem stderr reports: the user's own mistake,
		// with the file, object, field and did-you-mean, before what follows from it.
		first []string
		// absent must not be in the output.
		absent []string
		// stdout must be in stdout.
		stdout []string
		// cmd runs instead of render --no-lock: with args and the inputs' directory, or, for
		// catalog validate, as it is.
		cmd []string
		// lock renders with the quickstart's lock, which a failed render must leave as it is.
		lock bool
		// unreadable is made unreadable (mode 000) first; the case is skipped when that cannot
		// deny this process (root).
		unreadable string
	}{
		{name: "wrong kind", edits: []edit{{sub, "kind: Subscription", "kind: Subcription"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subcription/operators/widget-operator", "kind", "did you mean Subscription?"}},
		{name: "wrong version", edits: []edit{{sub, "operators.coreos.com/v1alpha1", "operators.coreos.com/v1"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operators/widget-operator", "set apiVersion to operators.coreos.com/v1alpha1"}},
		{name: "unknown field", edits: []edit{{sub, "  channel: stable", "  chanel: stable\n  channel: stable"}}, code: 1,
			first: []string{"error: input/subscription.yaml: Subscription/operators/widget-operator: spec.chanel: unknown field: did you mean spec.channel?"}},
		{name: "unknown field, --strict=false", edits: []edit{{sub, "  channel: stable", "  chanel: stable\n  channel: stable"}}, args: []string{"--strict=false"}, code: 0,
			want: []string{"warning: input/subscription.yaml: Subscription/operators/widget-operator: spec.chanel: unknown field: did you mean spec.channel?"}},
		{name: "unknown field, strict", edits: []edit{{sub, "  channel: stable", "  chanel: stable\n  channel: stable"}}, args: []string{"--strict"}, code: 1,
			want: []string{"error: input/subscription.yaml: Subscription/operators/widget-operator: spec.chanel: unknown field"}},
		{name: "misspelt installPlanApproval, with a lock", lock: true, edits: []edit{{sub, "  installPlanApproval: Automatic", "  installPlanAproval: Manual"}}, code: 1,
			first: []string{"error: input/subscription.yaml: Subscription/operators/widget-operator: spec.installPlanAproval: unknown field: did you mean spec.installPlanApproval?"}},
		{name: "misspelt OperatorGroup field", edits: []edit{{og, "  namespace: operators\n", "  namespace: operators\nspec:\n  targetNamespace: [operators]\n"}}, code: 1,
			first: []string{"input/operatorgroup.yaml: OperatorGroup/operators/global-operators: spec.targetNamespace: unknown field: did you mean spec.targetNamespaces?"}},
		{name: "misspelt CatalogSource field", edits: []edit{{"catalogsource.yaml", "  priority: 0", "  priorty: 0"}}, code: 1,
			first: []string{"input/catalogsource.yaml: CatalogSource/olm/examples: spec.priorty: unknown field: did you mean spec.priority?"}},
		{name: "misspelt OLMConfig field", edits: []edit{{"olmconfig.yaml", "", "apiVersion: operators.coreos.com/v1\nkind: OLMConfig\nmetadata: {name: cluster}\nspec: {features: {disableCopiedCSV: true}}\n"}}, code: 1,
			first: []string{"input/olmconfig.yaml: OLMConfig/cluster: spec.features.disableCopiedCSV: unknown field: did you mean spec.features.disableCopiedCSVs?"}},
		{name: "misspelt OperatorCondition field", edits: []edit{{"condition.yaml", "", "apiVersion: operators.coreos.com/v2\nkind: OperatorCondition\nmetadata: {name: widget-operator.v0.2.0, namespace: operators}\nspec: {overides: []}\n"}}, code: 1,
			first: []string{"input/condition.yaml: OperatorCondition/operators/widget-operator.v0.2.0: spec.overides: unknown field: did you mean spec.overrides?"}},
		{name: "misspelt RenderConfig field", edits: []edit{{"../render-config.yaml", "", "apiVersion: olm-render.dev/v1alpha1\nkind: RenderConfig\noptions: {keepIntnet: true}\n"}},
			cmd: []string{"fn", "render-config.yaml"}, code: 1,
			first: []string{"error: render-config.yaml: RenderConfig: options.keepIntnet: unknown field: did you mean options.keepIntent?"}},
		{name: "misspelt lock field", lock: true, edits: []edit{{"olm-render.lock.yaml", "- bundle: widget-operator.v0.2.0", "- bundel: widget-operator.v0.2.0"}}, code: 1,
			first: []string{"input/olm-render.lock.yaml: Lock: namespaces[0].subscriptions[1].bundel: unknown field: did you mean namespaces[0].subscriptions[1].bundle?"}},
		{name: "repeated key in the lock", lock: true, edits: []edit{{"olm-render.lock.yaml", "kind: Lock\n", "kind: Lock\nkind: Lock\n"}}, code: 1,
			first: []string{"input/olm-render.lock.yaml: Lock: kind: repeated key (line 3 and line 4)"}},
		{name: "unknown field of a kind passed through", edits: []edit{{"configmap.yaml", "", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: operators}\ndat: {a: b}\n"}}, code: 0,
			absent: []string{"unknown field"}, stdout: []string{"dat:\n  a: b\n"}},
		{name: "repeated field", edits: []edit{{sub, "  channel: stable", "  channel: stable\n  channel: stable"}}, code: 1,
			first: []string{"input/subscription.yaml: Subscription/operators/widget-operator: spec.channel: repeated key (line 11 and line 12): keep one"}},
		{name: "empty input", edits: []edit{{sub, "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription", "apiVersion: v1\nkind: ConfigMap"}}, code: 1,
			want: []string{"no Subscription in input", "--allow-empty"}},
		{name: "undeclared namespace", edits: []edit{{sub, "namespace: operators", "namespace: operatorz"}}, code: 1,
			want: []string{"input/subscription.yaml", "Subscription/operatorz/widget-operator", "metadata.namespace", "did you mean operators?", "declare an OperatorGroup in namespace operatorz"}},
		{name: "two OperatorGroups", edits: []edit{{og, "", "---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: second, namespace: operators}\n"}}, code: 1,
			want:  []string{"expected 1 OperatorGroup in the namespace, found 2", "keep one of global-operators (input/operatorgroup.yaml) and second (input/operatorgroup.yaml#1)"},
			first: []string{"error: input/operatorgroup.yaml: OperatorGroup/operators/global-operators: metadata.namespace: one of 2 OperatorGroups in namespace operators, with second (input/operatorgroup.yaml#1)"}},
		{name: "package typo", edits: []edit{{sub, "  name: widget-operator\n", "  name: widget-operatr\n"}}, code: 1,
			first: []string{`error: input/subscription.yaml: Subscription/operators/widget-operatr: spec.name: "widget-operatr" does not exist: did you mean "widget-operator"?`}},
		{name: "channel typo", edits: []edit{{sub, "channel: stable", "channel: stabel"}}, code: 1,
			first: []string{`error: input/subscription.yaml: Subscription/operators/widget-operator: spec.channel: "stabel" does not exist: did you mean "stable"?`}},
		{name: "channel typo, with a lock", lock: true, edits: []edit{{sub, "channel: stable", "channel: stabel"}}, code: 1,
			first:  []string{`error: input/subscription.yaml: Subscription/operators/widget-operator: spec.channel: "stabel" does not exist: did you mean "stable"?`},
			absent: []string{"olm-render.lock.yaml", "gadget-operator-stable-examples-olm"}},
		{name: "startingCSV typo", edits: []edit{{sub, "  channel: stable", "  channel: stable\n  startingCSV: widget-operator.v0.2.1"}}, code: 1,
			first: []string{`error: input/subscription.yaml: Subscription/operators/widget-operator: spec.startingCSV: "widget-operator.v0.2.1" does not exist: did you mean "widget-operator.v0.2.0"?`}},
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
			first: []string{`error: CatalogSource/olm/examples: --catalog olm/examples=oci://: "oci://" names no image`, "the flag overrides the catalog of CatalogSource olm/examples (input/catalogsource.yaml)"}},
		{name: "--catalog naming no CatalogSource", args: []string{"--catalog", "olm/exampels=catalog"}, code: 1,
			first: []string{"error: CatalogSource/olm/exampels: --catalog olm/exampels=catalog: no CatalogSource olm/exampels: did you mean olm/examples?", "CatalogSources declared: olm/examples"}},
		{name: "--catalog naming no directory", args: []string{"--catalog", "olm/examples=catalogs"}, code: 1,
			first: []string{"error: CatalogSource/olm/examples: --catalog olm/examples=catalogs: catalogs: cannot read catalog snapshot: no such file or directory: did you mean catalog?", "CatalogSource olm/examples (input/catalogsource.yaml)"}},
		{name: "catalog annotation naming no directory", edits: []edit{{"catalogsource.yaml", "olm-render.dev/catalog: ../catalog\n", "olm-render.dev/catalog: ../catalogs\n"}}, code: 1,
			first: []string{"error: input/catalogsource.yaml: CatalogSource/olm/examples: metadata.annotations[olm-render.dev/catalog]: catalogs: cannot read catalog snapshot: no such file or directory: did you mean catalog?",
				`the annotation's "../catalogs" is relative to the directory of the file declaring the CatalogSource`}},
		{name: "channel with two heads", edits: []edit{{widgetCSVEdit, "  replaces: widget-operator.v0.1.0", "  replaces: widget-operator.v0.1.1"}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first:  []string{"error: " + widgetCSV + `: package "widget-operator" channel "stable": spec.replaces: "widget-operator.v0.1.1" names no bundle of channel "stable": did you mean "widget-operator.v0.1.0"?`},
			absent: []string{": valid"}},
		{name: "channel with two heads, rendered", edits: []edit{{widgetCSVEdit, "  replaces: widget-operator.v0.1.0", "  replaces: widget-operator.v0.1.1"}}, code: 1,
			want: []string{"warning: " + widgetCSV + `: package "widget-operator" channel "stable": spec.replaces: "widget-operator.v0.1.1" names no bundle of channel "stable": did you mean "widget-operator.v0.1.0"?`}},
		{name: "channel head without replaces", edits: []edit{{widgetCSVEdit, "  replaces: widget-operator.v0.1.0\n", ""}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first: []string{"error: " + widgetCSV + `: package "widget-operator" channel "stable": spec.replaces: multiple channel heads found in graph: widget-operator.v0.1.0, widget-operator.v0.2.0: nothing replaces or skips widget-operator.v0.1.0`}},
		{name: "channel cycle", edits: []edit{{"../catalog/widget-operator/0.1.0/manifests/widget-operator.clusterserviceversion.yaml", "  version: 0.1.0\n", "  version: 0.1.0\n  replaces: widget-operator.v0.2.0\n"}},
			cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first: []string{`error: catalog/widget-operator/0.1.0/manifests/widget-operator.clusterserviceversion.yaml: package "widget-operator" channel "stable": spec.replaces: no channel head found in graph`}},
		{name: "two deployments of one name", edits: []edit{{widgetCSVEdit, "  relatedImages:", "      - name: widget-operator\n        spec:\n          selector: {matchLabels: {app: b}}\n          template: {metadata: {labels: {app: b}}, spec: {containers: [{name: c, image: i}]}}\n  relatedImages:"}}, code: 1,
			first: []string{"error: input/subscription.yaml: Subscription/operators/widget-operator: spec.name: bundle widget-operator.v0.2.0",
				widgetCSV + `: ClusterServiceVersion/widget-operator.v0.2.0: spec.install.spec.deployments[1].name: deployment "widget-operator" is also spec.install.spec.deployments[0]`}},
		{name: "selector not matching the pod labels", edits: []edit{{widgetCSVEdit, "              app.kubernetes.io/name: widget-operator\n          template:", "              app.kubernetes.io/name: widget\n          template:"}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first: []string{"error: " + widgetCSV + ": ClusterServiceVersion/widget-operator.v0.2.0: spec.install.spec.deployments[0].spec.template.metadata.labels: `selector` does not match template `labels`"}},
		{name: "owned CRD missing", edits: []edit{{"../catalog/widget-operator/0.2.0/manifests/widgets.example.com.crd.yaml", "kind: CustomResourceDefinition", "kind: ConfigMap"}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first: []string{"error: " + widgetCSV + `: ClusterServiceVersion/widget-operator.v0.2.0: spec.customresourcedefinitions.owned[0].name: the bundle holds no CustomResourceDefinition "widgets.example.com"`,
				`(catalog/widget-operator/0.2.0/manifests/widgets.example.com.crd.yaml holds a ConfigMap "widgets.example.com", not the CRD)`}},
		{name: "olm.gvk of the wrong type", edits: []edit{{"../catalog/widget-operator/0.2.0/metadata/properties.yaml", "", "properties:\n- type: olm.gvk\n  value: example.com/v1/Widget\n"}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			first: []string{`error: catalog/widget-operator/0.2.0/metadata/properties.yaml: bundle "widget-operator.v0.2.0": properties[0].value: olm.gvk value: want an object {group, version, kind} of strings, got a string`}},
		{name: "olm.csv.metadata of the wrong type", edits: []edit{{"../fbc.json", "", `{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}
{"schema":"olm.bundle","package":"a","name":"a.v1","image":"registry.example.com/a:v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.csv.metadata","value":"the CSV"}]}
`}}, cmd: []string{"catalog", "validate", "fbc.json"}, code: 1,
			first: []string{`error: fbc.json#2: olm.bundle a/a.v1: properties[1].value: olm.csv.metadata value: want an object holding the CSV's metadata (annotations, displayName, installModes, ...), got a string`}},
		{name: "unreadable bundle directory", unreadable: "catalog/widget-operator/0.2.0", code: 1,
			first: []string{`error: input/subscription.yaml: Subscription/operators/widget-operator: spec.name: package "widget-operator" of CatalogSource olm/examples has a bundle that cannot be loaded (catalog/widget-operator/0.2.0: cannot read bundle directory: permission denied`}},
		{name: "repeated key in a published manifest", edits: []edit{{"../catalog/widget-operator/0.2.0/manifests/widgets.example.com.crd.yaml", "                type: integer\n", "                type: integer\n                description: the first\n                minimum: 1\n                description: how many widgets\n"}}, code: 0,
			want:   []string{"warning: catalog/widget-operator/0.2.0/manifests/widgets.example.com.crd.yaml: CustomResourceDefinition/widgets.example.com: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.description: repeated key: the last value (line 28) is used"},
			stdout: []string{"description: how many widgets"}},
		{name: "unsupported OperatorGroup", edits: []edit{{og, "  namespace: operators\n", "  namespace: operators\nspec:\n  targetNamespaces: [operators, team-a]\n"}}, code: 1,
			want:  []string{"UnsupportedOperatorGroup", "supports OwnNamespace, SingleNamespace, AllNamespaces", "operators/global-operators (input/operatorgroup.yaml)", "MultiNamespace"},
			first: []string{"error: input/operatorgroup.yaml: OperatorGroup/operators/global-operators: spec.targetNamespaces: asks for MultiNamespace (operators, team-a), an install mode gadget-operator.v1.0.0 does not support (it supports OwnNamespace, SingleNamespace, AllNamespaces)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mistakeInputs(t, tt.lock, tt.unreadable, tt.edits)
			lockBefore, _ := os.ReadFile(filepath.Join(dir, "olm-render.lock.yaml"))
			code, out, errOut := runCLI(t, mistakeArgs(tt.cmd, tt.args, tt.lock, dir)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tt.code, out, errOut)
			}
			if code != 0 && out != "" && tt.cmd == nil {
				t.Errorf("a failed render wrote %d bytes to stdout", len(out))
			}
			checkMistake(t, out, errOut, tt.want, tt.first, tt.absent, tt.stdout)
			if lockAfter, _ := os.ReadFile(filepath.Join(dir, "olm-render.lock.yaml")); code != 0 && string(lockAfter) != string(lockBefore) {
				t.Errorf("a failed render changed the lock:\n%s", lockAfter)
			}
		})
	}
}

// widgetCSVEdit is the quickstart's widget-operator v0.2.0 CSV as edits name it (widgetCSV is
// how messages show it).
const widgetCSVEdit = "../" + widgetCSV

// mistakeInputs prepares a mistake's inputs: the quickstart with the edits applied (its lock
// first restored when lock is set), and unreadable, a path of the copy, made unreadable (the test
// is skipped when that cannot deny this process).
func mistakeInputs(t *testing.T, lock bool, unreadable string, edits []edit) string {
	t.Helper()
	if unreadable != "" && os.Geteuid() == 0 {
		t.Skip("running as root: no directory is unreadable")
	}
	var restore []edit
	if lock {
		data, err := os.ReadFile(filepath.Join(quickstart, "olm-render.lock.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		restore = []edit{{"olm-render.lock.yaml", "", string(data)}}
	}
	dir := quickstartWith(t, append(restore, edits...)...)
	if unreadable != "" {
		if err := os.Chmod(unreadable, 0); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(unreadable)
		t.Cleanup(func() { os.Chmod(abs, 0o755) })
	}
	return dir
}

// mistakeArgs is the command line of a mistake: render --no-lock (render with lock), or cmd,
// each with args and the inputs' directory; catalog validate as cmd gives it.
func mistakeArgs(cmd, args []string, lock bool, dir string) []string {
	switch {
	case len(cmd) > 0 && cmd[0] == "catalog":
		return cmd
	case len(cmd) == 0 && lock:
		cmd = []string{"render"}
	case len(cmd) == 0:
		cmd = []string{"render", "--no-lock"}
	}
	return append(append(slices.Clone(cmd), args...), dir)
}

// checkMistake checks a mistake's output: want in stderr, first in its first problem (the first
// "error:" line that is not a bare context such as "error: loading inputs"), absent nowhere,
// stdout in stdout.
func checkMistake(t *testing.T, out, errOut string, want, first, absent, stdout []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr does not contain %q:\n%s", w, errOut)
		}
	}
	line := firstProblem(errOut)
	for _, w := range first {
		if !strings.Contains(line, w) {
			t.Errorf("the first problem does not contain %q:\n%s\nstderr:\n%s", w, line, errOut)
		}
	}
	for _, a := range absent {
		if strings.Contains(out+errOut, a) {
			t.Errorf("output contains %q:\n%s%s", a, out, errOut)
		}
	}
	for _, w := range stdout {
		if !strings.Contains(out, w) {
			t.Errorf("stdout does not contain %q", w)
		}
	}
}

// firstProblem returns the first line of stderr reporting a problem: an "error:" line naming
// more than a context.
func firstProblem(errOut string) string {
	for _, line := range strings.Split(errOut, "\n") {
		if rest, ok := strings.CutPrefix(line, "error: "); ok && strings.Contains(rest, ": ") {
			return line
		}
	}
	return ""
}

// TestBadLimits: sizes that are none are refused, not taken as the default.
func TestBadLimits(t *testing.T) {
	dir := quickstartWith(t)
	code, _, errOut := runCLI(t, "render", "--no-lock", "--max-file-size", "-1", dir)
	if code != 1 || !strings.Contains(errOut, "--max-file-size and --max-total-size are sizes in bytes") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

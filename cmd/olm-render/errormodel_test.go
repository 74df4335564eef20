package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
)

// place is where a problem is: its file (and document), object and field, as a problem prints
// them ("file#doc: object: field: message"); field "" for a problem of a whole directory.
type place struct {
	severity, file, object, field string
}

// prefix is the start of the problem's line.
func (p place) prefix() string {
	s := p.severity + ": " + p.file + ": " + p.object + ": "
	if p.field != "" {
		s += p.field + ": "
	}
	return s
}

// widgetFBC is a file-based catalog of package demo, with PROPERTY and ENTRIES to fill in.
const widgetFBC = `{"schema":"olm.package","name":"demo","defaultChannel":"stable"}
{"schema":"olm.channel","package":"demo","name":"stable","entries":ENTRIES}
{"schema":"olm.bundle","package":"demo","name":"demo.v1","image":"registry.example.com/demo:v1","properties":[{"type":"olm.package","value":{"packageName":"demo","version":"1.0.0"}}PROPERTY]}
`

// fbcWith is widgetFBC with its channel's entries and a second property.
func fbcWith(entries, property string) string {
	return strings.NewReplacer("ENTRIES", entries, "PROPERTY", property).Replace(widgetFBC)
}

// TestEveryErrorNamesItsPlace: one case for each class of problem the error model covers. Each
// is reported with the file (and document) holding it, the object (kind/namespace/name, or a
// catalog blob as schema package/name) and the field in the user's own terms, the user's own
// object first where one mistake causes several problems; and each says what was expected.
func TestEveryErrorNamesItsPlace(t *testing.T) {
	const (
		sub = "subscription.yaml"
		og  = "operatorgroup.yaml"
		csv = "catalog/widget-operator/0.2.0/manifests/widget-operator.clusterserviceversion.yaml"
	)
	widget := place{"error", widgetCSV, "ClusterServiceVersion/widget-operator.v0.2.0", ""}
	tests := []struct {
		name  string
		edits []edit
		// files are written (relative to the repository top) after the edits.
		files map[string]string
		cmd   []string
		code  int
		// at is where the problem is; first says it must be the first problem reported.
		at    place
		first bool
		// says must follow the place in the problem's line: what was expected, the fix.
		says string
	}{
		{name: "render-time bundle error: install strategy OLM does not know",
			edits: []edit{{"../" + csv, "strategy: deployment", "strategy: helm"}}, cmd: []string{"catalog", "validate", "catalog"}, code: 1,
			at: place{widget.severity, widget.file, widget.object, "spec.install.strategy"}, first: true,
			says: `unrecognized install strategy "helm": OLM installs only "deployment"`},
		{name: "render-time bundle error: webhook naming a deployment the strategy lacks",
			edits: []edit{{"../" + csv, "  relatedImages:", "  webhookdefinitions:\n  - {type: ValidatingAdmissionWebhook, generateName: vwidget.example.com, deploymentName: widget-operatr, containerPort: 443, admissionReviewVersions: [v1], sideEffects: None}\n  relatedImages:"}},
			cmd:   []string{"catalog", "validate", "catalog"}, code: 1,
			at: place{widget.severity, widget.file, widget.object, "spec.webhookdefinitions[0].deploymentName"}, first: true,
			says: `deployment "widget-operatr" is not one of the install strategy's deployments`},
		{name: "file-based catalog decoding: a value of the wrong type",
			files: map[string]string{"fbc.json": fbcWith(`{"name":"demo.v1"}`, "")}, cmd: []string{"catalog", "validate", "fbc.json"}, code: 1,
			at: place{"error", "fbc.json#1", "olm.channel demo/stable", "entries"}, first: true, says: "want a list of objects, got an object"},
		{name: "file-based catalog decoding: a manifest that is not base64",
			files: map[string]string{"fbc.json": fbcWith(`[{"name":"demo.v1"}]`, `,{"type":"olm.bundle.object","value":{"data":"!!"}}`)}, cmd: []string{"catalog", "validate", "fbc.json"}, code: 1,
			at: place{"error", "fbc.json#2", "olm.bundle demo/demo.v1", "properties[1].value.data"}, first: true, says: "not base64"},
		{name: "channel entry whose bundle is missing",
			files: map[string]string{"fbc.json": fbcWith(`[{"name":"demo.v1"},{"name":"demo.v2","replaces":"demo.v1"}]`, "")}, cmd: []string{"catalog", "validate", "fbc.json"}, code: 1,
			at: place{"error", "fbc.json#1", "olm.channel demo/stable", "entries[1].name"}, first: true, says: `no olm.bundle blob "demo.v2" in package "demo"`},
		{name: "repeated key in an input",
			edits: []edit{{sub, "  channel: stable", "  channel: stable\n  channel: fast"}}, code: 1,
			at: place{"error", "input/subscription.yaml", "Subscription/operators/widget-operator", "spec.channel"}, first: true,
			says: "repeated key (line 11 and line 12): keep one"},
		{name: "merge key in an input: a key before the merge that sets it otherwise",
			edits: []edit{{sub, "spec:\n  name: widget-operator\n  channel: stable\n", "spec:\n  name: widget-operator\n  channel: stable\n  <<: {channel: fast}\n"}}, code: 1,
			at: place{"error", "input/subscription.yaml", "Subscription/operators/widget-operator", "spec.channel"}, first: true,
			says: "set at line 11, before the merge key << at line 12 that sets it too"},
		{name: "a quantity the API server refuses",
			edits: []edit{{sub, "  channel: stable", "  channel: stable\n  config: {resources: {limits: {cpu: lots}}}"}}, code: 1,
			at: place{"error", "input/subscription.yaml", "Subscription/operators/widget-operator", "spec.config.resources.limits.cpu"}, first: true,
			says: `"lots" is not a quantity: want a number with an optional suffix`},
		{name: "a time the API server refuses",
			edits: []edit{{"condition.yaml", "", "apiVersion: operators.coreos.com/v2\nkind: OperatorCondition\nmetadata: {name: widget-operator.v0.2.0, namespace: operators}\nspec: {overrides: [{type: Upgradeable, status: 'False', reason: r, message: m, lastTransitionTime: yesterday}]}\n"}}, code: 1,
			at: place{"error", "input/condition.yaml", "OperatorCondition/operators/widget-operator.v0.2.0", "spec.overrides[0].lastTransitionTime"}, first: true,
			says: `"yesterday" is not a time: want RFC 3339`},
		{name: "a CEL constraint over a constant that is no version",
			edits: []edit{{"../catalog/widget-operator/0.2.0/metadata/dependencies.yaml", "", "dependencies:\n- type: olm.constraint\n  value:\n    cel: {rule: 'properties.exists(p, semver_compare(p.value.version, \"v1.x.garbage\") >= 0)'}\n"}},
			cmd:   []string{"catalog", "validate", "catalog"}, code: 1,
			at: place{"error", "catalog/widget-operator/0.2.0/metadata/dependencies.yaml", `bundle "widget-operator.v0.2.0"`, "dependencies[0].value.cel.rule"}, first: true,
			says: `semver_compare's argument "v1.x.garbage" is not a version`},
		{name: "an install mode the CSV does not support",
			edits: []edit{{og, "", "spec:\n  targetNamespaces: [operators, team-a]\n"}}, code: 1,
			at: place{"error", "input/operatorgroup.yaml", "OperatorGroup/operators/global-operators", "spec.targetNamespaces"}, first: true,
			says: "asks for MultiNamespace (operators, team-a), an install mode gadget-operator.v1.0.0 does not support (it supports OwnNamespace, SingleNamespace, AllNamespaces)"},
		{name: "two OperatorGroups in a namespace",
			edits: []edit{{og, "", "---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: second, namespace: operators}\n"}}, code: 1,
			at: place{"error", "input/operatorgroup.yaml", "OperatorGroup/operators/global-operators", "metadata.namespace"}, first: true,
			says: "one of 2 OperatorGroups in namespace operators, with second (input/operatorgroup.yaml#1)"},
		{name: "an invalid skipRange names the CSV declaring it",
			edits: []edit{{"../" + csv, "    capabilities: Basic Install", "    capabilities: Basic Install\n    olm.skipRange: '>=0.1.0 <<0.2.0'"}}, code: 0,
			at:   place{"warning", widgetCSV, widget.object, "metadata.annotations[olm.skipRange]"},
			says: `invalid skipRange ">=0.1.0 <<0.2.0"`},
		{name: "a bundle below its version directory",
			files: map[string]string{
				"catalog/widget-operator/0.3.0/bundle/manifests/widget-operator.clusterserviceversion.yaml": "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: widget-operator.v0.3.0}\nspec: {version: 0.3.0}\n",
				"catalog/widget-operator/0.3.0/bundle/metadata/annotations.yaml":                            "annotations: {operators.operatorframework.io.bundle.package.v1: widget-operator, operators.operatorframework.io.bundle.channels.v1: stable}\n",
			},
			cmd: []string{"catalog", "validate", "catalog"}, code: 0,
			at:   place{"warning", "catalog/widget-operator/0.3.0/bundle", `package "widget-operator"`, ""},
			says: "a bundle in 0.3.0/bundle/ is never built: the community pipeline reads a bundle only from <package>/<version>/"},
		{name: "a directory layout the loader does not understand",
			files: map[string]string{"catalog/widget-operator/0.3.0/deploy/widget-operator.clusterserviceversion.yaml": "kind: ClusterServiceVersion\n"},
			cmd:   []string{"catalog", "validate", "catalog"}, code: 1,
			at: place{"error", "catalog/widget-operator/0.3.0", `package "widget-operator"`, ""}, first: true,
			says: "is not a bundle directory, and holds none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := quickstartWith(t, tt.edits...)
			for name, content := range tt.files {
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				fixtureWrite(t, name, content)
			}
			code, out, errOut := runCLI(t, mistakeArgs(tt.cmd, nil, false, dir)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tt.code, out, errOut)
			}
			line := problemAt(errOut, tt.at)
			if line == "" {
				t.Fatalf("no problem at %q:\n%s", tt.at.prefix(), errOut)
			}
			if rest := strings.TrimPrefix(line, tt.at.prefix()); !strings.HasPrefix(rest, tt.says) {
				t.Errorf("the problem says %q, want %q first", rest, tt.says)
			}
			if tt.first && firstProblem(errOut) != line {
				t.Errorf("the first problem is\n%s\nwant\n%s", firstProblem(errOut), line)
			}
		})
	}
}

// problemAt returns the line of stderr reporting a problem at p, or "".
func problemAt(errOut string, p place) string {
	for _, line := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(line, p.prefix()) {
			return line
		}
	}
	return ""
}

// TestMergeKeysInInputs: an input using YAML merge keys reads as YAML 1.1 defines them, the
// explicit key overriding the merged one, and renders without a word.
func TestMergeKeysInInputs(t *testing.T) {
	dir := quickstartWith(t, edit{"subscription.yaml", "  namespace: operators\n",
		"  namespace: operators\n  labels: &l {team: a, tier: gold}\n  annotations:\n    <<: *l\n    tier: silver\n"})
	code, out, errOut := runCLI(t, "render", "--no-lock", "--keep-intent", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	objs, problems := catalog.DecodeDocuments("stdout", []byte(out))
	if err := problems.Err(); err != nil {
		t.Fatal(err)
	}
	sub := findObject(objs, "Subscription", "widget-operator")
	if sub == nil {
		t.Fatal("no Subscription rendered")
	}
	if got := sub.GetAnnotations(); got["team"] != "a" || got["tier"] != "silver" {
		t.Errorf("annotations %v, want team: a (merged) and tier: silver (its own)", got)
	}
	if got := sub.GetLabels(); got["tier"] != "gold" {
		t.Errorf("labels %v, want the anchor's tier: gold", got)
	}
}

package diff

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// loadCase reads testdata/<name>/before.yaml and after.yaml.
func loadCase(t *testing.T, name string) (before, after []*unstructured.Unstructured) {
	t.Helper()
	before, err := ReadDir(filepath.Join("testdata", name, "before.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	after, err = ReadDir(filepath.Join("testdata", name, "after.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return before, after
}

// compareCase compares testdata/<name>.
func compareCase(t *testing.T, name string) *Report {
	t.Helper()
	before, after := loadCase(t, name)
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatalf("Compare() error = %v", err)
	}
	return r
}

// TestDiffQuickstartFirstScreen checks that a reviewer sees the image change of a one-hop
// upgrade on the first screen of the pull-request comment.
func TestDiffQuickstartFirstScreen(t *testing.T) {
	r := compareCase(t, "quickstart-upgrade")
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md, "", 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(md.String(), "\n")
	screen := strings.Join(lines[:min(40, len(lines))], "\n")
	want := "Deployment/operators/widget-operator container manager: registry.example.com/widget-operator:v0.1.0 → registry.example.com/widget-operator:v0.2.0"
	if !strings.Contains(screen, want) {
		t.Errorf("the first 40 lines do not show the image change %q:\n%s", want, screen)
	}
	if strings.Index(screen, "**Images**") > strings.Index(screen, "**Permissions**") {
		t.Error("images do not come first within the upgrade")
	}
}

// TestDiffRenamedObjectsPaired checks that no object OLM names after a CSV shows as a deletion
// and an addition across a one-hop upgrade, and that each pair carries both keys.
func TestDiffRenamedObjectsPaired(t *testing.T) {
	for _, name := range []string{"quickstart-upgrade", "etcd-0.9.2-to-0.9.4", "crd-breaking", "permission-growth"} {
		t.Run(name, func(t *testing.T) {
			r := compareCase(t, name)
			if r.Count(Added) != 0 || r.Count(Deleted) != 0 {
				t.Errorf("summary = %s, want modifications only", r.Summary())
			}
			for _, c := range r.Changes {
				renamed := strings.HasPrefix(c.Key.Kind, "Role") || strings.HasPrefix(c.Key.Kind, "ClusterRole") ||
					c.Key.Kind == csvKind || c.Key.Kind == "OperatorCondition"
				if renamed && (c.From == nil || c.From.Name == c.Key.Name) {
					t.Errorf("%s: not paired with its old name", c.Key)
				}
				if c.From != nil && !strings.Contains(c.Diff, "--- a/"+c.From.String()+"\n+++ b/"+c.Key.String()) {
					t.Errorf("%s: diff does not name both keys:\n%s", c.Key, c.Diff)
				}
			}
			if len(r.Upgrades) != 1 || r.Upgrades[0].Edge != "replaces" {
				t.Errorf("upgrades = %+v, want one by replaces", r.Upgrades)
			}
		})
	}
}

// TestDiffPairingByContent checks that, among several roles of one CSV with the same shape of
// name and the same subjects, each old role pairs with the new role closest in content.
func TestDiffPairingByContent(t *testing.T) {
	csv := func(name, replaces string) *unstructured.Unstructured {
		return object(t, `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
			"metadata":{"name":"`+name+`","namespace":"ops","labels":{"operators.coreos.com/x.ops":""}},
			"spec":{"replaces":"`+replaces+`"}}`)
	}
	role := func(name, owner, resource string) *unstructured.Unstructured {
		return object(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
			"metadata":{"name":"`+name+`","labels":{"olm.owner":"`+owner+`","olm.owner.kind":"ClusterServiceVersion","olm.owner.namespace":"ops"}},
			"rules":[{"apiGroups":[""],"resources":["`+resource+`"],"verbs":["get","list","watch","create","update","patch","delete"]}]}`)
	}
	before := []*unstructured.Unstructured{csv("x.v1", ""), role("x.v1-aaaa", "x.v1", "pods"), role("x.v1-bbbb", "x.v1", "secrets")}
	after := []*unstructured.Unstructured{csv("x.v2", "x.v1"), role("x.v2-cccc", "x.v2", "secrets"), role("x.v2-dddd", "x.v2", "pods")}
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.Changes {
		got = append(got, c.label())
	}
	want := []string{"ClusterRole/x.v1-bbbb → x.v2-cccc", "ClusterRole/x.v1-aaaa → x.v2-dddd", "ClusterServiceVersion/ops/x.v1 → x.v2"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
}

// object decodes one JSON object.
func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	return u
}

func TestDiffParseGates(t *testing.T) {
	got, err := ParseGates([]string{"permission-growth,crd-breaking", " crd-breaking ", "any-change"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Gate{GateAnyChange, GateCRDBreaking, GatePermissionGrowth}; !slices.Equal(got, want) {
		t.Errorf("ParseGates = %v, want %v", got, want)
	}
	_, err = ParseGates([]string{"crd-breaking,perms"})
	if err == nil || !strings.Contains(err.Error(), `unknown gate "perms"`) || !strings.Contains(err.Error(), "install-mode-change") {
		t.Errorf("ParseGates(perms) error = %v, want one listing the valid gates", err)
	}
}

// TestDiffGateReasons checks the reasons of the crd-breaking and permission-growth gates on
// real upgrades, and that an image-only upgrade fires neither.
func TestDiffGateReasons(t *testing.T) {
	tests := []struct {
		name string
		gate Gate
		want []string
	}{
		{"crd-breaking", GateCRDBreaking, []string{
			"crd-breaking: operator ops/hawtio-operator: CustomResourceDefinition/hawtios.hawt.io: v1alpha1: field spec.rbac.enabled: removed"}},
		{"permission-growth", GatePermissionGrowth, []string{
			"permission-growth: operator ops/debezium-operator: ServiceAccount/ops/debezium-operator: ops/debezium-operator gains create,delete,get,list,patch,update,watch on services in namespace ops",
			"permission-growth: operator ops/debezium-operator: ServiceAccount/ops/debezium-operator: ops/debezium-operator gains create,delete,get,list,patch,update,watch on services in namespace team-a"}},
		{"quickstart-upgrade", GateCRDBreaking, nil},
		{"quickstart-upgrade", GatePermissionGrowth, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+string(tt.gate), func(t *testing.T) {
			var got []string
			for _, f := range compareCase(t, tt.name).Check([]Gate{tt.gate}) {
				got = append(got, f.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDiffAnyChangeGate(t *testing.T) {
	r := compareCase(t, "quickstart-upgrade")
	got := r.Check([]Gate{GateAnyChange})
	if len(got) != len(r.Changes) {
		t.Fatalf("any-change gave %d reasons for %d changes", len(got), len(r.Changes))
	}
	want := "any-change: operator operators/widget-operator: Deployment/operators/widget-operator: modified"
	if !slices.ContainsFunc(got, func(f Finding) bool { return f.String() == want }) {
		t.Errorf("no reason %q among %v", want, got)
	}
	if none := compareCase(t, "nochange").Check(AllGates()); len(none) != 0 {
		t.Errorf("no change fired %v", none)
	}
}

// TestDiffCSVChanges edits the new CSV of the quickstart upgrade: a required package, a dropped
// required GVK, an install mode, a webhook definition and a related image.
func TestDiffCSVChanges(t *testing.T) {
	before, after := loadCase(t, "quickstart-upgrade")
	csv := findObject(t, after, csvKind, "operators", "widget-operator.v0.2.0")
	csv.SetAnnotations(map[string]string{propertiesKey: `{"properties":[{"type":"olm.package","value":{"packageName":"widget-operator","version":"0.2.0"}},` +
		`{"type":"olm.package.required","value":{"packageName":"gadget-operator","versionRange":">=1.0.0"}}]}`})
	unstructured.RemoveNestedField(csv.Object, "spec", "customresourcedefinitions", "required")
	setField(t, csv, `[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}]`, "spec", "installModes")
	setField(t, csv, `[{"generateName":"vwidget.example.com","type":"ValidatingAdmissionWebhook","deploymentName":"widget-operator"}]`, "spec", "webhookdefinitions")
	setField(t, csv, `[{"name":"manager","image":"registry.example.com/widget-operator:v0.2.0"},{"name":"helper","image":"registry.example.com/helper:v1"}]`, "spec", "relatedImages")
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Gates(), []Gate{GateDependencyChange, GateInstallModeChange, GateWebhookChange}; !slices.Equal(got, want) {
		t.Errorf("gates = %v, want %v", got, want)
	}
	u := r.Upgrades[0]
	wantLines := []string{
		"requires olm.package.required gadget-operator >=1.0.0",
		"no longer requires olm.gvk.required example.com/v1alpha1 Gadget",
		"SingleNamespace: supported → not supported",
		"added webhook definition vwidget.example.com (ValidatingAdmissionWebhook) of ClusterServiceVersion/operators/widget-operator.v0.2.0",
		"relatedImages helper: added registry.example.com/helper:v1",
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range wantLines {
		if !strings.Contains(text.String(), "    "+line+"\n") {
			t.Errorf("text report lacks %q:\n%s", line, text.String()[:min(text.Len(), 3000)])
		}
	}
	if len(u.InstallModes) != 2 {
		t.Errorf("install modes = %v, want SingleNamespace and MultiNamespace unchanged, two changed", u.InstallModes)
	}
}

// findObject returns the object of a kind, namespace and name.
func findObject(t *testing.T, objs []*unstructured.Unstructured, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == namespace && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s/%s", kind, namespace, name)
	return nil
}

// setField sets a field to a JSON value.
func setField(t *testing.T, u *unstructured.Unstructured, value string, fields ...string) {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, v, fields...); err != nil {
		t.Fatal(err)
	}
}

// TestDiffWebhookConfigurations checks that a webhook configuration whose webhooks are equal is
// no webhook change even when its owner labels move with the upgrade, and that one whose rules
// change is.
func TestDiffWebhookConfigurations(t *testing.T) {
	config := func(owner, operation string) *unstructured.Unstructured {
		return object(t, `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
			"metadata":{"name":"vwidget.example.com","labels":{"olm.owner":"`+owner+`","olm.owner.kind":"ClusterServiceVersion","olm.owner.namespace":"operators"}},
			"webhooks":[{"name":"vwidget.example.com","rules":[{"operations":["`+operation+`"]}]}]}`)
	}
	before, after := loadCase(t, "quickstart-upgrade")
	r, err := Compare(append(before, config("widget-operator.v0.1.0", "CREATE")), append(after, config("widget-operator.v0.2.0", "CREATE")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Check([]Gate{GateWebhookChange}); len(got) != 0 {
		t.Errorf("a label change fired %v", got)
	}
	r, err = Compare(append(before, config("widget-operator.v0.1.0", "CREATE")), append(after, config("widget-operator.v0.2.0", "UPDATE")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Check([]Gate{GateWebhookChange})
	want := "webhook-change: operator operators/widget-operator: ValidatingWebhookConfiguration/vwidget.example.com: modified"
	if len(got) != 1 || got[0].String() != want {
		t.Errorf("Check = %v, want %q", got, want)
	}
}

// TestDiffOperatorsInstalled checks what no upgrade accounts for: rendering from nothing installs
// both quickstart operators, grants their permissions and adds their CRDs.
func TestDiffOperatorsInstalled(t *testing.T) {
	_, after := loadCase(t, "quickstart-upgrade")
	r, err := Compare(nil, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Upgrades) != 0 || r.Other == nil {
		t.Fatalf("upgrades = %v, other = %v; want none and some", r.Upgrades, r.Other)
	}
	if got, want := r.Gates(), []Gate{GateDependencyChange, GatePermissionGrowth}; !slices.Equal(got, want) {
		t.Errorf("gates = %v, want %v", got, want)
	}
	var deps []string
	for _, d := range r.Other.Dependencies {
		deps = append(deps, d.String())
	}
	want := []string{
		"installs ClusterServiceVersion/operators/gadget-operator.v1.0.0 (package gadget-operator)",
		"installs ClusterServiceVersion/operators/widget-operator.v0.2.0 (package widget-operator)",
	}
	if !slices.Equal(deps, want) {
		t.Errorf("dependencies = %q, want %q", deps, want)
	}
	if len(r.Other.CRDs) != 2 || r.Other.CRDs[0].Action != Added {
		t.Errorf("CRDs = %v, want two added", r.Other.CRDs)
	}
}

// TestDiffMarkdownBudgetsWithSummary checks that the upgrade summary keeps the comment within
// its budget, and that the image change survives every budget the summary line fits in.
func TestDiffMarkdownBudgetsWithSummary(t *testing.T) {
	r := compareCase(t, "permission-growth")
	for _, budget := range []int{200, 600, 1000, 1500, 2000, 3000, 5000, 10000, 65536} {
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md, "", budget); err != nil {
			t.Fatal(err)
		}
		out := md.String()
		if len(out) > budget {
			t.Errorf("budget %d: wrote %d bytes", budget, len(out))
		}
		if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
			t.Errorf("budget %d: unbalanced <details>", budget)
		}
		if budget >= 1000 && !strings.Contains(out, "quay.io/debezium/operator:2.4.2.Final") {
			t.Errorf("budget %d: the image change is missing:\n%s", budget, out)
		}
	}
}

// TestDiffInPlacePairing checks that a CSV changed in place (same name) is summarised, and that
// its roles, renamed because their rules' hash changed, pair as one modification.
func TestDiffInPlacePairing(t *testing.T) {
	csv := func(desc string) *unstructured.Unstructured {
		return object(t, `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion",
			"metadata":{"name":"x.v1","namespace":"ops","labels":{"operators.coreos.com/x.ops":""}},"spec":{"description":"`+desc+`"}}`)
	}
	role := func(name string, resources string) *unstructured.Unstructured {
		return object(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
			"metadata":{"name":"`+name+`","labels":{"olm.owner":"x.v1","olm.owner.kind":"ClusterServiceVersion","olm.owner.namespace":"ops"}},
			"rules":[{"apiGroups":[""],"resources":`+resources+`,"verbs":["get"]}]}`)
	}
	r, err := Compare([]*unstructured.Unstructured{csv("a"), role("x.v1-aaaa", `["pods"]`)},
		[]*unstructured.Unstructured{csv("b"), role("x.v1-bbbb", `["pods","configmaps"]`)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Summary(), "Added (0) / Deleted (0) / Modified (2)"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	if len(r.Upgrades) != 1 || r.Upgrades[0].String() != "x.v1 (changed in place), 2 objects changed" {
		t.Errorf("upgrades = %v", r.Upgrades)
	}
}

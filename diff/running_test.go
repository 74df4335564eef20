package diff

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver/contract"
)

// obj builds an object of the given apiVersion, kind, namespace and name.
func obj(apiVersion, kind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// mark marks objects as the prediction of an --olm=running render.
func mark(objs ...*unstructured.Unstructured) []*unstructured.Unstructured {
	for _, u := range objs {
		a := u.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[render.PredictionAnnotation] = "true"
		a[render.LocalConfigAnnotation] = "true"
		u.SetAnnotations(a)
	}
	return objs
}

// sub builds a Subscription to package pkg at startingCSV csv.
func sub(ns, name, pkg, csv string) *unstructured.Unstructured {
	u := obj("operators.coreos.com/v1alpha1", "Subscription", ns, name)
	u.Object["spec"] = map[string]any{"name": pkg, "channel": "stable", "installPlanApproval": "Manual", "startingCSV": csv}
	return u
}

// csv builds an operator CSV of package pkg at version, replacing replaces when given.
func csv(ns, name, pkg, version, replaces string) *unstructured.Unstructured {
	u := obj("operators.coreos.com/v1alpha1", "ClusterServiceVersion", ns, name)
	u.SetLabels(map[string]string{"operators.coreos.com/" + pkg + "." + ns: ""})
	spec := map[string]any{"version": version}
	if replaces != "" {
		spec["replaces"] = replaces
	}
	u.Object["spec"] = spec
	return u
}

// contractOf builds the approval contract ConfigMap of a namespace.
func contractOf(t *testing.T, ns string, subs ...contract.Subscription) *unstructured.Unstructured {
	t.Helper()
	cm, err := contract.ConfigMap(contract.Namespace{Namespace: ns, Subscriptions: subs})
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// opLock is the contract of Subscription "op" locked at op.v<version>, the versions below it as
// steps, holding held.
func opLock(version string, steps []string, held string) contract.Subscription {
	return contract.Subscription{Name: "op", Package: "op", Channel: "stable", Locked: "op.v" + version, Steps: steps, Held: held}
}

// runningRender is an --olm=running render of Subscription ops/op locked at op.v<version>: the
// Subscription and its contract applied, the CSV predicted; extra objects are appended.
func runningRender(t *testing.T, version string, steps []string, held string, extra ...*unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	out := []*unstructured.Unstructured{sub("ops", "op", "op", "op.v"+version), contractOf(t, "ops", opLock(version, steps, held))}
	out = append(out, mark(csv("ops", "op.v"+version, "op", version, ""))...)
	return append(out, extra...)
}

// TestDiffRunningParts: a render holding a prediction splits into what Git applies and what OLM
// will do; a Subscription OLM generates for a dependency is OLM's; a render without one keeps a
// single report.
func TestDiffRunningParts(t *testing.T) {
	passed := obj("v1", "ConfigMap", "ops", "settings")
	before := runningRender(t, "1.0.0", nil, "op.v1.1.0", passed)
	changed := passed.DeepCopy()
	changed.Object["data"] = map[string]any{"a": "b"}
	dep := sub("ops", "dep-stable-community-olm", "dep", "dep.v1.0.0")
	dep.SetAnnotations(map[string]string{generatedByAnnotation: "install-olm-generated"})
	after := append(runningRender(t, "1.1.0", []string{"op.v1.0.0"}, "", changed), dep)
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Applied == nil || r.OLM == nil {
		t.Fatalf("a render holding a prediction gives one part: Applied %v, OLM %v", r.Applied, r.OLM)
	}
	labels := func(changes []*Change) []string {
		var out []string
		for _, c := range changes {
			out = append(out, string(c.Action)+" "+c.label())
		}
		return out
	}
	wantApplied := []string{"modified ConfigMap/ops/olm-render-approval", "modified ConfigMap/ops/settings", "modified Subscription/ops/op"}
	if got := labels(r.Applied.Changes); !slices.Equal(got, wantApplied) {
		t.Errorf("what Git applies = %q, want %q", got, wantApplied)
	}
	wantOLM := []string{"modified ClusterServiceVersion/ops/op.v1.0.0 → op.v1.1.0", "added Subscription/ops/dep-stable-community-olm"}
	if got := labels(r.OLM.Changes); !slices.Equal(got, wantOLM) {
		t.Errorf("what OLM will do = %q, want %q", got, wantOLM)
	}
	if r.Applied.Summary() != "Added (0) / Deleted (0) / Modified (3)" || r.OLM.Summary() != "Added (1) / Deleted (0) / Modified (1)" {
		t.Errorf("counts: applied %s, OLM %s", r.Applied.Summary(), r.OLM.Summary())
	}
	if len(r.Changes) != 5 || r.Summary() != "Added (1) / Deleted (0) / Modified (4)" {
		t.Errorf("the report holds %d changes (%s), want both parts' 5", len(r.Changes), r.Summary())
	}
	if len(r.Upgrades) != 1 || r.Upgrades[0].From != "op.v1.0.0" || r.Upgrades[0].To != "op.v1.1.0" {
		t.Errorf("upgrades = %v, want the predicted op.v1.0.0 → op.v1.1.0", r.Upgrades)
	}

	absent, err := Compare([]*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.0.0")}, []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.1.0")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if absent.Applied != nil || absent.OLM != nil {
		t.Errorf("a render without a prediction is split: %+v", absent)
	}
}

// TestDiffOLMChanges: what OLM will do, in words, for each way a Subscription's lock and
// contract can change.
func TestDiffOLMChanges(t *testing.T) {
	three := []string{"op.v0.1.0", "op.v0.2.0", "op.v0.3.0", "op.v0.4.0"}
	dep := contract.Subscription{Name: "dep-stable-community-olm", Generated: true, Package: "dep", Channel: "stable", Locked: "dep.v2.0.0"}
	for _, tc := range []struct {
		name          string
		before, after []*unstructured.Unstructured
		want          []string
		move          Move
	}{{
		name:   "upgrade: the edge from the prediction, what the contract admits and the step it releases",
		before: runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		after:  runningRender(t, "1.1.0", []string{"op.v1.0.0"}, "op.v1.2.0"),
		want:   []string{"ops: OLM will install op.v1.0.0 → op.v1.1.0; approve admits op.v1.1.0, which it held until now; held: op.v1.2.0"},
		move:   MoveUpgrade,
	}, {
		name:   "upgrade over several steps: every CSV newly admitted",
		before: runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		after:  runningRender(t, "1.2.0", []string{"op.v1.0.0", "op.v1.1.0"}, ""),
		want:   []string{"ops: OLM will install op.v1.0.0 → op.v1.2.0; approve admits op.v1.1.0, op.v1.2.0 (it held op.v1.1.0 until now)"},
		move:   MoveUpgrade,
	}, {
		name:  "install: the lock, and how many CSVs lead up to it",
		after: runningRender(t, "1.0.0", three, "op.v1.1.0"),
		want:  []string{"ops: OLM will install op.v1.0.0; approve admits op.v1.0.0 and 4 CSVs that lead up to it; held: op.v1.1.0"},
		move:  MoveInstall,
	}, {
		name:   "remove: OLM leaves the CSV installed",
		before: runningRender(t, "1.0.0", nil, ""),
		after:  []*unstructured.Unstructured{mark(obj("v1", "Secret", "ops", "x"))[0]},
		want:   []string{"ops: OLM will leave op.v1.0.0 installed: it never deletes a CSV with its Subscription; to uninstall, delete the CSV (docs/upgrades.md, Going back)"},
		move:   MoveRemove,
	}, {
		name:   "downgrade: refused, whatever the contract admits",
		before: runningRender(t, "1.1.0", []string{"op.v1.0.0"}, ""),
		after:  runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		want:   []string{"ops: OLM will not install op.v1.0.0: OLM never downgrades an installed CSV, so op.v1.1.0 stays; see docs/upgrades.md, Going back"},
		move:   MoveDowngrade,
	}, {
		name:   "the lock stays, the catalog offers a step past it: held",
		before: runningRender(t, "1.0.0", nil, ""),
		after:  runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		want:   []string{"ops: OLM keeps op.v1.0.0; held: op.v1.1.0"},
		move:   MoveKeep,
	}, {
		name:   "nothing changes for the Subscription: nothing said",
		before: runningRender(t, "1.0.0", nil, "op.v1.1.0", mark(obj("v1", "Secret", "ops", "x"))...),
		after:  runningRender(t, "1.0.0", nil, "op.v1.1.0"),
	}, {
		name: "a dependency OLM subscribes to",
		before: []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.0.0"), contractOf(t, "ops", opLock("1.0.0", nil, "")),
			mark(csv("ops", "op.v1.0.0", "op", "1.0.0", ""))[0]},
		after: append([]*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.0.0"), contractOf(t, "ops", dep, opLock("1.0.0", nil, ""))},
			mark(csv("ops", "op.v1.0.0", "op", "1.0.0", ""), sub("ops", dep.Name, "dep", dep.Locked))...),
		want: []string{"ops: OLM will install dep.v2.0.0 as a dependency; approve admits dep.v2.0.0"},
		move: MoveInstall,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(tc.before, tc.after, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range r.OLM.Operators {
				got = append(got, c.Namespace+": "+c.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("what OLM will do:\n got %q\nwant %q", got, tc.want)
			}
			if len(tc.want) > 0 && r.OLM.Operators[0].Move != tc.move {
				t.Errorf("move = %s, want %s", r.OLM.Operators[0].Move, tc.move)
			}
		})
	}
}

// TestDiffOLMChangeEdge: the edge comes from the predicted upgrade pairing the two CSVs.
func TestDiffOLMChangeEdge(t *testing.T) {
	before := runningRender(t, "1.0.0", nil, "")
	after := []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.1.0"), contractOf(t, "ops", opLock("1.1.0", []string{"op.v1.0.0"}, "")),
		mark(csv("ops", "op.v1.1.0", "op", "1.1.0", "op.v1.0.0"))[0]}
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.OLM.Operators[0].Text, "OLM will install op.v1.0.0 → op.v1.1.0 (replaces); approve admits op.v1.1.0"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

// TestDiffDowngradeGate: downgrade fires for a CSV upgrade that goes back (both targets) and,
// where OLM runs, for a Subscription whose lock goes back; never for a step forward.
func TestDiffDowngradeGate(t *testing.T) {
	absent := func(version string) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{csv("ops", "op.v"+version, "op", version, "")}
	}
	for _, tc := range []struct {
		name          string
		before, after []*unstructured.Unstructured
		want          []string
	}{{
		name:   "absent: a paired CSV whose version decreases",
		before: absent("1.1.0"),
		after:  absent("1.0.0"),
		want:   []string{"downgrade: operator ops/op: ClusterServiceVersion/ops/op.v1.0.0: goes back from op.v1.1.0 (1.1.0) to op.v1.0.0 (1.0.0)"},
	}, {
		name:   "absent: an upgrade",
		before: absent("1.0.0"),
		after:  absent("1.1.0"),
	}, {
		name:   "running: the lock goes back, and the predicted CSV with it",
		before: runningRender(t, "1.1.0", []string{"op.v1.0.0"}, ""),
		after:  runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		want: []string{
			"downgrade: operator ops/op: ClusterServiceVersion/ops/op.v1.0.0: goes back from op.v1.1.0 (1.1.0) to op.v1.0.0 (1.0.0)",
			"downgrade: operator ops/op: Subscription/ops/op: the lock (spec.startingCSV) goes back from op.v1.1.0 (1.1.0) to op.v1.0.0 (1.0.0): OLM never downgrades an installed CSV, so it will not install it",
		},
	}, {
		name:   "running: the lock goes back, the version read from the CSV's name when the render has no CSV",
		before: []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.1.0"), mark(obj("v1", "Secret", "ops", "x"))[0]},
		after:  []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.0.0")},
		want:   []string{"downgrade: operator ops/op: Subscription/ops/op: the lock (spec.startingCSV) goes back from op.v1.1.0 (1.1.0) to op.v1.0.0 (1.0.0): OLM never downgrades an installed CSV, so it will not install it"},
	}, {
		name:   "running: an upgrade",
		before: runningRender(t, "1.0.0", nil, "op.v1.1.0"),
		after:  runningRender(t, "1.1.0", []string{"op.v1.0.0"}, ""),
	}, {
		name:   "running: another package is no downgrade",
		before: []*unstructured.Unstructured{sub("ops", "op", "op", "op.v1.1.0"), mark(obj("v1", "Secret", "ops", "x"))[0]},
		after:  []*unstructured.Unstructured{sub("ops", "op", "other", "other.v1.0.0")},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(tc.before, tc.after, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range r.Check([]Gate{GateDowngrade}) {
				got = append(got, f.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("downgrade findings:\n got %q\nwant %q", got, tc.want)
			}
			if fires := slices.Contains(r.Gates(), GateDowngrade); fires != (len(tc.want) > 0) {
				t.Errorf("Gates() = %v", r.Gates())
			}
		})
	}
}

// TestDiffDowngradeSaidWithoutGate: where OLM runs, the report says OLM will not downgrade in
// every format, even when no gate is asked for.
func TestDiffDowngradeSaidWithoutGate(t *testing.T) {
	r, err := Compare(runningRender(t, "1.1.0", []string{"op.v1.0.0"}, ""), runningRender(t, "1.0.0", nil, "op.v1.1.0"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "OLM will not install op.v1.0.0: OLM never downgrades an installed CSV"
	var text, md, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, "", 0); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "json": js.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s does not say %q:\n%s", name, want, out)
		}
	}
}

// TestDiffRunningFormatsOrder: each format gives what Git applies first, then what OLM will do
// in words before the predicted objects.
func TestDiffRunningFormatsOrder(t *testing.T) {
	r, err := Compare(runningRender(t, "1.0.0", nil, "op.v1.1.0"), runningRender(t, "1.1.0", []string{"op.v1.0.0"}, ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, "", 0); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		out   string
		order []string
	}{
		"text":     {text.String(), []string{"What Git applies: Added (0) / Deleted (0) / Modified (2)", "modified Subscription/ops/op", "What OLM will do:", "OLM will install op.v1.0.0 → op.v1.1.0", "Predicted objects: Added (0) / Deleted (0) / Modified (1)", "modified ClusterServiceVersion/ops/op.v1.0.0 → op.v1.1.0"}},
		"markdown": {md.String(), []string{"### What Git applies", "**Summary:** Added (0) / Deleted (0) / Modified (2)", "<code>Subscription/ops/op</code>", "### What OLM will do", "OLM will install op.v1.0.0 → op.v1.1.0", "**Predicted objects:** Added (0) / Deleted (0) / Modified (1)", "<code>ClusterServiceVersion/ops/op.v1.0.0 → op.v1.1.0</code>"}},
	} {
		at := -1
		for _, want := range tc.order {
			i := strings.Index(tc.out, want)
			if i <= at {
				t.Errorf("%s: %q missing or out of order:\n%s", name, want, tc.out)
				break
			}
			at = i
		}
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Applied struct{ Changes []Change } `json:"applied"`
		OLM     struct {
			Operators []OLMChange `json:"operators"`
			Changes   []Change    `json:"changes"`
		} `json:"olm"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Applied.Changes) != 2 || len(got.OLM.Changes) != 1 || len(got.OLM.Operators) != 1 || got.OLM.Operators[0].Move != MoveUpgrade {
		t.Errorf("JSON parts: applied %d changes, OLM %d changes and %v", len(got.Applied.Changes), len(got.OLM.Changes), got.OLM.Operators)
	}
}

// TestDiffRunningMarkdownBudgets: a report in two parts stays within its budget, keeps what OLM
// will do, and its <details> balanced.
func TestDiffRunningMarkdownBudgets(t *testing.T) {
	before, after := loadCase(t, "openshift-lock-bump")
	r, err := Compare(before, after, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{300, 600, 1000, 2000, 3000, 5000, 10000, 20000, 65536} {
		var md bytes.Buffer
		if err := r.WriteMarkdown(&md, "", budget); err != nil {
			t.Fatal(err)
		}
		out := md.String()
		if md.Len() > budget {
			t.Errorf("budget %d: wrote %d bytes", budget, md.Len())
		}
		if budget >= 1000 && !strings.Contains(out, "OLM will install kube-green.v0.7.0 → kube-green.v0.7.1 (replaces)") {
			t.Errorf("budget %d: what OLM will do is missing:\n%s", budget, out)
		}
		if strings.Count(out, "<details>") != strings.Count(out, "</details>") {
			t.Errorf("budget %d: unbalanced <details>", budget)
		}
	}
}

// TestDiffRunningContractUnreadable: a contract ConfigMap that does not parse is an error
// naming it.
func TestDiffRunningContractUnreadable(t *testing.T) {
	bad := contractOf(t, "ops", opLock("1.0.0", nil, ""))
	if err := unstructured.SetNestedField(bad.Object, "not: [a contract", "data", contract.Key); err != nil {
		t.Fatal(err)
	}
	_, err := Compare(runningRender(t, "1.0.0", nil, ""), []*unstructured.Unstructured{bad, mark(obj("v1", "Secret", "ops", "x"))[0]}, Options{})
	if err == nil || !strings.Contains(err.Error(), "after: ConfigMap ops/olm-render-approval") {
		t.Errorf("Compare() error = %v, want one naming the after side's contract", err)
	}
}

// TestDiffRunningNothingForOLM: when only what Git applies changes, the report says OLM has
// nothing new to do.
func TestDiffRunningNothingForOLM(t *testing.T) {
	passed := obj("v1", "ConfigMap", "ops", "settings")
	changed := passed.DeepCopy()
	changed.Object["data"] = map[string]any{"a": "b"}
	r, err := Compare(runningRender(t, "1.0.0", nil, "", passed), runningRender(t, "1.0.0", nil, "", changed), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md, "", 0); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, want := range []string{r.OLM.noChange(), "no changes"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
}

package approve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/olm-render/olm-render/resolver/contract"
)

// clusterObjects are four namespaces of a cluster where OLM runs:
//   - team-a waits on a step toward widget's lock: approved, and Progressing;
//   - team-b waits on a plan holding a foreign CSV: held, and Degraded;
//   - team-c has no contract: its plan is held;
//   - team-d is at its lock (an old plan approved, a newer one past the ceiling): Healthy.
func clusterObjects(t *testing.T) []runtime.Object {
	t.Helper()
	const succeeded = v1alpha1.CSVPhaseSucceeded
	sub := func(ns, installed, current, plan string) *v1alpha1.Subscription {
		s := subscription(ns, "widget", installed, current, plan)
		return &s
	}
	csvOf := func(ns, name string) *v1alpha1.ClusterServiceVersion {
		c := csv(ns, name, succeeded)
		return &c
	}
	return []runtime.Object{
		contractMap(t, "team-a", widget), sub("team-a", "widget.v1.0.0", "widget.v1.1.0", "install-a"), csvOf("team-a", "widget.v1.0.0"),
		waitingPlan("team-a", "install-a", []string{"widget.v1.1.0"}),
		contractMap(t, "team-b", widget), sub("team-b", "widget.v1.0.0", "widget.v1.3.0", "install-b"), csvOf("team-b", "widget.v1.0.0"),
		waitingPlan("team-b", "install-b", []string{"widget.v1.3.0", "rogue.v1.0.0"}),
		sub("team-c", "widget.v1.0.0", "widget.v1.1.0", "install-c"), waitingPlan("team-c", "install-c", []string{"widget.v1.1.0"}),
		contractMap(t, "team-d", widget), sub("team-d", "widget.v1.3.0", "widget.v1.4.0", "install-d2"), csvOf("team-d", "widget.v1.3.0"),
		waitingPlan("team-d", "install-d1", []string{"widget.v1.3.0"}, approved("Complete")),
		waitingPlan("team-d", "install-d2", []string{"widget.v1.4.0"}, generation(2)),
	}
}

func TestOnce(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	var log bytes.Buffer
	report, err := Once(context.Background(), f.clients, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ns, name string
		outcome  Outcome
		ceiling  bool
	}
	var plans []row
	for _, p := range report.InstallPlans {
		plans = append(plans, row{p.Namespace, p.Name, p.Outcome, p.Ceiling})
	}
	want := []row{
		{"team-a", "install-a", OutcomeApproved, false},
		{"team-b", "install-b", OutcomeHeld, false},
		{"team-c", "install-c", OutcomeHeld, false},
		{"team-d", "install-d1", OutcomeAlreadyApproved, false},
		{"team-d", "install-d2", OutcomeHeld, true},
	}
	if diff := cmp.Diff(want, plans, cmp.AllowUnexported(row{})); diff != "" {
		t.Fatalf("plans (-want +got):\n%s", diff)
	}
	health := map[string]Status{}
	for _, n := range report.Namespaces {
		health[n.Namespace] = n.Status
	}
	if diff := cmp.Diff(map[string]Status{"team-a": Progressing, "team-b": Degraded, "team-c": Missing, "team-d": Healthy}, health); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
	if !report.Gates() {
		t.Error("a report holding a foreign CSV does not gate")
	}
	if want := "2 InstallPlans held, 3 namespaces not Healthy; 1 InstallPlan held past the locks (the ceiling)"; report.Summary() != want {
		t.Errorf("summary %q, want %q", report.Summary(), want)
	}

	// The cluster: only install-a approved; Events on what was approved and held; the health on
	// each contract ConfigMap.
	for _, p := range []struct{ ns, name string }{{"team-b", "install-b"}, {"team-c", "install-c"}, {"team-d", "install-d2"}} {
		if f.plan(t, p.ns, p.name).Spec.Approved {
			t.Errorf("%s/%s was approved", p.ns, p.name)
		}
	}
	if !f.plan(t, "team-a", "install-a").Spec.Approved {
		t.Error("team-a/install-a was not approved")
	}
	wantEvents := []string{
		"team-a/install-a Normal InstallPlanApproved",
		"team-b/install-b Warning InstallPlanHeld",
		"team-c/install-c Warning InstallPlanHeld",
		"team-d/install-d2 Warning InstallPlanHeld",
	}
	if diff := cmp.Diff(wantEvents, f.events(t)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	cm := f.configMap(t, "team-b", contract.ConfigMapName)
	if got := cm.Annotations[contract.HealthAnnotation]; got != "Degraded" {
		t.Errorf("team-b health annotation %q", got)
	}
	if msg := cm.Annotations[contract.HealthMessageAnnotation]; !strings.Contains(msg, "rogue.v1.0.0") {
		t.Errorf("team-b health message %q does not name rogue.v1.0.0", msg)
	}
	for _, line := range []string{
		"approved InstallPlan team-a/install-a (widget.v1.1.0): the contract of ConfigMap team-a/olm-render-approval admits every CSV",
		"held InstallPlan team-b/install-b (widget.v1.3.0, rogue.v1.0.0): installs rogue.v1.0.0, outside the contract",
		"namespace team-d: Healthy: at the locked CSVs: widget.v1.3.0; held past the locks: InstallPlan install-d2 (widget.v1.4.0)",
	} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}

	// Again: nothing more to approve, and the health annotations stay as they are.
	patches := f.configMapPatches()
	report, err = Once(context.Background(), f.clients, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if report.InstallPlans[0].Outcome != OutcomeAlreadyApproved {
		t.Errorf("team-a/install-a the second time: %s", report.InstallPlans[0].Outcome)
	}
	if n := f.configMapPatches(); n != patches {
		t.Errorf("%d more ConfigMap patches the second time, want none", n-patches)
	}
}

// TestOnceCeiling: a namespace at its lock whose only held plan goes past it passes the gate;
// one that also holds another operator's CSV does not, Healthy as it is.
func TestOnceCeiling(t *testing.T) {
	foreign := subscription("team-d", "rogue", "", "rogue.v1.0.0", "install-d3")
	objs := append(clusterObjects(t), &foreign,
		waitingPlan("team-d", "install-d3", []string{"widget.v1.4.0", "rogue.v1.0.0"}, generation(3)))
	for _, tc := range []struct {
		name    string
		objs    []runtime.Object
		gates   bool
		summary string
	}{{
		name:    "the plan past the lock",
		objs:    clusterObjects(t),
		summary: "0 InstallPlans held, 0 namespaces not Healthy; 1 InstallPlan held past the locks (the ceiling)",
	}, {
		name:    "a newer plan past the lock with another operator's CSV",
		objs:    objs,
		gates:   true,
		summary: "1 InstallPlan held, 0 namespaces not Healthy",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCluster(t, tc.objs...)
			report, err := Once(context.Background(), f.clients, Options{Namespaces: []string{"team-d"}})
			if err != nil {
				t.Fatal(err)
			}
			if report.Gates() != tc.gates || report.Summary() != tc.summary {
				t.Errorf("gates %v (%s), want %v (%s)", report.Gates(), report.Summary(), tc.gates, tc.summary)
			}
			if len(report.Namespaces) != 1 || report.Namespaces[0].Status != Healthy {
				t.Errorf("namespaces %+v, want team-d Healthy", report.Namespaces)
			}
			for _, p := range report.InstallPlans {
				if p.Outcome == OutcomeHeld && f.plan(t, p.Namespace, p.Name).Spec.Approved {
					t.Errorf("%s/%s held and approved", p.Namespace, p.Name)
				}
			}
		})
	}
}

// TestOnceDryRun: a dry run decides as a run does and writes nothing: no plan approved, no
// Event, no health annotation; it reports the plans it would approve, and says it is a dry run.
func TestOnceDryRun(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	var log bytes.Buffer
	report, err := Once(context.Background(), f.clients, Options{Log: &log, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if writes := f.writes(); len(writes) != 0 {
		t.Fatalf("a dry run wrote: %q", writes)
	}
	if !report.DryRun {
		t.Error("the report does not say it is a dry run")
	}
	var outcomes []string
	for _, p := range report.InstallPlans {
		outcomes = append(outcomes, p.Namespace+"/"+p.Name+" "+string(p.Outcome))
	}
	want := []string{"team-a/install-a WouldApprove", "team-b/install-b Held", "team-c/install-c Held",
		"team-d/install-d1 AlreadyApproved", "team-d/install-d2 Held"}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("plans (-want +got):\n%s", diff)
	}
	if got := report.Namespaces[0]; got.Namespace != "team-a" || got.Status != Progressing || !strings.Contains(got.Message, "is being approved") {
		t.Errorf("team-a: %+v, want Progressing, being approved", got)
	}
	for _, line := range []string{
		"dry run: would approve InstallPlan team-a/install-a (widget.v1.1.0): the contract of ConfigMap team-a/olm-render-approval admits every CSV",
		"dry run: would hold InstallPlan team-b/install-b (widget.v1.3.0, rogue.v1.0.0): installs rogue.v1.0.0",
		"dry run: namespace team-b: Degraded: ",
	} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}
	if want := "2 InstallPlans held, 3 namespaces not Healthy; 1 InstallPlan held past the locks (the ceiling) (dry run: nothing written)"; report.Summary() != want {
		t.Errorf("summary %q, want %q", report.Summary(), want)
	}
	var table bytes.Buffer
	if err := report.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(table.String(), "Dry run: nothing approved, no Event posted, no health written.\n\nNAMESPACE") {
		t.Errorf("the table does not start saying it is a dry run:\n%s", table.String())
	}
}

// TestOnceReadsContractsOnly: the approver lists ConfigMaps by the contract's name (which RBAC
// can restrict to the contracts) and label, never every ConfigMap.
func TestOnceReadsContractsOnly(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	if _, err := Once(context.Background(), f.clients, Options{Namespaces: []string{"team-a", "team-b"}, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, a := range f.kube.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok && a.GetResource().Resource == "configmaps" {
			r := l.GetListRestrictions()
			lists = append(lists, a.GetNamespace()+" "+r.Fields.String()+" "+r.Labels.String())
		}
	}
	want := []string{
		"team-a metadata.name=olm-render-approval olm-render.dev/approval-contract=true",
		"team-b metadata.name=olm-render-approval olm-render.dev/approval-contract=true",
	}
	if diff := cmp.Diff(want, lists); diff != "" {
		t.Errorf("ConfigMap listings (-want +got):\n%s", diff)
	}
}

// TestOnceMissingContract: a namespace with a Manual Subscription and no contract gates, plan
// or not (OLM may not have resolved yet); one whose Subscriptions are all Automatic is none of
// the approver's business.
func TestOnceMissingContract(t *testing.T) {
	manual := subscription("team-e", "widget", "", "", "")
	auto := subscription("team-f", "widget", "", "", "", func(s *v1alpha1.Subscription) { s.Spec.InstallPlanApproval = v1alpha1.ApprovalAutomatic })
	f := newFakeCluster(t, &manual, &auto)
	report, err := Once(context.Background(), f.clients, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []NamespaceHealth{{Namespace: "team-e", Status: Missing,
		Message: "no contract: namespace team-e has the Manual Subscription widget, but no ConfigMap olm-render-approval labelled olm-render.dev/approval-contract=true, so nothing is approved there; apply the contract ConfigMap of the render"}}
	if diff := cmp.Diff(want, report.Namespaces); diff != "" {
		t.Errorf("namespaces (-want +got):\n%s", diff)
	}
	if !report.Gates() || len(report.InstallPlans) != 0 {
		t.Errorf("gates %v with plans %+v, want a gate and no plan", report.Gates(), report.InstallPlans)
	}
}

// TestOnceNamespaces: with namespaces given, the others are not touched.
func TestOnceNamespaces(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	report, err := Once(context.Background(), f.clients, Options{Namespaces: []string{"team-b", "team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.InstallPlans) != 2 || report.InstallPlans[0].Namespace != "team-a" || report.InstallPlans[1].Namespace != "team-b" {
		t.Fatalf("plans %+v", report.InstallPlans)
	}
	if len(report.Namespaces) != 2 {
		t.Errorf("namespaces %+v", report.Namespaces)
	}
}

// TestOnceConflict: a plan that changed between the read and the approval is read and decided
// again: OLM replaced its CSVs with some outside the contract, so it is held.
func TestOnceConflict(t *testing.T) {
	f := newFakeCluster(t, clusterObjects(t)...)
	conflicts := 0
	f.dynamic.PrependReactor("patch", "installplans", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		changed := waitingPlan("team-a", "install-a", []string{"widget.v1.1.0", "rogue.v1.0.0"})
		if err := f.dynamic.Tracker().Update(installPlansResource, toUnstructured(t, changed), "team-a"); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(installPlansResource.GroupResource(), "install-a", nil)
	})
	report, err := Once(context.Background(), f.clients, Options{Namespaces: []string{"team-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := report.InstallPlans[0]; got.Outcome != OutcomeHeld || !cmp.Equal(got.Outside, []string{"rogue.v1.0.0"}) {
		t.Fatalf("after a conflict: %+v", got)
	}
	if f.plan(t, "team-a", "install-a").Spec.Approved {
		t.Error("the changed plan was approved")
	}
}

// TestOnceForbidden: a listing the approver may not do is an error naming the permission.
func TestOnceForbidden(t *testing.T) {
	f := newFakeCluster(t)
	f.dynamic.PrependReactor("list", "installplans", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(installPlansResource.GroupResource(), "", nil)
	})
	_, err := Once(context.Background(), f.clients, Options{})
	if err == nil || !strings.Contains(err.Error(), "listing installplans.operators.coreos.com in every namespace (grant the approver list and watch") {
		t.Fatalf("err = %v", err)
	}
}

// TestReportTable: the table shows every plan and every namespace's health.
func TestReportTable(t *testing.T) {
	r := &Report{
		InstallPlans: []PlanResult{
			{Namespace: "team-a", Name: "install-a", Outcome: OutcomeHeld, Reason: "why", CSVs: []string{"a.v1", "b.v1"}},
			{Namespace: "team-b", Name: "install-b", Outcome: OutcomeHeld, Reason: "past", CSVs: []string{"a.v2"}, Ceiling: true},
		},
		Namespaces: []NamespaceHealth{{Namespace: "team-a", Status: Degraded, Message: "because"}, {Namespace: "team-b", Status: Healthy, Message: "at"}},
	}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "NAMESPACE  INSTALLPLAN  OUTCOME         CSVS       REASON\n" +
		"team-a     install-a    Held            a.v1,b.v1  why\n" +
		"team-b     install-b    Held (ceiling)  a.v2       past\n" +
		"\n" +
		"NAMESPACE  HEALTH    MESSAGE\n" +
		"team-a     Degraded  because\n" +
		"team-b     Healthy   at\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestReportGates: what fails a gate (approve --once's exit status 2): a plan held for another
// reason than the ceiling, or a namespace not Healthy; a hold past the locks alone does not.
func TestReportGates(t *testing.T) {
	plan := func(o Outcome, ceiling bool) PlanResult {
		return PlanResult{Namespace: "ns", Name: "install-x", Outcome: o, Ceiling: ceiling}
	}
	health := func(s Status) NamespaceHealth { return NamespaceHealth{Namespace: "ns", Status: s} }
	for _, tc := range []struct {
		name    string
		plans   []PlanResult
		health  []NamespaceHealth
		gates   bool
		summary string
	}{
		{"nothing at all", nil, nil, false, "0 InstallPlans held, 0 namespaces not Healthy"},
		{"approved, Healthy", []PlanResult{plan(OutcomeApproved, false), plan(OutcomeAlreadyApproved, false), plan(OutcomeIgnored, false)},
			[]NamespaceHealth{health(Healthy)}, false, "0 InstallPlans held, 0 namespaces not Healthy"},
		{"held past the lock, Healthy", []PlanResult{plan(OutcomeHeld, true)}, []NamespaceHealth{health(Healthy)},
			false, "0 InstallPlans held, 0 namespaces not Healthy; 1 InstallPlan held past the locks (the ceiling)"},
		{"held past the lock, Progressing", []PlanResult{plan(OutcomeHeld, true)}, []NamespaceHealth{health(Progressing)},
			true, "0 InstallPlans held, 1 namespace not Healthy; 1 InstallPlan held past the locks (the ceiling)"},
		{"held for another operator's CSV, Healthy", []PlanResult{plan(OutcomeHeld, false)}, []NamespaceHealth{health(Healthy)},
			true, "1 InstallPlan held, 0 namespaces not Healthy"},
		{"an approval that failed", []PlanResult{plan(OutcomeFailed, false)}, []NamespaceHealth{health(Healthy)},
			true, "1 InstallPlan held, 0 namespaces not Healthy"},
		{"approved, Progressing", []PlanResult{plan(OutcomeApproved, false)}, []NamespaceHealth{health(Progressing)},
			true, "0 InstallPlans held, 1 namespace not Healthy"},
		{"Degraded", nil, []NamespaceHealth{health(Degraded)}, true, "0 InstallPlans held, 1 namespace not Healthy"},
		{"no contract", []PlanResult{plan(OutcomeHeld, false)}, []NamespaceHealth{health(Missing), health(Missing)},
			true, "1 InstallPlan held, 2 namespaces not Healthy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Report{InstallPlans: tc.plans, Namespaces: tc.health}
			if r.Gates() != tc.gates || r.Summary() != tc.summary {
				t.Errorf("Gates() = %v, Summary() = %q; want %v, %q", r.Gates(), r.Summary(), tc.gates, tc.summary)
			}
		})
	}
}

package oracle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-registry/alpha/declcfg"
	"github.com/operator-framework/operator-registry/alpha/property"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olm-render/olm-render/cluster/approve"
	"github.com/olm-render/olm-render/cluster/verify"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/contract"
	"github.com/olm-render/olm-render/test/healthcheck"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// liveRunningGolden records what the running-target scenarios saw at each stage.
const liveRunningGolden = "testdata/live-running.txt"

// TestLiveRunning runs olm-render's target for clusters where OLM keeps running (--olm=running)
// against OLM v0.46.0's own controllers, with `olm-render approve` running as it would in a
// cluster (as its ServiceAccount, under examples/approver's ClusterRole alone), in three
// scenarios, and records every stage in testdata/live-running.txt:
//
//   - the quickstart (AllNamespaces; a dependency pulled in by a required API): applied without
//     its contract, approve --once holds the plan and exits 2 (the namespace Missing its
//     contract); with it, approve --once --dry-run would approve the plan and writes nothing;
//     then the controller approves it: both CSVs Succeeded; the contract's health Healthy;
//     status in sync;
//   - etcd (OwnNamespace) along its replaces chain: installed at the chain's first bundle; the
//     catalog publishes a newer head; the lock moves two steps up, below the head: each hop is
//     approved and the install ends exactly at the lock, the step past it held (approve --once
//     exits 0: the ceiling); a Subscription added by hand in the namespace: its plan is held and
//     names the CSV outside the contract, nothing is installed (approve --once exits 2); a
//     Deployment edited behind OLM's back and a plan approved by hand past the lock: status
//     reports the drift, naming them;
//   - kube-green (webhooks, AllNamespaces): its certificates are OLM's own, known to status.
func TestLiveRunning(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	cl := liveCluster(t)
	quietOLMLogs()
	var report bytes.Buffer
	fmt.Fprintf(&report, "# olm-render --olm=running against OLM v0.46.0's own controllers on a real API server, with\n")
	fmt.Fprintf(&report, "# olm-render approve running: TestLiveRunning (regenerate with: go test -run TestLiveRunning -update .)\n")
	t.Run("quickstart", func(t *testing.T) { runningQuickstart(t, cl, &report) })
	t.Run("etcd", func(t *testing.T) { runningEtcd(t, cl, &report) })
	t.Run("webhooks", func(t *testing.T) { runningWebhooks(t, cl, &report) })
	if !t.Failed() {
		checkGolden(t, liveRunningGolden, report.Bytes())
	}
}

// stage records one stage: what OLM's InstallPlans are, the contract's health and what status
// says.
func stage(t *testing.T, ctx context.Context, w *bytes.Buffer, cl *live.Cluster, r *running, ns, title string) *verify.Report {
	t.Helper()
	fmt.Fprintf(w, "\n%s\n", title)
	for _, ip := range installPlans(t, ctx, cl, ns) {
		// (OLM lists the CSVs of a plan in no fixed order.)
		fmt.Fprintf(w, "  InstallPlan %d: %s: approved %v, phase %s\n", ip.Spec.Generation, strings.Join(slices.Sorted(slices.Values(ip.Spec.ClusterServiceVersionNames)), ", "), ip.Spec.Approved, ip.Status.Phase)
		// (approve --once posts its own Events: each message once.)
		for _, msg := range slices.Compact(slices.Sorted(slices.Values(events(t, ctx, cl, ns, ip.Name, "InstallPlanHeld")))) {
			fmt.Fprintf(w, "    event: %s\n", generatedNames(msg))
		}
	}
	health, msg := contractHealth(t, ctx, cl, ns)
	fmt.Fprintf(w, "  contract health: %s (%s)\n", health, generatedNames(msg))
	fmt.Fprintf(w, "  Argo CD and Flux health (the checks examples/ ship, on the objects in the cluster):\n")
	for _, line := range gitopsHealth(t, ctx, cl, r, ns) {
		fmt.Fprintf(w, "    %s\n", line)
	}
	rep := r.verify(t, ctx, cl)
	fmt.Fprintf(w, "  status:\n%s", reportLines(rep))
	return rep
}

// The health checks examples/ ship for --olm=running.
var (
	argoSubscriptionHealth = filepath.Join("..", "..", "examples", "argocd", "health", "subscription.lua")
	argoConfigMapHealth    = filepath.Join("..", "..", "examples", "argocd", "health", "configmap.lua")
	fluxHealthExprs        = filepath.Join("..", "..", "examples", "flux", "health-check-exprs.yaml")
)

// gitopsHealth evaluates Argo CD's and Flux's health checks for --olm=running on the applied
// Subscriptions and the contract ConfigMap of a namespace, as they are in the cluster.
func gitopsHealth(t *testing.T, ctx context.Context, cl *live.Cluster, r *running, ns string) []string {
	t.Helper()
	var out []string
	check := func(what, script string, flux map[string]string, obj map[string]any) {
		lua, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		status, message, err := healthcheck.Argo(string(lua), obj)
		if err != nil {
			t.Fatalf("%s: Argo CD: %v", what, err)
		}
		fluxOut, err := healthcheck.Flux(flux, obj)
		if err != nil {
			t.Fatalf("%s: Flux: %v", what, err)
		}
		out = append(out, fmt.Sprintf("%s: Argo CD %s (%s); Flux %s", what, status, generatedNames(message), fluxOut))
	}
	subExprs, err := healthcheck.FluxExprs(fluxHealthExprs, 1, "operators.coreos.com/v1alpha1", "Subscription")
	if err != nil {
		t.Fatal(err)
	}
	cmExprs, err := healthcheck.FluxExprs(fluxHealthExprs, 1, "v1", "ConfigMap")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.applied {
		if o.GetKind() != v1alpha1.SubscriptionKind || o.GetNamespace() != ns {
			continue
		}
		sub, err := cl.Dynamic.Resource(v1alpha1.SchemeGroupVersion.WithResource("subscriptions")).Namespace(ns).Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check("Subscription "+ns+"/"+o.GetName(), argoSubscriptionHealth, subExprs, sub.Object)
	}
	cm, err := cl.Dynamic.Resource(corev1GVR("configmaps")).Namespace(ns).Get(ctx, contract.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("ConfigMap "+ns+"/"+contract.ConfigMapName, argoConfigMapHealth, cmExprs, cm.Object)
	return out
}

// runningQuickstart installs the quickstart where OLM runs.
func runningQuickstart(t *testing.T, cl *live.Cluster, w *bytes.Buffer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	fbc := filepath.Join(tmp, "fbc")
	if _, err := liveFBC(filepath.Join(quickstartDir, "catalog"), fbc); err != nil {
		t.Fatal(err)
	}
	srv, err := live.ServeCatalog(ctx, os.DirFS(fbc))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	r := &running{dir: filepath.Join(tmp, "inputs"), kube: serverVersion(t, cl)}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if r.in, err = bindCatalog(quickstartInputs(t, srv.Address), fbc, r.dir); err != nil {
		t.Fatal(err)
	}
	if err := cl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	r.render(t, ctx, resolver.Options{})
	const ns = "operators"
	runningBeforeTheApprover(t, ctx, cl, r, ns, w)
	startApprover(t, ctx, cl)
	waitUntil(t, "both CSVs to succeed", func() bool {
		return csvPhase(t, ctx, cl, ns, "widget-operator.v0.2.0") == v1alpha1.CSVPhaseSucceeded &&
			csvPhase(t, ctx, cl, ns, "gadget-operator.v1.0.0") == v1alpha1.CSVPhaseSucceeded
	})
	settleLive(t, ctx, cl, ns)
	rep := stage(t, ctx, w, cl, r, ns, "quickstart: installed where OLM runs")
	plans := installPlans(t, ctx, cl, ns)
	if len(plans) != 1 || !plans[0].Spec.Approved || !slices.Equal(slices.Sorted(slices.Values(plans[0].Spec.ClusterServiceVersionNames)), []string{"gadget-operator.v1.0.0", "widget-operator.v0.2.0"}) {
		t.Errorf("want one approved InstallPlan installing both CSVs, got %d: %+v", len(plans), plans)
	}
	if len(plans) > 0 && len(events(t, ctx, cl, ns, plans[0].Name, "InstallPlanApproved")) == 0 {
		t.Error("the approver posted no InstallPlanApproved event")
	}
	if h, msg := contractHealth(t, ctx, cl, ns); h != "Healthy" {
		t.Errorf("contract health %s (%s), want Healthy", h, msg)
	}
	if rep.ExitCode() != verify.ExitInSync {
		t.Errorf("status exits %d, want %d:\n%s", rep.ExitCode(), verify.ExitInSync, reportLines(rep))
	}
	prediction(t, ctx, w, cl, r)
}

// prediction records how the prediction compares with what OLM created (comparePrediction),
// failing on a difference no known class explains.
func prediction(t *testing.T, ctx context.Context, w *bytes.Buffer, cl *live.Cluster, r *running) {
	t.Helper()
	res := comparePrediction(t, ctx, cl, r)
	fmt.Fprintf(w, "  the prediction against what OLM created (as TestLiveInstall compares):\n")
	for _, line := range predictionLines(t, res) {
		fmt.Fprintf(w, "    %s\n", line)
	}
	if unknown := unknownClasses(res); len(unknown) > 0 {
		t.Errorf("the prediction differs from what OLM created in ways no known difference explains:\n  %s", strings.Join(unknown, "\n  "))
	}
}

// runningBeforeTheApprover applies the quickstart without its contract, as a sync that applies
// the Subscriptions first would, and runs approve --once while no approver runs: the plan OLM
// waits on is held, the namespace Missing its contract (exit 2); then applies the contract and
// runs a dry run, which says it would approve the plan and writes nothing (exit 2: the namespace
// is not Healthy until the plan is approved).
func runningBeforeTheApprover(t *testing.T, ctx context.Context, cl *live.Cluster, r *running, ns string, w *bytes.Buffer) {
	t.Helper()
	r.applyWhere(t, ctx, cl, func(o *unstructured.Unstructured) bool {
		return o.GetKind() != "ConfigMap" || o.GetName() != contract.ConfigMapName
	})
	var plan string
	waitUntil(t, "an InstallPlan waiting for approval, named by the Subscription", func() bool {
		for _, ip := range installPlans(t, ctx, cl, ns) {
			if ip.Status.Phase == v1alpha1.InstallPlanPhaseRequiresApproval {
				plan = ip.Name
			}
		}
		sub, err := cl.OLM.OperatorsV1alpha1().Subscriptions(ns).Get(ctx, "widget-operator", metav1.GetOptions{})
		return plan != "" && err == nil && sub.Status.InstallPlanRef != nil && sub.Status.InstallPlanRef.Name == plan
	})
	code, report, _ := approveOnce(t, ctx, cl, "--namespace", ns)
	fmt.Fprintf(w, "\nquickstart: applied without its contract, the InstallPlan waiting, no approver running\n%s", onceLines(code, report))
	if code != 2 || len(report.Namespaces) != 1 || report.Namespaces[0].Status != approve.Missing ||
		len(report.InstallPlans) != 1 || report.InstallPlans[0].Outcome != approve.OutcomeHeld || report.InstallPlans[0].Ceiling {
		t.Errorf("approve --once without a contract: exit %d, %+v; want exit 2, the namespace Missing, the plan held", code, report)
	}

	r.apply(t, ctx, cl)
	code, report, _ = approveOnce(t, ctx, cl, "--namespace", ns, "--dry-run")
	fmt.Fprintf(w, "\nquickstart: the contract applied, approve --once --dry-run\n%s", onceLines(code, report))
	if code != 2 || !report.DryRun || len(report.InstallPlans) != 1 || report.InstallPlans[0].Outcome != approve.OutcomeWouldApprove {
		t.Errorf("approve --once --dry-run: exit %d, %+v; want exit 2, a dry run that would approve the plan", code, report)
	}
	ip, err := cl.OLM.OperatorsV1alpha1().InstallPlans(ns).Get(ctx, plan, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ip.Spec.Approved {
		t.Errorf("InstallPlan %s approved by a dry run", plan)
	}
	if got := events(t, ctx, cl, ns, plan, "InstallPlanApproved"); len(got) != 0 {
		t.Errorf("a dry run posted %q", got)
	}
	if h, msg := contractHealth(t, ctx, cl, ns); h != "" || msg != "" {
		t.Errorf("a dry run wrote the health: %s (%s)", h, msg)
	}
}

// runningEtcd walks etcd's chain where OLM runs.
func runningEtcd(t *testing.T, cl *live.Cluster, w *bytes.Buffer) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	fbc := filepath.Join(tmp, "fbc")
	if _, err := liveFBC(catalogPath(liveCatalog), fbc); err != nil {
		t.Fatal(err)
	}
	srv, err := live.ServeCatalog(ctx, os.DirFS(fbc))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	r := &running{dir: filepath.Join(tmp, "inputs"), kube: serverVersion(t, cl)}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := upgradeCase.inputs()
	in.CatalogSource.Spec.Address = srv.Address
	if r.in, err = bindCatalog(in, fbc, r.dir); err != nil {
		t.Fatal(err)
	}
	if err := cl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	ns, sub := in.Subscription.Namespace, in.Subscription.Namespace+"/"+in.Subscription.Name
	startApprover(t, ctx, cl)

	// 1. Installed at the chain's first bundle: the step past it waits, held.
	r.render(t, ctx, resolver.Options{})
	r.apply(t, ctx, cl)
	waitUntil(t, "etcdoperator.v0.9.0 to succeed", func() bool {
		return csvPhase(t, ctx, cl, ns, "etcdoperator.v0.9.0") == v1alpha1.CSVPhaseSucceeded
	})
	settleLive(t, ctx, cl, ns)
	rep := stage(t, ctx, w, cl, r, ns, "etcd: installed at etcdoperator.v0.9.0 (the lock), the next step held")
	wantExit(t, rep, verify.ExitInSync)

	// 2. The catalog publishes a newer head, then the lock moves two steps up, below it.
	if err := publishNewerHead(ctx, srv, fbc, "etcdoperator.v0.9.4", "etcdoperator.v0.9.6", "0.9.6"); err != nil {
		t.Fatal(err)
	}
	r.render(t, ctx, resolver.Options{Installed: map[string]string{sub: "etcdoperator.v0.9.4"}, Pinned: map[string]bool{sub: true}})
	// While the first hop's Deployment does not roll out, nothing is healthy yet.
	cl.Kubelet().Hold(ns, "etcd-operator")
	r.apply(t, ctx, cl)
	waitUntil(t, "the contract's health to say the upgrade is under way", func() bool {
		h, msg := contractHealth(t, ctx, cl, ns)
		return h == "Progressing" && strings.Contains(msg, "etcdoperator.v0.9.2")
	})
	fmt.Fprintf(w, "\netcd: the lock moved, the first hop's Deployment not rolled out yet\n")
	for _, line := range gitopsHealth(t, ctx, cl, r, ns) {
		// (The messages name the CSV's phase of the moment: left out.)
		what, verdicts, _ := strings.Cut(line, ": Argo CD ")
		argo, _, _ := strings.Cut(verdicts, " (")
		_, flux, _ := strings.Cut(verdicts, "; Flux ")
		fmt.Fprintf(w, "    %s: Argo CD %s; Flux %s\n", what, argo, flux)
	}
	if rep := r.verify(t, ctx, cl); rep.ExitCode() == verify.ExitInSync {
		t.Errorf("status is in sync while the upgrade is under way:\n%s", reportLines(rep))
	}
	cl.Kubelet().Release(ns, "etcd-operator")
	waitUntil(t, "etcdoperator.v0.9.4 to succeed", func() bool {
		return csvPhase(t, ctx, cl, ns, "etcdoperator.v0.9.4") == v1alpha1.CSVPhaseSucceeded
	})
	settleLive(t, ctx, cl, ns)
	rep = stage(t, ctx, w, cl, r, ns, "etcd: the lock moved to etcdoperator.v0.9.4, the catalog's head is etcdoperator.v0.9.6")
	wantExit(t, rep, verify.ExitInSync)
	if p := csvPhase(t, ctx, cl, ns, "etcdoperator.v0.9.6"); p != "" {
		t.Errorf("etcdoperator.v0.9.6, past the lock, is installed (%s)", p)
	}
	// At the lock, the head above it: the gate passes, the plan past the lock held as the ceiling.
	code, once, _ := approveOnce(t, ctx, cl, "--namespace", ns)
	w.WriteString(onceLines(code, once))
	if code != 0 || !slices.ContainsFunc(once.InstallPlans, func(p approve.PlanResult) bool {
		return p.Outcome == approve.OutcomeHeld && p.Ceiling && slices.Equal(p.CSVs, []string{"etcdoperator.v0.9.6"})
	}) {
		t.Errorf("approve --once at the lock: exit %d, %+v; want exit 0, etcdoperator.v0.9.6 held as the ceiling", code, once)
	}

	// 3. A Subscription added by hand in the namespace: held, nothing installed.
	foreign := &v1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: "hawtio-operator", Namespace: ns},
		Spec: &v1alpha1.SubscriptionSpec{Package: "hawtio-operator", Channel: "stable-v1", CatalogSource: in.CatalogSource.Name,
			CatalogSourceNamespace: in.CatalogSource.Namespace, InstallPlanApproval: v1alpha1.ApprovalManual}}
	if _, err := cl.OLM.OperatorsV1alpha1().Subscriptions(ns).Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "an InstallPlan for the hand-made Subscription", func() bool {
		for _, ip := range installPlans(t, ctx, cl, ns) {
			if slices.ContainsFunc(ip.Spec.ClusterServiceVersionNames, func(s string) bool { return strings.HasPrefix(s, "hawtio-operator") }) {
				return len(events(t, ctx, cl, ns, ip.Name, "InstallPlanHeld")) > 0
			}
		}
		return false
	})
	settleLive(t, ctx, cl, ns)
	stage(t, ctx, w, cl, r, ns, "etcd: a Subscription to hawtio-operator added by hand in the namespace")
	if p := csvPhase(t, ctx, cl, ns, "hawtio-operator.v1.2.0"); p != "" {
		t.Errorf("the hand-made Subscription's CSV is installed (%s)", p)
	}
	// Another operator's CSV held: the gate fails, the namespace Healthy as it is.
	code, once, _ = approveOnce(t, ctx, cl, "--namespace", ns)
	w.WriteString(onceLines(code, once))
	if code != 2 || !slices.ContainsFunc(once.InstallPlans, func(p approve.PlanResult) bool {
		return p.Outcome == approve.OutcomeHeld && !p.Ceiling && slices.Contains(p.Outside, "hawtio-operator.v1.2.0")
	}) {
		t.Errorf("approve --once with hawtio-operator held: exit %d, %+v; want exit 2, its plan held, not as the ceiling", code, once)
	}
	if err := cl.OLM.OperatorsV1alpha1().Subscriptions(ns).Delete(ctx, foreign.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// 4. Drift: a Deployment edited behind OLM's back, then a plan approved by hand past the lock.
	editDeployment(t, ctx, cl, ns, "etcd-operator", "quay.io/example/etcd-operator:edited")
	rep = stage(t, ctx, w, cl, r, ns, "etcd: the Deployment edited behind OLM's back")
	wantExit(t, rep, verify.ExitDrift)
	for _, ip := range installPlans(t, ctx, cl, ns) {
		if slices.Equal(ip.Spec.ClusterServiceVersionNames, []string{"etcdoperator.v0.9.6"}) && !ip.Spec.Approved {
			if err := cl.ApproveInstallPlan(ctx, ns, ip.Name); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitUntil(t, "etcdoperator.v0.9.6 to succeed", func() bool {
		return csvPhase(t, ctx, cl, ns, "etcdoperator.v0.9.6") == v1alpha1.CSVPhaseSucceeded
	})
	settleLive(t, ctx, cl, ns)
	rep = stage(t, ctx, w, cl, r, ns, "etcd: the InstallPlan past the lock approved by hand")
	wantExit(t, rep, verify.ExitDrift)
}

// runningWebhooks installs an operator with webhooks (kube-green, AllNamespaces) where OLM
// runs: the prediction holds OLM's own certificate objects, what OLM generates marked; status
// finds them in sync, and they compare with what OLM created as the live suite compares.
func runningWebhooks(t *testing.T, cl *live.Cluster, w *bytes.Buffer) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	fbc := filepath.Join(tmp, "fbc")
	if _, err := liveFBC(catalogPath(liveCatalog), fbc); err != nil {
		t.Fatal(err)
	}
	srv, err := live.ServeCatalog(ctx, os.DirFS(fbc))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	r := &running{dir: filepath.Join(tmp, "inputs"), kube: serverVersion(t, cl)}
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := wholeCase{Catalog: liveCatalog, Package: "kube-green", Channel: "alpha", Bundle: "kube-green.v0.7.1", Mode: v1alpha1.InstallModeTypeAllNamespaces}.inputs()
	in.CatalogSource.Spec.Address = srv.Address
	if r.in, err = bindCatalog(in, fbc, r.dir); err != nil {
		t.Fatal(err)
	}
	if err := cl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	startApprover(t, ctx, cl)
	r.render(t, ctx, resolver.Options{})
	r.apply(t, ctx, cl)
	ns := in.Subscription.Namespace
	waitUntil(t, "kube-green.v0.7.1 to succeed", func() bool {
		return csvPhase(t, ctx, cl, ns, "kube-green.v0.7.1") == v1alpha1.CSVPhaseSucceeded
	})
	settleLive(t, ctx, cl, ns)
	rep := stage(t, ctx, w, cl, r, ns, "kube-green (webhooks, AllNamespaces): installed where OLM runs, its certificates OLM's own")
	wantExit(t, rep, verify.ExitInSync)
	prediction(t, ctx, w, cl, r)
}

// wantExit checks a verification's exit code.
func wantExit(t *testing.T, rep *verify.Report, code int) {
	t.Helper()
	if got := rep.ExitCode(); got != code {
		t.Errorf("status exits %d, want %d:\n%s", got, code, reportLines(rep))
	}
}

// publishNewerHead publishes a new revision of the catalog in which a copy of bundle from,
// named to at version, replaces it at the head of its channels (a newer version, made from a
// real bundle), and writes it to fbc for the render too.
func publishNewerHead(ctx context.Context, srv *live.CatalogServer, fbc, from, to, version string) error {
	cfg, err := declcfg.LoadFS(ctx, os.DirFS(fbc))
	if err != nil {
		return err
	}
	var head *declcfg.Bundle
	for i := range cfg.Bundles {
		if cfg.Bundles[i].Name == from {
			head = &cfg.Bundles[i]
		}
	}
	if head == nil {
		return fmt.Errorf("bundle %s is not in the catalog", from)
	}
	b, err := renamedBundle(*head, to, version)
	if err != nil {
		return err
	}
	cfg.Bundles = append(cfg.Bundles, b)
	for i := range cfg.Channels {
		if slices.ContainsFunc(cfg.Channels[i].Entries, func(e declcfg.ChannelEntry) bool { return e.Name == from }) {
			cfg.Channels[i].Entries = append(cfg.Channels[i].Entries, declcfg.ChannelEntry{Name: to, Replaces: from})
		}
	}
	var buf bytes.Buffer
	if err := declcfg.WriteJSON(*cfg, &buf); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(fbc, "catalog.json"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return srv.Publish(ctx, os.DirFS(fbc))
}

// renamedBundle returns a copy of a bundle under another name and version: its olm.package
// property and its CSV (name, spec.version, spec.replaces: the original).
func renamedBundle(b declcfg.Bundle, name, version string) (declcfg.Bundle, error) {
	out := declcfg.Bundle{Schema: b.Schema, Package: b.Package, Name: name, Image: b.Image}
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypePackage:
			v, _ := json.Marshal(property.Package{PackageName: b.Package, Version: version})
			p = property.Property{Type: p.Type, Value: v}
		case property.TypeBundleObject:
			var obj struct {
				Data []byte `json:"data"`
			}
			if err := json.Unmarshal(p.Value, &obj); err != nil {
				return out, err
			}
			var m map[string]any
			if err := json.Unmarshal(obj.Data, &m); err != nil {
				return out, err
			}
			if m["kind"] == v1alpha1.ClusterServiceVersionKind {
				mapOf(m["metadata"])["name"] = name
				spec := mapOf(m["spec"])
				spec["version"], spec["replaces"] = version, b.Name
				data, err := json.Marshal(m)
				if err != nil {
					return out, err
				}
				v, _ := json.Marshal(map[string]string{"data": base64.StdEncoding.EncodeToString(data)})
				p = property.Property{Type: p.Type, Value: v}
			}
		}
		out.Properties = append(out.Properties, p)
	}
	return out, nil
}

// corev1GVR is a resource of the core group, version v1.
func corev1GVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: resource}
}

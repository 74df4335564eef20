package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kustomize "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/cluster/approve"
	"github.com/olm-render/olm-render/resolver/contract"
)

// approveWidget is the contract's Subscription in the approver tests: widget locked to v1.2.0,
// which v1.0.0 and v1.1.0 lead up to.
var approveWidget = contract.Subscription{Name: "widget", Package: "widget", Channel: "stable",
	Locked: "widget.v1.2.0", Steps: []string{"widget.v1.0.0", "widget.v1.1.0"}}

// approveNamespace is one namespace of the approver tests: widget installed at installed,
// and an InstallPlan waiting to install csvs; with a contract or without.
type approveNamespace struct {
	ns        string
	contract  bool
	installed string
	csvs      []string
}

// setUpApproval creates the namespace as OLM would leave it: the Subscription and its CSV with
// their status, the InstallPlan waiting for approval (status through the status subresource, as
// OLM writes it), and the contract ConfigMap.
func setUpApproval(t *testing.T, kube kubernetes.Interface, n approveNamespace) {
	t.Helper()
	ctx := context.Background()
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamicClient(t)
	create := func(obj map[string]any) {
		u := &unstructured.Unstructured{Object: obj}
		gvr := v1alpha1.SchemeGroupVersion.WithResource(strings.ToLower(u.GetKind()) + "s")
		if u.GetKind() == v1alpha1.ClusterServiceVersionKind {
			gvr = csvsGVR
		}
		if _, err := dyn.Resource(gvr).Namespace(n.ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s/%s: %v", u.GetKind(), n.ns, u.GetName(), err)
		}
	}
	olm := func(kind, name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": n.ns}, "spec": spec}
	}
	create(olm("ClusterServiceVersion", n.installed, map[string]any{"displayName": "widget", "version": strings.TrimPrefix(n.installed, "widget.v"),
		"install": map[string]any{"strategy": "deployment"}}))
	create(olm("Subscription", "widget", map[string]any{"name": "widget", "channel": "stable", "source": "community",
		"sourceNamespace": "olm", "installPlanApproval": "Manual"}))
	create(olm("InstallPlan", "install-1", map[string]any{"approval": "Manual", "approved": false, "generation": int64(1),
		"clusterServiceVersionNames": toAny(n.csvs)}))
	now := time.Now().UTC().Format(time.RFC3339)
	setStatus(t, dyn, csvsGVR, n.ns, n.installed, map[string]any{"phase": "Succeeded", "reason": "InstallSucceeded"})
	sub := subscriptionStatus(n.installed, now)
	sub["currentCSV"], sub["state"] = n.csvs[0], string(v1alpha1.SubscriptionStateUpgradePending)
	sub["installPlanRef"] = map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan", "name": "install-1", "namespace": n.ns}
	setStatus(t, dyn, subscriptionsGVR, n.ns, "widget", sub)
	setStatus(t, dyn, installPlansGVR, n.ns, "install-1", map[string]any{"phase": "RequiresApproval", "catalogSources": []any{"community"}})
	if !n.contract {
		return
	}
	cm, err := contract.ConfigMap(contract.Namespace{Namespace: n.ns, Subscriptions: []contract.Subscription{approveWidget}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().ConfigMaps(n.ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// planApproved reports whether an InstallPlan is approved.
func planApproved(t *testing.T, ns, name string) bool {
	t.Helper()
	u, err := dynamicClient(t).Resource(installPlansGVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok, _, _ := unstructured.NestedBool(u.Object, "spec", "approved")
	return ok
}

// planEvents returns the Events on an InstallPlan, as "type reason: message".
func planEvents(t *testing.T, kube kubernetes.Interface, ns, name string) []string {
	t.Helper()
	list, err := kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: "involvedObject.kind=InstallPlan,involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Source.Component != approve.Component {
			t.Errorf("Event %s: source %q, want %s", e.Name, e.Source.Component, approve.Component)
		}
		out = append(out, e.Type+" "+e.Reason+": "+e.Message)
	}
	slices.Sort(out)
	return out
}

// contractHealth returns the health annotations of a namespace's contract ConfigMap.
func contractHealth(t *testing.T, kube kubernetes.Interface, ns string) (string, string) {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(context.Background(), contract.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Annotations[contract.HealthAnnotation], cm.Annotations[contract.HealthMessageAnnotation]
}

func kubeClient(t *testing.T) kubernetes.Interface {
	t.Helper()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

// TestApproveOnce runs `olm-render approve --once` on three namespaces: a plan of a step toward
// the lock (approved), a plan holding a foreign CSV (held), a plan where there is no contract
// (held). It exits 2, reports each, posts the Events and writes the health of each contract.
func TestApproveOnce(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	kube := kubeClient(t)
	for _, n := range []approveNamespace{
		{ns: "approve-step", contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}},
		{ns: "approve-foreign", contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.2.0", "rogue.v1.0.0"}},
		{ns: "approve-nocontract", installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}},
	} {
		setUpApproval(t, kube, n)
	}
	bin := buildCLI(t)
	args := []string{"approve", "--once", "--kubeconfig", kubeconfig, "-o", "json",
		"--namespace", "approve-step", "--namespace", "approve-foreign", "--namespace", "approve-nocontract"}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var exitErr *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 {
		t.Fatalf("olm-render %s: %v, want exit 2\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if want := "2 InstallPlans held, 3 namespaces not Healthy\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	var report approve.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("the report: %v\n%s", err, stdout.String())
	}
	var outcomes []string
	for _, p := range report.InstallPlans {
		outcomes = append(outcomes, fmt.Sprintf("%s/%s %s %v", p.Namespace, p.Name, p.Outcome, p.Outside))
	}
	want := []string{"approve-foreign/install-1 Held [rogue.v1.0.0]", "approve-nocontract/install-1 Held []", "approve-step/install-1 Approved []"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("plans %q, want %q", outcomes, want)
	}

	// The cluster: exactly the admitted plan approved, an Event on each plan, the health of each
	// contract on its ConfigMap.
	for ns, want := range map[string]bool{"approve-step": true, "approve-foreign": false, "approve-nocontract": false} {
		if got := planApproved(t, ns, "install-1"); got != want {
			t.Errorf("%s/install-1 approved %v, want %v", ns, got, want)
		}
	}
	for ns, want := range map[string]string{
		"approve-step":       "Normal InstallPlanApproved: approved widget.v1.1.0: the contract of ConfigMap approve-step/olm-render-approval admits every CSV",
		"approve-foreign":    "Warning InstallPlanHeld: held: installs rogue.v1.0.0, outside the contract of ConfigMap approve-foreign/olm-render-approval",
		"approve-nocontract": "Warning InstallPlanHeld: held: no contract: namespace approve-nocontract has no ConfigMap olm-render-approval",
	} {
		if got := planEvents(t, kube, ns, "install-1"); len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("Events on %s/install-1: %q, want one starting %q", ns, got, want)
		}
	}
	for ns, want := range map[string][2]string{
		"approve-step":    {"Progressing", "Subscription widget: InstallPlan install-1, which would move it toward widget.v1.2.0, is approved and installing widget.v1.1.0"},
		"approve-foreign": {"Degraded", "Subscription widget: InstallPlan install-1, which would move it toward widget.v1.2.0, is held: it installs rogue.v1.0.0, outside the contract"},
	} {
		if status, msg := contractHealth(t, kube, ns); status != want[0] || msg != want[1] {
			t.Errorf("health of %s: %s %q, want %s %q", ns, status, msg, want[0], want[1])
		}
	}
}

// TestApproveOnceCeiling runs `olm-render approve --once` on a namespace at its lock, where OLM
// offers the next version: the plan is held as the ceiling, the namespace is Healthy, and the
// run passes the gate (exit 0), saying nothing on stderr.
func TestApproveOnceCeiling(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	kube := kubeClient(t)
	const ns = "approve-ceiling"
	setUpApproval(t, kube, approveNamespace{ns: ns, contract: true, installed: "widget.v1.2.0", csvs: []string{"widget.v1.3.0"}})
	args := []string{"approve", "--once", "--kubeconfig", kubeconfig, "--namespace", ns}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(buildCLI(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("olm-render %s: %v, want exit 0\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q, want nothing", stderr.String())
	}
	for _, want := range []string{
		ns + "  install-1    Held (ceiling)  widget.v1.3.0  installs widget.v1.3.0, outside the contract",
		ns + "  Healthy  at the locked CSVs: widget.v1.2.0; held past the locks: InstallPlan install-1 (widget.v1.3.0)",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout.String())
		}
	}
	if planApproved(t, ns, "install-1") {
		t.Error("install-1, past the lock, was approved")
	}
	if status, _ := contractHealth(t, kube, ns); status != "Healthy" {
		t.Errorf("health of %s: %q, want Healthy", ns, status)
	}
}

// TestApproveOnceDryRun runs `olm-render approve --once --dry-run` on a namespace whose plan the
// contract admits: the report says it would approve it, and the cluster is left as it was: the
// plan unapproved, no Event, no health on the contract.
func TestApproveOnceDryRun(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	kube := kubeClient(t)
	const ns = "approve-dry-run"
	setUpApproval(t, kube, approveNamespace{ns: ns, contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.1.0"}})
	before := resourceVersions(t, kube, ns)
	args := []string{"approve", "--once", "--dry-run", "--kubeconfig", kubeconfig, "--namespace", ns, "-o", "json"}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(buildCLI(t), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var exitErr *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 {
		t.Fatalf("olm-render %s: %v, want exit 2 (the namespace is not Healthy yet)\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if want := "0 InstallPlans held, 1 namespace not Healthy (dry run: nothing written)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	var report approve.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("the report: %v\n%s", err, stdout.String())
	}
	if !report.DryRun || len(report.InstallPlans) != 1 || report.InstallPlans[0].Outcome != approve.OutcomeWouldApprove {
		t.Errorf("report %+v, want a dry run that would approve install-1", report)
	}
	if after := resourceVersions(t, kube, ns); !slices.Equal(before, after) {
		t.Errorf("the dry run changed the namespace: resource versions %q, then %q", before, after)
	}
	if planApproved(t, ns, "install-1") {
		t.Error("install-1 approved by a dry run")
	}
	if got := planEvents(t, kube, ns, "install-1"); len(got) != 0 {
		t.Errorf("Events posted by a dry run: %q", got)
	}
	if status, msg := contractHealth(t, kube, ns); status != "" || msg != "" {
		t.Errorf("health written by a dry run: %s %q", status, msg)
	}
}

// resourceVersions returns what is in a namespace, as "kind/name resourceVersion", sorted: the
// approver's objects and Events.
func resourceVersions(t *testing.T, kube kubernetes.Interface, ns string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, gvr := range []schema.GroupVersionResource{installPlansGVR, subscriptionsGVR, csvsGVR} {
		list, err := dynamicClient(t).Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range list.Items {
			out = append(out, u.GetKind()+"/"+u.GetName()+" "+u.GetResourceVersion())
		}
	}
	cms, err := kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		out = append(out, "ConfigMap/"+cm.Name+" "+cm.ResourceVersion)
	}
	events, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		out = append(out, "Event/"+e.Name+" "+e.ResourceVersion)
	}
	slices.Sort(out)
	return out
}

// TestApproveController runs `olm-render approve` as the Deployment does, on one namespace:
// it approves the plan waiting there, holds the next one (past the ceiling once the locked CSV
// is installed: the namespace stays Healthy), logs both, and exits 0 on SIGTERM.
func TestApproveController(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	kube := kubeClient(t)
	const ns = "approve-controller"
	setUpApproval(t, kube, approveNamespace{ns: ns, contract: true, installed: "widget.v1.1.0", csvs: []string{"widget.v1.2.0"}})
	bin := buildCLI(t)
	cmd := exec.Command(bin, "approve", "--kubeconfig", kubeconfig, "--namespace", ns)
	log := &lockedBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	waitFor(t, "install-1 approved", func() bool { return planApproved(t, ns, "install-1") })

	// OLM installs widget.v1.2.0, the lock, and offers widget.v1.3.0 past it.
	ctx := context.Background()
	dyn := dynamicClient(t)
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]any{"name": "widget.v1.2.0", "namespace": ns},
		"spec":     map[string]any{"displayName": "widget", "version": "1.2.0", "install": map[string]any{"strategy": "deployment"}}}}
	if _, err := dyn.Resource(csvsGVR).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setStatus(t, dyn, csvsGVR, ns, "widget.v1.2.0", map[string]any{"phase": "Succeeded", "reason": "InstallSucceeded"})
	setStatus(t, dyn, installPlansGVR, ns, "install-1", map[string]any{"phase": "Complete", "catalogSources": []any{"community"}})
	next := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan",
		"metadata": map[string]any{"name": "install-2", "namespace": ns},
		"spec":     map[string]any{"approval": "Manual", "approved": false, "generation": int64(2), "clusterServiceVersionNames": []any{"widget.v1.3.0"}}}}
	if _, err := dyn.Resource(installPlansGVR).Namespace(ns).Create(ctx, next, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setStatus(t, dyn, installPlansGVR, ns, "install-2", map[string]any{"phase": "RequiresApproval", "catalogSources": []any{"community"}})
	sub := subscriptionStatus("widget.v1.2.0", time.Now().UTC().Format(time.RFC3339))
	sub["currentCSV"], sub["state"] = "widget.v1.3.0", string(v1alpha1.SubscriptionStateUpgradePending)
	sub["installPlanRef"] = map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "InstallPlan", "name": "install-2", "namespace": ns}
	setStatus(t, dyn, subscriptionsGVR, ns, "widget", sub)

	waitFor(t, "install-2 held", func() bool { return len(planEvents(t, kube, ns, "install-2")) == 1 })
	waitFor(t, "the namespace Healthy", func() bool { s, _ := contractHealth(t, kube, ns); return s == "Healthy" })
	if planApproved(t, ns, "install-2") {
		t.Error("install-2, past the lock, was approved")
	}
	if _, msg := contractHealth(t, kube, ns); msg != "at the locked CSVs: widget.v1.2.0; held past the locks: InstallPlan install-2 (widget.v1.3.0)" {
		t.Errorf("health message %q", msg)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v\n%s", err, log.String())
	}
	for _, line := range []string{
		"watching InstallPlans in namespaces " + ns,
		"approved InstallPlan " + ns + "/install-1 (widget.v1.2.0)",
		"held InstallPlan " + ns + "/install-2 (widget.v1.3.0): installs widget.v1.3.0, outside the contract",
		"namespace " + ns + ": Healthy",
	} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, log.String())
		}
	}
	if got := planEvents(t, kube, ns, "install-1"); len(got) != 1 || !strings.HasPrefix(got[0], "Normal InstallPlanApproved") {
		t.Errorf("Events on install-1: %q", got)
	}
}

// waitFor fails the test unless cond holds within 30 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: not %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lockedBuffer is a buffer one goroutine writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// approverDir is the approver's example: its Deployment, ServiceAccount and RBAC.
const approverDir = "../../examples/approver"

// TestApproverExample applies examples/approver (and its PostSync hook Job) to the API server,
// which checks every field, and runs the approver as its ServiceAccount: the ClusterRole lets it
// approve, post Events and write the health, and patch no ConfigMap but a contract.
func TestApproverExample(t *testing.T) {
	needServer(t)
	applyOLMCRDs(t)
	var k kustomize.Kustomization
	data, err := os.ReadFile(filepath.Join(approverDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", approverDir, err)
	}
	cluster := connect(t)
	for _, r := range append(k.Resources, "argocd-postsync-job.yaml") {
		applyFixture(t, cluster, filepath.Join(approverDir, r))
	}
	kube := kubeClient(t)
	if _, err := kube.AppsV1().Deployments("olm-render-approve").Get(context.Background(), "olm-render-approve", metav1.GetOptions{}); err != nil {
		t.Fatalf("the approver's Deployment: %v", err)
	}
	if _, err := kube.BatchV1().Jobs("olm-render-approve").Get(context.Background(), "olm-render-approve-once", metav1.GetOptions{}); err != nil {
		t.Fatalf("the PostSync hook Job: %v", err)
	}

	const ns = "approve-rbac"
	setUpApproval(t, kube, approveNamespace{ns: ns, contract: true, installed: "widget.v1.0.0", csvs: []string{"widget.v1.2.0"}})
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: ns}}
	if _, err := kube.CoreV1().ConfigMaps(ns).Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	asApprover := rest.CopyConfig(cfg)
	asApprover.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:olm-render-approve:olm-render-approve"}
	clients, err := approve.NewClients(asApprover)
	if err != nil {
		t.Fatal(err)
	}
	// It may list and watch in every namespace, as the Deployment does; the run itself stays in
	// its namespace, leaving the other tests' alone.
	ctx := context.Background()
	for _, gvr := range []schema.GroupVersionResource{installPlansGVR, subscriptionsGVR, csvsGVR} {
		if _, err := clients.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			t.Errorf("listing %s in every namespace as the approver: %v", gvr.Resource, err)
		}
		if w, err := clients.Dynamic.Resource(gvr).Watch(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("watching %s in every namespace as the approver: %v", gvr.Resource, err)
		} else {
			w.Stop()
		}
	}
	contracts := metav1.ListOptions{FieldSelector: "metadata.name=" + contract.ConfigMapName, LabelSelector: contract.Label + "=true"}
	if _, err := clients.Kube.CoreV1().ConfigMaps("").List(ctx, contracts); err != nil {
		t.Errorf("listing the contract ConfigMaps in every namespace as the approver: %v", err)
	}
	report, err := approve.Once(ctx, clients, approve.Options{Namespaces: []string{ns}})
	if err != nil {
		t.Fatalf("approve --once as the example's ServiceAccount: %v", err)
	}
	if !planApproved(t, ns, "install-1") {
		t.Errorf("%s/install-1 not approved: %+v", ns, report.InstallPlans)
	}
	if got := planEvents(t, kube, ns, "install-1"); len(got) != 1 || !strings.HasPrefix(got[0], "Normal InstallPlanApproved") {
		t.Errorf("Events on %s/install-1: %q", ns, got)
	}
	if status, _ := contractHealth(t, kube, ns); status != "Progressing" {
		t.Errorf("health of %s: %q, want Progressing", ns, status)
	}
	patch := []byte(`{"metadata":{"annotations":{"x":"y"}}}`)
	_, err = clients.Kube.CoreV1().ConfigMaps(ns).Patch(ctx, "other", types.MergePatchType, patch, metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("the approver patching a ConfigMap that is no contract: %v, want Forbidden", err)
	}
}

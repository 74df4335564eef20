package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/cluster/approve"
	liverender "github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/cluster/verify"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/contract"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// olmRender is the olm-render binary the running-target tests run the approver from, built
// once per test binary.
var olmRender struct {
	once sync.Once
	path string
	err  error
}

// olmRenderBinary builds olm-render (the module this one replaces, ../..) into a temporary
// directory, once.
func olmRenderBinary(t *testing.T) string {
	t.Helper()
	olmRender.once.Do(func() {
		dir, err := os.MkdirTemp("", "olm-render-bin-")
		if err != nil {
			olmRender.err = err
			return
		}
		olmRender.path = filepath.Join(dir, "olm-render")
		out, err := exec.Command("go", "build", "-o", olmRender.path, "github.com/olm-render/olm-render/cmd/olm-render").CombinedOutput()
		if err != nil {
			olmRender.err = fmt.Errorf("building olm-render: %w\n%s", err, out)
		}
	})
	if olmRender.err != nil {
		t.Fatal(olmRender.err)
	}
	return olmRender.path
}

// approver is `olm-render approve` running against the live cluster, as its Deployment runs in
// one: a process whose kubeconfig acts as the Deployment's ServiceAccount, under the
// ClusterRole examples/approver ships alone (asApprover).
type approver struct {
	cmd  *exec.Cmd
	log  bytes.Buffer
	done chan error
}

// approverDir holds the approver's Deployment, ServiceAccount and RBAC.
var approverDir = filepath.Join("..", "..", "examples", "approver")

// The approver's ServiceAccount in examples/approver.
const approverAccount = "system:serviceaccount:olm-render-approve:olm-render-approve"

// asApprover applies examples/approver's Namespace, ServiceAccount, ClusterRole and
// ClusterRoleBinding, as read from its files, and returns a kubeconfig that impersonates the
// ServiceAccount (its name alone: no group brings in another role), so that the approver runs
// with that ClusterRole and nothing more.
func asApprover(t *testing.T, ctx context.Context, cl *live.Cluster) string {
	t.Helper()
	if err := cl.Apply(ctx, approverObjects(t)...); err != nil {
		t.Fatalf("applying examples/approver's RBAC: %v", err)
	}
	cfg, err := clientcmd.LoadFromFile(cl.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = approverAccount
	}
	path := filepath.Join(filepath.Dir(cl.Kubeconfig), "kubeconfig-approver")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// approverObjects are examples/approver's Namespace, ServiceAccount, ClusterRole and
// ClusterRoleBinding, as read from its files.
func approverObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, f := range []string{"namespace.yaml", "serviceaccount.yaml", "clusterrole.yaml", "clusterrolebinding.yaml"} {
		data, err := os.ReadFile(filepath.Join(approverDir, f))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.UnmarshalStrict(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		objs = append(objs, u)
	}
	return objs
}

// startApprover starts the approver as its ServiceAccount; it is stopped when the test ends.
func startApprover(t *testing.T, ctx context.Context, cl *live.Cluster) *approver {
	t.Helper()
	a := &approver{done: make(chan error, 1)}
	a.cmd = exec.Command(olmRenderBinary(t), "approve", "--kubeconfig", asApprover(t, ctx, cl))
	a.cmd.Stdout, a.cmd.Stderr = &a.log, &a.log
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("starting olm-render approve: %v", err)
	}
	go func() { a.done <- a.cmd.Wait() }()
	t.Cleanup(func() {
		_ = a.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-a.done:
		case <-time.After(10 * time.Second):
			_ = a.cmd.Process.Kill()
			<-a.done
		}
		if t.Failed() {
			t.Logf("olm-render approve's log:\n%s", a.log.String())
		}
	})
	return a
}

// approveOnce runs `olm-render approve --once -o json` as the approver's ServiceAccount, with
// more arguments, and returns its exit status, its report and what it said on stderr.
func approveOnce(t *testing.T, ctx context.Context, cl *live.Cluster, args ...string) (int, *approve.Report, string) {
	t.Helper()
	args = append([]string{"approve", "--once", "-o", "json", "--kubeconfig", asApprover(t, ctx, cl)}, args...)
	cmd := exec.CommandContext(ctx, olmRenderBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("olm-render %s: %v", strings.Join(args, " "), err)
	}
	var report approve.Report
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("olm-render %s: exit %d, no report (%v):\n%s%s", strings.Join(args, " "), code, err, stdout.String(), stderr.String())
	}
	return code, &report, stderr.String()
}

// onceLines renders what approve --once said, for the golden: its exit status and summary,
// each InstallPlan (sorted once its name is a placeholder) and each namespace's health.
func onceLines(code int, r *approve.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  approve --once: exit %d: %s\n", code, r.Summary())
	var plans []string
	for _, p := range r.InstallPlans {
		outcome := string(p.Outcome)
		if p.Ceiling {
			outcome += " (ceiling)"
		}
		if len(p.Outside) > 0 {
			outcome += ", outside the contract: " + strings.Join(p.Outside, ", ")
		}
		plans = append(plans, fmt.Sprintf("    InstallPlan %s (%s): %s\n", generatedNames(p.Name),
			strings.Join(slices.Sorted(slices.Values(p.CSVs)), ", "), outcome))
	}
	slices.Sort(plans)
	b.WriteString(strings.Join(plans, ""))
	for _, n := range r.Namespaces {
		fmt.Fprintf(&b, "    namespace %s: %s (%s)\n", n.Namespace, n.Status, generatedNames(n.Message))
	}
	return b.String()
}

// running is one install where OLM keeps running: the render for TargetRunning applied to the
// live cluster, and what the approver and OLM made of it.
type running struct {
	in         installInputs
	dir        string
	kube       string
	applied    []*unstructured.Unstructured
	prediction []*unstructured.Unstructured
	resolution *resolver.Result
}

// render renders the inputs for a cluster where OLM keeps running, with resolver options (the
// installed CSVs a lock pins).
func (r *running) render(t *testing.T, ctx context.Context, opts resolver.Options) {
	t.Helper()
	out, err := renderWith(ctx, r.in, r.dir, opts, render.Options{Target: render.TargetRunning, KubeVersion: r.kube})
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	r.applied, r.prediction, r.resolution = out.Objects, out.Prediction, out.Resolution
}

// apply applies what the render applies, server-side, as Flux or Argo CD would.
func (r *running) apply(t *testing.T, ctx context.Context, cl *live.Cluster) {
	t.Helper()
	r.applyWhere(t, ctx, cl, func(*unstructured.Unstructured) bool { return true })
}

// applyWhere applies the objects of the render that keep holds for, server-side.
func (r *running) applyWhere(t *testing.T, ctx context.Context, cl *live.Cluster, keep func(*unstructured.Unstructured) bool) {
	t.Helper()
	objs := make([]*unstructured.Unstructured, 0, len(r.applied))
	for _, o := range r.applied {
		if keep(o) {
			objs = append(objs, o.DeepCopy())
		}
	}
	if err := cl.Apply(ctx, objs...); err != nil {
		t.Fatal(err)
	}
}

// verify runs the verification olm-render status does.
func (r *running) verify(t *testing.T, ctx context.Context, cl *live.Cluster) *verify.Report {
	t.Helper()
	lc, err := liverender.Connect(cl.Config)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(ctx, verify.Clients{Dynamic: cl.Dynamic, Live: lc}, r.applied, r.prediction)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// settleLive waits for OLM and the approver to be done: the approver, not the test, approves.
func settleLive(t *testing.T, ctx context.Context, cl *live.Cluster, namespaces ...string) live.Outcome {
	t.Helper()
	out, err := cl.Settle(ctx, namespaces, nil, liveCaseTimeout)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// installPlans returns the InstallPlans of a namespace, by creation.
func installPlans(t *testing.T, ctx context.Context, cl *live.Cluster, ns string) []v1alpha1.InstallPlan {
	t.Helper()
	l, err := cl.OLM.OperatorsV1alpha1().InstallPlans(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(l.Items, func(a, b v1alpha1.InstallPlan) int { return a.Spec.Generation - b.Spec.Generation })
	return l.Items
}

// events returns the messages of the Events with a reason about an object.
func events(t *testing.T, ctx context.Context, cl *live.Cluster, ns, name, reason string) []string {
	t.Helper()
	l, err := cl.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

// csvPhase returns a CSV's phase, "" when it does not exist.
func csvPhase(t *testing.T, ctx context.Context, cl *live.Cluster, ns, name string) v1alpha1.ClusterServiceVersionPhase {
	t.Helper()
	csv, err := cl.OLM.OperatorsV1alpha1().ClusterServiceVersions(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return csv.Status.Phase
}

// contractHealth returns the health the approver wrote on a namespace's contract ConfigMap.
func contractHealth(t *testing.T, ctx context.Context, cl *live.Cluster, ns string) (string, string) {
	t.Helper()
	cm, err := cl.Kube.CoreV1().ConfigMaps(ns).Get(ctx, contract.ConfigMapName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Annotations[contract.HealthAnnotation], cm.Annotations[contract.HealthMessageAnnotation]
}

// waitUntil polls until cond holds, failing the test after a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// reportLines renders a verification report, one item a line, for goldens and messages.
func reportLines(r *verify.Report) string {
	var b strings.Builder
	var lines []string // sorted once the generated names are placeholders
	for _, items := range [][]verify.Item{r.Subscriptions, r.InstallPlans} {
		for _, it := range items {
			lines = append(lines, fmt.Sprintf("  %s: %s: %s\n", generatedNames(it.Name), it.State, generatedNames(it.Message)))
		}
	}
	slices.Sort(lines)
	b.WriteString(strings.Join(lines, ""))
	counts := map[verify.State]int{}
	for _, it := range r.Objects {
		counts[it.State]++
		if it.State != verify.OK {
			fmt.Fprintf(&b, "  %s: %s: %s\n", it.Name, it.State, it.Message)
		}
	}
	fmt.Fprintf(&b, "  predicted objects: %d ok, %d known, %d drift, %d in progress; exit %d\n",
		counts[verify.OK], counts[verify.Known], counts[verify.Drift], counts[verify.InProgress], r.ExitCode())
	return b.String()
}

// installPlanName matches an InstallPlan's generated name.
var installPlanName = regexp.MustCompile(`\binstall-[a-z0-9]{5}\b`)

// generatedNames replaces the random suffix of InstallPlan names in a message.
func generatedNames(s string) string {
	return installPlanName.ReplaceAllString(s, "install-xxxxx")
}

// editDeployment changes a Deployment's first container's image behind OLM's back, as
// `kubectl set image` does.
func editDeployment(t *testing.T, ctx context.Context, cl *live.Cluster, ns, name, image string) {
	t.Helper()
	d, err := cl.Kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.Containers[0].Image = image
	if _, err := cl.Kube.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

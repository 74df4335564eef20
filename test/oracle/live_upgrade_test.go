package oracle

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// liveUpgradeGolden records the steps of TestLiveUpgrade.
const liveUpgradeGolden = "testdata/live-upgrade.txt"

// upgradeCase is the chain TestLiveUpgrade walks: etcd's singlenamespace-alpha channel, whose
// bundles replace one another (0.9.0, 0.9.2, 0.9.4), from its first bundle.
var upgradeCase = wholeCase{Catalog: liveCatalog, Package: "etcd", Channel: "singlenamespace-alpha",
	Bundle: "etcdoperator.v0.9.0", Mode: v1alpha1.InstallModeTypeOwnNamespace}

// TestLiveUpgrade upgrades an operator along a real replaces chain with OLM's own controllers,
// one InstallPlan at a time, and holds the cluster after every step against olm-render's render
// of that step. The Subscription is Manual, starting at the chain's first bundle. At each step
// olm-render resolves from the CSV installed so far (what `olm-render upgrade` does to the
// lock) and the test approves the InstallPlan OLM made only if it installs exactly the CSV
// olm-render chose; it waits until OLM settles, and compares every object with the render of
// the step as the API server stores it. The walk ends when olm-render finds no further step,
// and OLM must then have nothing more to install either.
func TestLiveUpgrade(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	cl := liveCluster(t)
	quietOLMLogs()
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
	inputDir := filepath.Join(tmp, "inputs")
	if err := os.Mkdir(inputDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in := upgradeCase.inputs()
	in.Subscription.Spec.InstallPlanApproval = v1alpha1.ApprovalManual
	in.CatalogSource.Spec.Address = srv.Address
	if in, err = bindCatalog(in, fbc, inputDir); err != nil {
		t.Fatal(err)
	}
	if err := cl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	kube := serverVersion(t, cl)
	subKey := in.Subscription.Namespace + "/" + in.Subscription.Name
	var report bytes.Buffer
	fmt.Fprintf(&report, "# %s upgraded one step at a time by OLM v0.46.0's own controllers on a real API server,\n", upgradeCase.Package)
	fmt.Fprintf(&report, "# each step chosen by olm-render and compared with its render: TestLiveUpgrade\n")
	fmt.Fprintf(&report, "# (regenerate with: go test -run TestLiveUpgrade -update .)\n")
	installed := ""
	for step := 0; ; step++ {
		if step > 5 {
			t.Fatal("the chain did not end after 5 steps")
		}
		opts := resolver.Options{}
		if installed != "" {
			opts.Installed = map[string]string{subKey: installed}
		}
		o, err := renderResolved(ctx, in, inputDir, kube, opts)
		if err != nil {
			t.Fatalf("step %d: render: %v", step, err)
		}
		want := chosenCSV(o.Resolution, subKey)
		if want == installed {
			fmt.Fprintf(&report, "\nstep %d: olm-render: no upgrade from %s\n", step, installed)
			checkNothingToInstall(t, cl, ctx, in.Subscription.Namespace, installed)
			break
		}
		objs := make([]map[string]any, 0, len(o.Objects))
		for _, u := range o.Objects {
			objs = append(objs, u.Object)
		}
		r := upgradeStep(t, ctx, cl, in, objs, want, step == 0)
		fmt.Fprintf(&report, "\nstep %d: olm-render chooses %s (%s)\n", step, want, selectionReason(o.Resolution, subKey))
		fmt.Fprintf(&report, "  OLM: installed %s; approved %s; held %s\n", r.installedCSV, strings.Join(r.approved, ", "), strings.Join(r.held, ", "))
		for _, cl := range slices.SortedFunc(maps.Keys(r.result.Classes), compareClasses) {
			if isTiming(cl) {
				continue
			}
			fmt.Fprintf(&report, "  %s (%d)\n", cl, r.result.Classes[cl])
		}
		if r.installedCSV != want {
			t.Fatalf("step %d: OLM installed %q, olm-render chose %q", step, r.installedCSV, want)
		}
		installed = want
	}
	checkGolden(t, liveUpgradeGolden, report.Bytes())
}

// stepResult is the cluster after one upgrade step.
type stepResult struct {
	installedCSV string
	approved     []string // the CSVs of the InstallPlans approved
	held         []string // the InstallPlans held
	result       *caseResult
}

// upgradeStep stores the step's render, applies the inputs on the first step, lets OLM settle,
// approving only the InstallPlan that installs want, and compares the cluster with the render.
func upgradeStep(t *testing.T, ctx context.Context, cl *live.Cluster, in installInputs, out []map[string]any, want string, first bool) stepResult {
	t.Helper()
	side := &liveSide{}
	var rendered []*unstructured.Unstructured
	for _, o := range out {
		rendered = append(rendered, &unstructured.Unstructured{Object: o})
	}
	if first {
		nss := make([]any, 0, len(in.Namespaces))
		for _, ns := range in.Namespaces {
			nss = append(nss, ns)
		}
		namespaces, err := unstructuredOf(nss...)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Apply(ctx, namespaces...); err != nil {
			t.Fatal(err)
		}
	}
	if err := side.store(ctx, cl, rendered); err != nil {
		t.Fatal(err)
	}
	for _, msg := range side.Refused {
		t.Errorf("the API server refuses a rendered object: %s", msg)
	}
	if first {
		rest, err := unstructuredOf(in.OperatorGroup, in.CatalogSource, in.Subscription)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Apply(ctx, rest...); err != nil {
			t.Fatal(err)
		}
	}
	var res stepResult
	approve := func(ip *v1alpha1.InstallPlan) bool {
		ok := slices.Equal(ip.Spec.ClusterServiceVersionNames, []string{want})
		if ok {
			res.approved = append(res.approved, strings.Join(ip.Spec.ClusterServiceVersionNames, "+"))
		}
		return ok
	}
	outcome, err := cl.Settle(ctx, []string{in.Subscription.Namespace}, approve, liveCaseTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Failure != "" {
		t.Fatalf("OLM failed to install %s: %s", want, outcome.Failure)
	}
	for _, name := range outcome.Held {
		ip, err := cl.OLM.OperatorsV1alpha1().InstallPlans(in.Subscription.Namespace).Get(ctx, strings.TrimPrefix(name, in.Subscription.Namespace+"/"), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res.held = append(res.held, strings.Join(ip.Spec.ClusterServiceVersionNames, "+"))
	}
	sub, err := cl.OLM.OperatorsV1alpha1().Subscriptions(in.Subscription.Namespace).Get(ctx, in.Subscription.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res.installedCSV = sub.Status.InstalledCSV
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	side.OLM = &olmResult{}
	for _, o := range snap {
		side.OLM.Objects = append(side.OLM.Objects, o.Object)
	}
	if err := side.dump(fmt.Sprintf("upgrade-%s", want)); err != nil {
		t.Fatal(err)
	}
	res.result = &caseResult{}
	judgeLive(res.result, side, in, nil)
	for cl := range res.result.Classes {
		if isUnknown(cl) && !isLiveKnown(cl) {
			t.Errorf("%s: difference class not known: %s (e.g. %s)", want, cl, res.result.Examples[cl].describe())
		}
	}
	if res.result.Cmp != nil {
		for _, d := range res.result.Cmp.Diffs {
			if slices.ContainsFunc(d.classes(), func(cl differenceClass) bool { return isUnknown(cl) && !isLiveKnown(cl) }) {
				t.Logf("%s: %s", want, describeDiff(d))
			}
		}
	}
	return res
}

// checkNothingToInstall checks that OLM proposes nothing past the installed CSV: no
// InstallPlan waits for approval.
func checkNothingToInstall(t *testing.T, cl *live.Cluster, ctx context.Context, namespace, installed string) {
	t.Helper()
	plans, err := cl.OLM.OperatorsV1alpha1().InstallPlans(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range plans.Items {
		if ip.Status.Phase == v1alpha1.InstallPlanPhaseRequiresApproval && !ip.Spec.Approved {
			t.Errorf("olm-render finds no upgrade from %s, but OLM's InstallPlan %s waits to install %v", installed, ip.Name, ip.Spec.ClusterServiceVersionNames)
		}
	}
}

// chosenCSV is the bundle a resolution chose for a Subscription ("namespace/name").
func chosenCSV(res *resolver.Result, sub string) string {
	if s := selectionOf(res, sub); s != nil {
		return s.Bundle.Name
	}
	return ""
}

// selectionReason is why a resolution chose a Subscription's bundle.
func selectionReason(res *resolver.Result, sub string) string {
	if s := selectionOf(res, sub); s != nil {
		return s.Reason
	}
	return ""
}

// selectionOf returns a Subscription's selection.
func selectionOf(res *resolver.Result, sub string) *resolver.Selection {
	for _, ns := range res.Namespaces {
		for _, s := range ns.Selections {
			if s.Subscription.Namespace+"/"+s.Subscription.Name == sub {
				return s
			}
		}
	}
	return nil
}

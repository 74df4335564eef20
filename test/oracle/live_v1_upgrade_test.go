package oracle

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// liveV1UpgradeGolden records the hops of TestLiveV1Upgrade.
const liveV1UpgradeGolden = "testdata/live-v1-upgrade.txt"

// v1UpgradeCase is the chain TestLiveV1Upgrade walks: kube-green's alpha channel, whose bundles
// replace one another, from 0.6.0 (then 0.7.0, then 0.7.1, its head): two hops.
var v1UpgradeCase = wholeCase{Catalog: filepath.Join(liveCatalog, "kube-green"), Package: "kube-green", Channel: "alpha",
	Bundle: "kube-green.v0.6.0", Mode: v1alpha1.InstallModeTypeAllNamespaces}

// TestLiveV1Upgrade upgrades an operator with operator-controller one pin per hop, each hop
// chosen by olm-render, and holds the cluster after every hop against olm-render's render of
// it. The ClusterExtension is installed pinned to the chain's first bundle; at each hop
// olm-render resolves from the bundle installed so far (what `olm-render upgrade` does to the
// lock) and its choice must be the hop --olm=v1 proposes (olmv1.NextHop); before the first
// hop, a pin that jumps two hops is applied, which operator-controller must refuse as
// olmv1.CheckHop does; then the ClusterExtension the render writes (pinned to the hop) is
// applied, operator-controller must install that bundle, and every object is compared with
// the render and its prediction as TestLiveV1Corpus compares them. The walk ends when
// olm-render proposes no further hop.
func TestLiveV1Upgrade(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	quietOLMLogs()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cl := liveV1Cluster(t, false, nil)
	path := catalogPath(v1UpgradeCase.Catalog)
	pub := publishV1(t, path, v1UpgradeCase.Package)
	index, err := indexByDigest(pub.Index)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ourCatalog(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := v1UpgradeCase.inputs()
	in.CatalogSource.Spec.Image = index
	if in, err = bindCatalog(in, path, dir); err != nil {
		t.Fatal(err)
	}
	u := &v1Upgrade{cl: cl, in: in, dir: dir, kube: serverVersion(t, cl), cat: cat}
	fmt.Fprintf(&u.report, "# %s upgraded one pin per hop by operator-controller %s on a real API server, each hop\n", v1UpgradeCase.Package, live.OperatorControllerVersion)
	fmt.Fprintf(&u.report, "# chosen by olm-render --olm=v1 and compared with its render: TestLiveV1Upgrade\n")
	fmt.Fprintf(&u.report, "# (regenerate with: go test -run TestLiveV1Upgrade -update .)\n")
	subKey := in.Subscription.Namespace + "/" + in.Subscription.Name
	installed, hops := "", 0
	for hop := 0; ; hop++ {
		if hop > 5 {
			t.Fatal("the chain did not end after 5 hops")
		}
		next, done := u.next(t, ctx, installed)
		if done {
			fmt.Fprintf(&u.report, "\nhop %d: olm-render proposes no hop from %s\n", hop, installed)
			break
		}
		if hop == 1 {
			u.refuseJump(t, ctx, installed)
		}
		u.hop(t, ctx, hop, next, selectionOf(next.Resolution, subKey).Bundle)
		installed = chosenCSV(next.Resolution, subKey)
		if hop > 0 {
			hops++
		}
	}
	if hops != 2 {
		t.Errorf("%d hops after the install, want 2", hops)
	}
	checkGolden(t, liveV1UpgradeGolden, u.report.Bytes())
}

// v1Upgrade is TestLiveV1Upgrade's walk.
type v1Upgrade struct {
	cl     *live.Cluster
	in     installInputs
	dir    string
	kube   string
	cat    *catalog.Catalog
	report bytes.Buffer
}

// next renders the hop from installed ("" for the install): olm-render resolves from the
// bundle installed, and its choice must be the hop --olm=v1 proposes. done says there is no
// further hop.
func (u *v1Upgrade) next(t *testing.T, ctx context.Context, installed string) (out *pipeline.Output, done bool) {
	t.Helper()
	subKey := u.in.Subscription.Namespace + "/" + u.in.Subscription.Name
	opts := resolver.Options{}
	if installed != "" {
		opts.Installed = map[string]string{subKey: installed}
	}
	out, err := renderWith(ctx, u.in, u.dir, opts, render.Options{KubeVersion: u.kube, Target: render.TargetV1})
	if err != nil {
		t.Fatalf("render from %q: %v", installed, err)
	}
	want := chosenCSV(out.Resolution, subKey)
	if installed == "" {
		return out, false
	}
	pkg := u.cat.Package(v1UpgradeCase.Package)
	hop := olmv1.NextHop(u.cat, v1UpgradeCase.Package, pkg.Bundle(installed), []string{v1UpgradeCase.Channel})
	switch {
	case hop == nil && want == installed:
		return nil, true
	case hop == nil || hop.Name != want:
		t.Fatalf("from %s olm-render resolves %s, and --olm=v1 proposes the hop %v", installed, want, hop)
	}
	return out, false
}

// refuseJump pins the ClusterExtension two hops past the installed bundle: olmv1.CheckHop
// must refuse the jump, and operator-controller must keep the installed bundle and say why.
func (u *v1Upgrade) refuseJump(t *testing.T, ctx context.Context, installed string) {
	t.Helper()
	pkg := u.cat.Package(v1UpgradeCase.Package)
	head := pkg.Bundle("kube-green.v0.7.1")
	checkErr := olmv1.CheckHop(u.cat, v1UpgradeCase.Package, pkg.Bundle(installed), head, []string{v1UpgradeCase.Channel})
	if checkErr == nil {
		t.Fatalf("olmv1.CheckHop takes %s to %s in one pin", installed, head.Name)
	}
	e := extensionOf(v1UpgradeCase, u.in, u.cat)
	e.Version = head.Version.String()
	if err := u.cl.Apply(ctx, clusterExtension(e)); err != nil {
		t.Fatal(err)
	}
	out, err := u.cl.SettleV1(ctx, []string{e.Name}, v1CaseTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if out.Installed[e.Name] != "" || out.Refused[e.Name] == "" {
		t.Fatalf("operator-controller took the pin from %s to %s: %+v", installed, head.Name, out)
	}
	fmt.Fprintf(&u.report, "\njump from %s to %s in one pin:\n  olm-render: %s\n  operator-controller: %s\n",
		installed, head.Name, firstLine(checkErr.Error()), firstLine(out.Refused[e.Name]))
}

// hop applies a hop's render and compares the cluster with it once operator-controller
// installed the bundle chosen.
func (u *v1Upgrade) hop(t *testing.T, ctx context.Context, n int, out *pipeline.Output, want *catalog.Bundle) {
	t.Helper()
	side := &v1Side{liveSide: liveSide{OLM: &olmResult{}}}
	var first, extensions []*unstructured.Unstructured
	for _, o := range out.Objects {
		if o.GetKind() == "ClusterExtension" {
			extensions = append(extensions, o)
		} else {
			first = append(first, o)
		}
	}
	if n == 0 {
		if err := u.cl.Apply(ctx, first...); err != nil {
			t.Fatal(err)
		}
	}
	prediction := make([]*unstructured.Unstructured, 0, len(out.Prediction))
	for _, p := range out.Prediction {
		prediction = append(prediction, withoutPredictionMarks(p))
	}
	if err := side.store(ctx, u.cl, slices.Concat(out.Objects, prediction)); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		if err := u.cl.WaitCatalogsServing(ctx, []string{u.in.CatalogSource.Name}, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if err := u.cl.Apply(ctx, extensions...); err != nil {
		t.Fatal(err)
	}
	settled, err := u.cl.SettleV1(ctx, []string{extensions[0].GetName()}, v1CaseTimeout)
	if err != nil {
		t.Fatal(err)
	}
	got := settled.Installed[extensions[0].GetName()]
	if got != want.Name+" "+want.Version.String() {
		t.Fatalf("hop %d: operator-controller installed %q (%s), olm-render pinned %s", n, got, settled.Failure(), want.Name)
	}
	snap, err := u.cl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap {
		side.OLM.Objects = append(side.OLM.Objects, o.Object)
	}
	r := &v1Case{Case: v1UpgradeCase, Verdict: olmv1.Eligible, Installed: got, Result: &caseResult{Case: v1UpgradeCase}}
	judgeV1(r, side)
	if err := side.dump(fmt.Sprintf("v1-upgrade-hop-%d", n)); err != nil {
		t.Fatal(err)
	}
	what := "installs"
	if n > 0 {
		what = "hop to"
	}
	fmt.Fprintf(&u.report, "\nhop %d: olm-render %s %s (ClusterExtension pinned to %s)\n", n, what, want.Name, want.Version)
	fmt.Fprintf(&u.report, "  operator-controller: installed %s; %s\n", got, r.Result.Verdict)
	for _, cl := range slices.SortedFunc(maps.Keys(r.Result.Classes), compareClasses) {
		fmt.Fprintf(&u.report, "  %s (%d)\n", cl, r.Result.Classes[cl])
	}
	for _, f := range r.failures() {
		t.Errorf("hop %d: %s", n, f)
	}
}

package oracle

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/sirupsen/logrus"
	"k8s.io/klog/v2"

	"github.com/olm-render/olm-render/test/oracle/live"
)

var liveCases = flag.String("live-cases", "", "TestLiveInstall: run only the cases whose name contains one of these comma-separated strings (the report goes to $TMPDIR/live-report-some.txt)")

// liveReport is the report TestLiveInstall compares with (and writes with -update).
const liveReport = "testdata/live-report.txt"

// liveCatalog is the catalog of the live differential, under the shared corpus: its newest
// bundles are installed, each in every install mode it supports.
const liveCatalog = "operators"

// liveCaseTimeout bounds how long live OLM may take to settle one case.
const liveCaseTimeout = 2 * time.Minute

// liveCase is one case of the live differential, judged by both yardsticks against the same
// render: live OLM on a real API server, and OLM's code in process on a fake cluster.
type liveCase struct {
	Case      wholeCase
	Live      *caseResult
	InProcess *caseResult
	Took      time.Duration
}

// TestLiveInstall is the live differential: the newest bundle of every package of the corpus's
// operators catalog, in every install mode its CSV supports, installed by OLM v0.46.0's own
// controllers on a real API server from a file-based catalog made of the bundles and served
// over gRPC, and rendered by olm-render from the same catalog. Every object OLM created is
// compared with the render as the API server stores it; every difference must be of a known
// class. The same cases run through the in-process oracle (TestWholeInstall's fake cluster),
// and every case where the two yardsticks disagree must be explained. testdata/live-report.txt
// holds both tables side by side.
func TestLiveInstall(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	cl := liveCluster(t)
	quietOLMLogs()
	ctx := context.Background()
	tmp := t.TempDir()
	fbc := filepath.Join(tmp, "fbc")
	dropped, err := liveFBC(catalogPath(liveCatalog), fbc)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := live.ServeCatalog(ctx, os.DirFS(fbc))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	tree, err := ourCatalog(catalogPath(liveCatalog))
	if err != nil {
		t.Fatal(err)
	}
	fbcCatalog, err := ourCatalog(fbc)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := loadRegistryCatalog(ctx, fbc, fbcCatalog, tmp)
	if err != nil {
		t.Fatalf("building OLM's registry of the catalog: %v", err)
	}
	cases, err := casesOf(liveCatalog, tree)
	if err != nil {
		t.Fatal(err)
	}
	cases = channelHeads(tree, cases)
	if *liveCases != "" {
		cases = slices.DeleteFunc(cases, func(c wholeCase) bool {
			return !slices.ContainsFunc(strings.Split(*liveCases, ","), func(s string) bool { return strings.Contains(c.String(), s) })
		})
	}
	kube := serverVersion(t, cl)
	start := time.Now()
	var results []*liveCase
	for _, c := range cases {
		r := runLiveCase(ctx, cl, c, liveBinding{fbc: fbc, address: srv.Address, dropped: dropped, reg: reg, kube: kube}, tmp)
		t.Logf("%s: live %s, in-process %s (%s)", c, r.Live.Verdict, r.InProcess.Verdict, r.Took.Round(100*time.Millisecond))
		results = append(results, r)
	}
	t.Logf("%d cases in %s", len(cases), time.Since(start).Round(time.Second))
	for _, r := range results {
		for _, f := range append(slices.Clone(r.Live.Failures), r.InProcess.Failures...) {
			t.Errorf("%s: %s", r.Case, f)
		}
		for cl := range r.Live.Classes {
			if isUnknown(cl) && !isLiveKnown(cl) {
				t.Errorf("%s: live difference class not known: %s (e.g. %s)", r.Case, cl, r.Live.Examples[cl].describe())
			}
		}
		for cl := range r.InProcess.Classes {
			if isUnknown(cl) {
				t.Errorf("%s: in-process difference class not known: %s (e.g. %s)", r.Case, cl, r.InProcess.Examples[cl].describe())
			}
		}
		for _, d := range yardstickDisagreements(r) {
			if d.Reason == "" {
				t.Errorf("%s: the yardsticks disagree, unexplained: %s", r.Case, d.What)
			}
		}
		if r.Live.Cmp != nil {
			for _, d := range r.Live.Cmp.Diffs {
				if slices.ContainsFunc(d.classes(), func(cl differenceClass) bool { return isUnknown(cl) && !isLiveKnown(cl) }) {
					t.Logf("%s: %s", r.Case, describeDiff(d))
				}
			}
		}
	}
	full := filepath.Join(os.TempDir(), "live-report-full.txt")
	if err := os.WriteFile(full, liveReportText(results, true), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("this run's full report (per-kind table, timing-dependent classes): %s", full)
	if *liveCases != "" {
		return
	}
	checkGolden(t, liveReport, liveReportText(results, false))
}

// quietOLMLogs silences the logs of OLM's code running in process.
func quietOLMLogs() {
	logrus.SetOutput(io.Discard)
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	klog.SetLogger(logr.Discard())
}

// liveBinding is what every case of the live differential shares: the catalog OLM is served
// and olm-render reads, and the in-process registry of it.
type liveBinding struct {
	fbc     string            // the file-based catalog's directory
	address string            // where it is served
	dropped map[string]string // channels opm refuses, by package/channel
	reg     *registryCatalog  // OLM's registry of it, for the in-process oracle
	kube    string            // the API server's version
}

// runLiveCase renders a case, installs it with live OLM and with OLM's code in process, and
// judges both against the render.
func runLiveCase(ctx context.Context, cl *live.Cluster, c wholeCase, b liveBinding, tmp string) *liveCase {
	r := &liveCase{Case: c, Live: &caseResult{Case: c}, InProcess: &caseResult{Case: c}}
	fail := func(format string, args ...any) *liveCase {
		for _, side := range []*caseResult{r.Live, r.InProcess} {
			if side.Verdict == "" {
				side.Verdict = "error"
				side.Reason = fmt.Sprintf(format, args...)
				side.Failures = append(side.Failures, side.Reason)
			}
		}
		return r
	}
	if why, ok := b.dropped[c.Package+"/"+c.Channel]; ok {
		for _, side := range []*caseResult{r.Live, r.InProcess} {
			side.Verdict = "not comparable"
			side.Reason = "OLM's catalog lacks the channel: opm refuses it (" + lastLine(why) + ")"
		}
		return r
	}
	dir, err := os.MkdirTemp(tmp, "case-")
	if err != nil {
		return fail("%v", err)
	}
	inputDir := filepath.Join(dir, "inputs")
	if err := os.Mkdir(inputDir, 0o755); err != nil {
		return fail("%v", err)
	}
	in := c.inputs()
	in.CatalogSource.Spec.Address = b.address
	if in, err = bindCatalog(in, b.fbc, inputDir); err != nil {
		return fail("%v", err)
	}
	out, renderErr := guarded(func() ([]map[string]any, error) { return renderMaps(ctx, in, inputDir, b.kube) })
	var panicked *panicError
	if errors.As(renderErr, &panicked) {
		return fail("olm-render side: %v", renderErr)
	}
	ctxCase, cancel := context.WithTimeout(ctx, liveCaseTimeout+resetAllowance)
	defer cancel()
	side, err := installLive(ctxCase, cl, in, out, live.ApproveAll, liveCaseTimeout)
	if err != nil {
		r.Live.Verdict = "error"
		r.Live.Reason = "live side: " + err.Error()
		r.Live.Failures = append(r.Live.Failures, r.Live.Reason)
	} else {
		r.Took = side.Took
		if err := side.dump(c.String()); err != nil {
			return fail("%v", err)
		}
		judgeLive(r.Live, side, in, renderErr)
	}
	olm, err := guarded(func() (*olmResult, error) { return installWithOLM(ctx, in, b.reg, dir) })
	if err != nil {
		r.InProcess.Verdict = "error"
		r.InProcess.Reason = "in-process side: " + err.Error()
		r.InProcess.Failures = append(r.InProcess.Failures, r.InProcess.Reason)
		return r
	}
	stored, err := storedRender(out)
	if err != nil {
		return fail("%v", err)
	}
	judge(r.InProcess, olm, stored, renderErr)
	return r
}

// resetAllowance is the time a case may spend on resetting the cluster and storing the render,
// beyond liveCaseTimeout.
const resetAllowance = 3 * time.Minute

// inDeclaredNamespaces splits the objects OLM created into those the render can have (cluster-
// scoped, in a namespace the inputs declare, or rendered) and the classes of the others: a
// render knows only the declared namespaces, while OLM also writes into the cluster's own (a
// global OperatorGroup's copied CSVs in default, kube-system, kube-public and kube-node-lease).
func inDeclaredNamespaces(objs, rendered []map[string]any, in installInputs) ([]map[string]any, map[differenceClass]classExample) {
	declared := map[string]bool{}
	for _, ns := range in.Namespaces {
		declared[ns.Name] = true
	}
	ours := map[objectID]bool{}
	for _, o := range rendered {
		ours[idOf(o)] = true
	}
	var kept []map[string]any
	outside := map[differenceClass]classExample{}
	for _, o := range objs {
		id := idOf(o)
		if id.Namespace == "" || declared[id.Namespace] || ours[id] {
			kept = append(kept, o)
			continue
		}
		if _, ignored := ignoredKinds[id.Kind]; ignored {
			continue
		}
		cl := differenceClass{Kind: kindOf(id), Path: outsidePath, Side: sideOLM}
		outside[cl] = classExample{Object: id}
	}
	return kept, outside
}

// judgeLive judges a live case: it normalises both sides, compares them, names the RBAC
// objects OLM lifted or copied from rendered ones, and adds the classes of what OLM wrote
// outside the declared namespaces and of rendered objects the API server refused.
func judgeLive(r *caseResult, side *liveSide, in installInputs, renderErr error) {
	outside := side.normalise(in)
	judge(r, side.OLM, side.Stored, renderErr)
	if r.Cmp != nil {
		nameRBACCopies(r.Cmp, side.Stored)
		r.Classes, r.Examples = r.Cmp.classes()
		r.Classes, r.Examples = placeholdComponentLabels(r.Classes), placeholdComponentLabelExamples(r.Examples)
	}
	addClasses(r, outside)
	addClasses(r, refusedClasses(side.Refused))
}

// The classes of RBAC OLM derives from a CSV's Roles and RoleBindings when it finds the CSV's
// permissions not yet met through its informers' caches (operators/olm/operatorgroup.go
// ensureSingletonRBAC, ensureTenantRBAC).
const (
	liftedPath = "(lifted from the CSV's Role or RoleBinding of that name)"
	copiedPath = "(copied from the CSV's Role or RoleBinding of that name into a target namespace)"
)

// nameRBACCopies names the class of the RBAC objects only OLM wrote that it lifted to cluster
// scope or copied into a target namespace from a Role or RoleBinding of the render.
func nameRBACCopies(c *comparison, stored []map[string]any) {
	rendered := map[string]map[string]bool{} // kind -> namespace/name
	for _, o := range stored {
		id := idOf(o)
		if rendered[id.Kind] == nil {
			rendered[id.Kind] = map[string]bool{}
		}
		rendered[id.Kind][id.Namespace+"/"+id.Name] = true
	}
	inOtherNamespace := func(kind, ns, name string) bool {
		for key := range rendered[kind] {
			other, n, _ := strings.Cut(key, "/")
			if n == name && other != ns && other != "" {
				return true
			}
		}
		return false
	}
	for i := range c.Diffs {
		d := &c.Diffs[i]
		if d.Side != sideOLM {
			continue
		}
		switch d.ID.Kind {
		case "ClusterRole":
			if inOtherNamespace("Role", "", d.ID.Name) {
				d.Why = liftedPath
			}
		case "ClusterRoleBinding":
			if inOtherNamespace("RoleBinding", "", d.ID.Name) {
				d.Why = liftedPath
			}
		case "Role", "RoleBinding":
			if inOtherNamespace(d.ID.Kind, d.ID.Namespace, d.ID.Name) {
				d.Why = copiedPath
			}
		}
	}
}

// componentLabel matches the path of the operators.coreos.com/<package>.<namespace> label.
var componentLabel = regexp.MustCompile(`^metadata\.labels\["operators\.coreos\.com/[^"]+"\]$`)

// componentLabelPath is the path of every operators.coreos.com/<package>.<namespace> label.
const componentLabelPath = `metadata.labels["operators.coreos.com/<package>.<namespace>"]`

// placeholdComponentLabels merges the classes of the component labels of every package and
// namespace into one.
func placeholdComponentLabels(classes map[differenceClass]int) map[differenceClass]int {
	out := map[differenceClass]int{}
	for cl, n := range classes {
		if componentLabel.MatchString(cl.Path) {
			cl.Path = componentLabelPath
		}
		out[cl] += n
	}
	return out
}

// placeholdComponentLabelExamples is placeholdComponentLabels for the examples.
func placeholdComponentLabelExamples(examples map[differenceClass]classExample) map[differenceClass]classExample {
	out := map[differenceClass]classExample{}
	for cl, ex := range examples {
		if componentLabel.MatchString(cl.Path) {
			cl.Path = componentLabelPath
		}
		if _, ok := out[cl]; !ok {
			out[cl] = ex
		}
	}
	return out
}

// normalise prepares both sides of a live case for the comparison: it sets aside what OLM
// wrote into namespaces the inputs do not declare (returning its classes), names the UIDs in
// OperatorGroup label keys <uid>, and drops the cluster IPs the API server allocated.
func (side *liveSide) normalise(in installInputs) map[differenceClass]classExample {
	objs, outside := inDeclaredNamespaces(side.OLM.Objects, side.Stored, in)
	side.OLM.Objects = placeholdGeneratedNames(dropAllocatedClusterIPs(placeholdOperatorGroupUIDs(objs)))
	side.Stored = dropAllocatedClusterIPs(side.Stored)
	return outside
}

// placeholdGeneratedNames replaces the random suffix the API server gives an object created
// with generateName (InstallPlans, webhook configurations) with x's, numbering those that
// share a prefix in creation order, so that reports name them the same in every run.
func placeholdGeneratedNames(objs []map[string]any) []map[string]any {
	groups := map[string][]map[string]any{}
	for _, o := range objs {
		md := mapOf(o["metadata"])
		gen := str(md["generateName"])
		if gen == "" || !strings.HasPrefix(str(md["name"]), gen) {
			continue
		}
		key := str(o["kind"]) + "/" + str(md["namespace"]) + "/" + gen
		groups[key] = append(groups[key], o)
	}
	for _, group := range groups {
		slices.SortFunc(group, func(a, b map[string]any) int {
			ma, mb := mapOf(a["metadata"]), mapOf(b["metadata"])
			return cmp.Or(strings.Compare(str(ma["creationTimestamp"]), str(mb["creationTimestamp"])), strings.Compare(str(ma["name"]), str(mb["name"])))
		})
		for i, o := range group {
			md := mapOf(o["metadata"])
			md["name"] = str(md["generateName"]) + "xxxxx"
			if len(group) > 1 {
				md["name"] = fmt.Sprintf("%sxxx%02d", str(md["generateName"]), i+1)
			}
		}
	}
	return objs
}

// dropAllocatedClusterIPs removes the cluster IPs the API server allocated to Services (on the
// live side when OLM created them, on the render's side when its dry-run create did): a
// Service's spec.clusterIP and spec.clusterIPs, unless they say "None" (a headless Service,
// which the manifest asks for).
func dropAllocatedClusterIPs(objs []map[string]any) []map[string]any {
	for _, o := range objs {
		if o["kind"] != "Service" || o["apiVersion"] != "v1" {
			continue
		}
		spec := mapOf(o["spec"])
		if spec["clusterIP"] != "None" {
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
		}
	}
	return objs
}

// operatorGroupUID matches the label key OLM gives an OperatorGroup's target namespaces.
var operatorGroupUID = regexp.MustCompile(`^olm\.operatorgroup\.uid/[0-9a-f-]+$`)

// placeholdOperatorGroupUIDs replaces the UID in the olm.operatorgroup.uid/<uid> label keys of
// Namespaces (and of the namespace selectors of webhooks, which select by it) with "<uid>",
// so that a difference in them is one class whatever UID the API server gave the OperatorGroup.
func placeholdOperatorGroupUIDs(objs []map[string]any) []map[string]any {
	rename := func(m map[string]any) {
		for k, v := range m {
			if operatorGroupUID.MatchString(k) {
				delete(m, k)
				m["olm.operatorgroup.uid/<uid>"] = v
			}
		}
	}
	for _, o := range objs {
		switch o["kind"] {
		case "Namespace":
			rename(mapOf(mapOf(o["metadata"])["labels"]))
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			for _, w := range listOf(o["webhooks"]) {
				rename(mapOf(mapOf(mapOf(w)["namespaceSelector"])["matchLabels"]))
			}
		}
	}
	return objs
}

// refusedClasses are the classes of rendered objects the API server refuses.
func refusedClasses(refused []string) map[differenceClass]classExample {
	out := map[differenceClass]classExample{}
	for _, msg := range refused {
		out[differenceClass{Kind: "(render)", Path: "refused by the API server", Side: sideOurs}] = classExample{Path: msg}
	}
	return out
}

// addClasses adds classes to a judged case; a case with new classes differs.
func addClasses(r *caseResult, classes map[differenceClass]classExample) {
	if len(classes) == 0 {
		return
	}
	if r.Classes == nil {
		r.Classes, r.Examples = map[differenceClass]int{}, map[differenceClass]classExample{}
	}
	for cl, ex := range classes {
		r.Classes[cl]++
		if _, ok := r.Examples[cl]; !ok {
			r.Examples[cl] = ex
		}
	}
	if r.Verdict == "identical" {
		r.Verdict = "differs"
	}
}

// disagreement is one way the two yardsticks judge a case differently.
type disagreement struct {
	What   string
	Reason string // why, or "" when nobody knows
	timing bool   // a timing-dependent class of the live cluster
}

// yardstickReasons explain the classes one yardstick shows and the other does not, by class;
// the side is the yardstick that shows it.
var yardstickReasons = map[differenceClass]string{
	// The fake API server stores a Namespace as given; a real one labels every namespace with
	// kubernetes.io/metadata.name, so the OperatorGroup label the render lacks shows one level
	// deeper, at its key.
	{Kind: "Namespace", Path: "metadata.labels", Side: sideOLM}:                                "the fake cluster's namespaces carry no labels, so the olm.operatorgroup.uid/<uid> label OLM adds is the whole labels map; a real API server labels every namespace kubernetes.io/metadata.name=<name> (set on create since Kubernetes 1.21, the NamespaceDefaultLabelName feature), and the live class names the key",
	{Kind: "Namespace", Path: `metadata.labels["olm.operatorgroup.uid/<uid>"]`, Side: sideOLM}: "the fake cluster's namespaces carry no labels, so the olm.operatorgroup.uid/<uid> label OLM adds is the whole labels map; a real API server labels every namespace kubernetes.io/metadata.name=<name> (set on create since Kubernetes 1.21, the NamespaceDefaultLabelName feature), and the live class names the key",
}

// yardstickReason explains a class one yardstick shows and the other does not: its entry in
// yardstickReasons, else, for a class only the live cluster shows, why the fake cluster
// cannot show it.
func yardstickReason(cl differenceClass) string {
	if why, ok := yardstickReasons[cl]; ok {
		return why
	}
	k, ok := liveKnownDifferences[cl]
	switch {
	case !ok:
		return ""
	case k.Timing:
		return "timing-dependent on a real cluster (see the class); the in-process oracle starts the olm-operator once the InstallPlan ran, with every object in its caches, and runs each plan once"
	case cl.Path == outsidePath:
		return "the fake cluster holds only the namespaces the inputs declare"
	}
	return "only a real API server assigns it"
}

// yardstickDisagreements lists how the two yardsticks judge a case differently: a different
// verdict, or a difference class only one of them shows.
func yardstickDisagreements(r *liveCase) []disagreement {
	var out []disagreement
	if r.Live.Verdict != r.InProcess.Verdict && !(isComparable(r.Live) && isComparable(r.InProcess)) {
		out = append(out, disagreement{What: fmt.Sprintf("verdict: live %s, in-process %s", r.Live.Verdict, r.InProcess.Verdict)})
	}
	for _, side := range []struct {
		name      string
		has, lack *caseResult
	}{{"live", r.Live, r.InProcess}, {"in-process", r.InProcess, r.Live}} {
		for _, cl := range slices.SortedFunc(maps.Keys(side.has.Classes), compareClasses) {
			if _, ok := side.lack.Classes[cl]; ok {
				continue
			}
			out = append(out, disagreement{What: fmt.Sprintf("%s only: %s", side.name, cl), Reason: yardstickReason(cl), timing: isTiming(cl)})
		}
	}
	for i := range out {
		if strings.HasPrefix(out[i].What, "verdict:") {
			out[i].Reason = verdictReason(r)
		}
	}
	return out
}

// isComparable reports whether a case's objects were compared.
func isComparable(r *caseResult) bool { return r.Verdict == "identical" || r.Verdict == "differs" }

// verdictReason explains a different verdict by the install outcome classes behind it.
func verdictReason(r *liveCase) string {
	for _, side := range []*caseResult{r.Live, r.InProcess} {
		for cl := range side.Classes {
			if why := yardstickReason(cl); why != "" && cl.Kind == "(install)" {
				return why
			}
		}
	}
	return ""
}

// liveReportText renders the report: both yardsticks' totals side by side, the live
// difference classes, the disagreements between the yardsticks, and every case's verdicts.
// The golden report holds only what does not depend on timing: a timing-dependent class is
// named without counts, and left out of the cases. full adds the per-kind table and the
// timing-dependent classes of each case.
func liveReportText(results []*liveCase, full bool) []byte {
	var b bytes.Buffer
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(x, y *liveCase) int { return strings.Compare(x.Case.String(), y.Case.String()) })
	fmt.Fprintf(&b, "# olm-render against OLM v0.46.0's own controllers on a real API server (live), and against\n")
	fmt.Fprintf(&b, "# OLM's code on a fake cluster (in-process), on the same cases: TestLiveInstall\n")
	fmt.Fprintf(&b, "# (regenerate with: go test -run TestLiveInstall -update .; docs/live-olm.md)\n")
	fmt.Fprintf(&b, "# cases: the head of each package's default channel in shared/catalogs/%s, in every install mode it supports,\n", liveCatalog)
	fmt.Fprintf(&b, "# from a file-based catalog of the bundles served over gRPC (opm's server) and read by the render\n")
	fmt.Fprintf(&b, "# live normalisation: the render as the API server stores it (server-side dry-run), allocated cluster IPs,\n")
	fmt.Fprintf(&b, "# <uid> in OperatorGroup label keys, then what TestWholeInstall removes from both sides (uids,\n")
	fmt.Fprintf(&b, "# resourceVersions, managedFields, status, OLM's CA material)\n\n")
	fmt.Fprintf(&b, "%-12s %6s %10s %11s %16s %18s %15s\n", "yardstick", "cases", "identical", "known-only", "unknown classes", "refused by both", "not comparable")
	for _, y := range []struct {
		name string
		pick func(*liveCase) *caseResult
	}{{"live", func(r *liveCase) *caseResult { return r.Live }}, {"in-process", func(r *liveCase) *caseResult { return r.InProcess }}} {
		var identical, knownOnly, unknown, refused, other int
		for _, r := range sorted {
			c := y.pick(r)
			switch {
			case c.Verdict == "identical":
				identical++
			case c.Verdict == "differs" && !hasUnknown(c, y.name == "live"):
				knownOnly++
			case c.Verdict == "differs":
				unknown++
			case c.Verdict == "both refuse":
				refused++
			default:
				other++
			}
		}
		fmt.Fprintf(&b, "%-12s %6d %10d %11d %16d %18d %15d\n", y.name, len(sorted), identical, knownOnly, unknown, refused, other)
	}
	if full {
		written, same := map[string]int{}, map[string]int{}
		for _, r := range sorted {
			if r.Live.Cmp != nil {
				for k, n := range r.Live.Cmp.OLMWritten {
					written[k] += n
				}
				for k, n := range r.Live.Cmp.Identical {
					same[k] += n
				}
			}
		}
		fmt.Fprintf(&b, "\nlive, by kind: identical/OLM-written, over the comparable cases (this run's timing)\n")
		for _, k := range slices.Sorted(maps.Keys(written)) {
			fmt.Fprintf(&b, "  %s: %d/%d\n", k, same[k], written[k])
		}
	}
	stats := map[differenceClass][2]int{}
	examples := map[differenceClass]string{}
	for _, r := range sorted {
		for cl, n := range r.Live.Classes {
			st := stats[cl]
			st[0]++
			st[1] += n
			stats[cl] = st
			if _, ok := examples[cl]; !ok {
				examples[cl] = r.Case.String() + ": " + r.Live.Examples[cl].describe()
			}
		}
	}
	fmt.Fprintf(&b, "\nlive difference classes: kind, field path, side; cases, occurrences; first example\n")
	for _, cl := range slices.SortedFunc(maps.Keys(stats), compareClasses) {
		if isTiming(cl) && !full {
			continue
		}
		fmt.Fprintf(&b, "  %s: %d cases, %d occurrences\n      e.g. %s\n      %s\n", cl, stats[cl][0], stats[cl][1], examples[cl], liveReason(cl))
	}
	fmt.Fprintf(&b, "\nlive difference classes that depend on timing (a case may or may not show them from one run to the next)\n")
	for _, cl := range slices.SortedFunc(maps.Keys(liveKnownDifferences), compareClasses) {
		if isTiming(cl) {
			fmt.Fprintf(&b, "  %s\n      %s\n", cl, liveReason(cl))
		}
	}
	fmt.Fprintf(&b, "\nwhere the yardsticks disagree: cases, and why (timing-dependent classes left out)\n")
	type disagreementStat struct {
		cases  int
		reason string
	}
	disagreements := map[string]*disagreementStat{}
	for _, r := range sorted {
		for _, d := range yardstickDisagreements(r) {
			if d.timing && !full {
				continue
			}
			st := disagreements[d.What]
			if st == nil {
				st = &disagreementStat{reason: cmp.Or(d.Reason, "NOT EXPLAINED")}
				disagreements[d.What] = st
			}
			st.cases++
		}
	}
	for _, what := range slices.Sorted(maps.Keys(disagreements)) {
		fmt.Fprintf(&b, "  %s: %d cases\n      %s\n", what, disagreements[what].cases, disagreements[what].reason)
	}
	fmt.Fprintf(&b, "\ncases: live verdict | in-process verdict\n")
	for _, r := range sorted {
		fmt.Fprintf(&b, "  %s: %s | %s\n", r.Case, r.Live.Verdict, r.InProcess.Verdict)
		for i, side := range []*caseResult{r.Live, r.InProcess} {
			if side.Reason != "" {
				fmt.Fprintf(&b, "      %s: %s\n", []string{"live", "in-process"}[i], side.Reason)
			}
		}
		for _, cl := range slices.SortedFunc(maps.Keys(r.Live.Classes), compareClasses) {
			if cl.Kind != "(install)" && (full || !isTiming(cl)) {
				fmt.Fprintf(&b, "      live: %s (%d)\n", cl, r.Live.Classes[cl])
			}
		}
		for _, d := range yardstickDisagreements(r) {
			if !d.timing || full {
				fmt.Fprintf(&b, "      yardsticks: %s\n", d.What)
			}
		}
	}
	return b.Bytes()
}

// hasUnknown reports whether a case has a difference class nobody explained.
func hasUnknown(r *caseResult, live bool) bool {
	for cl := range r.Classes {
		if isUnknown(cl) && !(live && isLiveKnown(cl)) {
			return true
		}
	}
	return false
}

package oracle

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/sirupsen/logrus"
	"k8s.io/klog/v2"

	"github.com/olm-render/olm-render/schemas/catalog"
)

var (
	update   = flag.Bool("update", false, "update golden files (testdata/whole-report.txt)")
	wholeAll = flag.Bool("whole-all", false, "TestWholeInstall: every bundle of every catalog, not only each package's channel head (its report goes to $TMPDIR/whole-report-all.txt)")
	// wholeOther runs the harness on other catalogs (say, a checkout of a community catalog),
	// to find where olm-render and OLM part on operators the corpus does not hold.
	wholeOther = flag.String("whole-catalogs", "", "TestWholeInstall: comma-separated absolute paths of catalogs to use instead of the shared corpus (its report goes to $TMPDIR/whole-report-other.txt)")
)

// catalogsUnderTest returns the catalogs TestWholeInstall installs from: the shared corpus's, or
// those of -whole-catalogs.
func catalogsUnderTest() []string {
	if *wholeOther == "" {
		return wholeCatalogs
	}
	return strings.Split(*wholeOther, ",")
}

// catalogPath returns the path of a catalog of the harness: absolute, or under the shared corpus.
func catalogPath(dir string) string {
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(shared, dir)
}

// wholeReport is the report TestWholeInstall compares with (and writes with -update).
const wholeReport = "testdata/whole-report.txt"

// wholeCatalogs are the snapshots of the shared corpus the harness can give OLM (a registry+v1
// bundle tree or a file-based catalog that inlines its manifests: fbcOf), relative to shared.
var wholeCatalogs = []string{
	"operators",
	"fbc/operator-registry/fbc-dir/file-based-catalog",
	"fbc/community-operators-prod/catalogs/v4.16",
	"fbc/cluster-kube-descheduler-operator/v4.16/catalog/cluster-kube-descheduler-operator",
}

// wholeNotCovered are the snapshots of the shared corpus left out, and why.
var wholeNotCovered = []string{
	"bundles: its CSVs declare no installModes, so no install mode is supported",
	"packagemanifests: the harness builds OLM's registry only from bundle trees and file-based catalogs",
	"fbc/community-operators-prod/catalogs/v4.18, fbc/cluster-kube-descheduler-operator/v4.20: olm.csv.metadata only, no manifests offline",
}

// wholeCaseTimeout bounds one case (both sides).
const wholeCaseTimeout = 3 * time.Minute

// wholeParallel is how many cases run at once.
const wholeParallel = 2

// knownDifference says why a difference class is expected.
type knownDifference struct {
	// Reason is why olm-render differs; "unexplained: ..." when nobody has found out yet.
	Reason string
	// DecidedBy is the OLM file whose code decides it.
	DecidedBy string
}

// knownDifferences are the difference classes TestWholeInstall accepts, each with why olm-render
// differs and the OLM file that decides OLM's side (paths under operator-lifecycle-manager's
// pkg/controller/). docs/offline.md and docs/olm-differences.md hold the documented ones.
var knownDifferences = map[differenceClass]knownDifference{
	// ownerReferences carry the owner's UID, which only the API server assigns.
	ownerRefs("ClusterRole"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"operators/olm/operatorgroup.go (per-API ClusterRoles owned by their CRD)"},
	ownerRefs("ConfigMap"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"operators/catalog/operator.go (ExecutePlan: bundle objects owned by the CSV)"},
	ownerRefs("Deployment"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"install/deployment.go (deploymentForSpec)"},
	ownerRefs("OperatorCondition"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"operators/operatorconditiongenerator_controller.go"},
	ownerRefs("Role"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"registry/resolver/rbac.go (RBACForClusterServiceVersion), install/certresources.go"},
	ownerRefs("RoleBinding"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"registry/resolver/rbac.go (RBACForClusterServiceVersion), install/certresources.go"},
	ownerRefs("Secret"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"operators/catalog/operator.go (ExecutePlan, BundleSecret steps)"},
	ownerRefs("Service"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"operators/catalog/operator.go (ExecutePlan: bundle objects owned by the CSV)"},
	ownerRefs("ServiceAccount"): {"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
		"registry/resolver/rbac.go (RBACForClusterServiceVersion)"},

	{Kind: "Namespace", Path: "metadata.labels", Side: sideOLM}: {
		"the olm.operatorgroup.uid/<uid> label's key is the OperatorGroup's UID, assigned by the API server: olm-render omits it (docs/offline.md)",
		"operators/olm/operator.go (syncNamespace)"},
	{Kind: "InstallPlan", Path: "(object)", Side: sideOLM}: {
		"the InstallPlan is the catalog operator's record of one resolution; olm-render renders the installed state without InstallPlans (README)",
		"operators/catalog/operator.go (createInstallPlan)"},
	{Kind: "ClusterServiceVersion", Path: "metadata.finalizers", Side: sideOLM}: {
		"the olm-operator adds operators.coreos.com/csv-cleanup when it first syncs a CSV; a rendered one would block deletion forever on a cluster without OLM, and an apply keeps OLM's (docs/offline.md)",
		"operators/olm/operator.go (processFinalizer)"},
	{Kind: "Deployment", Path: `metadata.labels["olm.deployment-spec-hash"]`, Side: sideDiffers}: {
		"the hash covers the pod template, which in OLM holds the random olmcahash annotation of the generated CA (webhook and APIService operators)",
		"install/deployment.go (deploymentForSpec), install/certresources.go"},

	// Certificates: OLM generates them; olm-render asks a certificate provider (docs/offline.md).
	{Kind: "Secret", Path: "(generated certificate)", Side: sideOLM}: {
		"OLM generates a CA and serving certificate into a Secret; olm-render never puts key material in its output and issues the certificate through cert-manager (docs/offline.md)",
		"install/certresources.go"},
	{Kind: "Certificate.cert-manager.io", Path: "(object)", Side: sideOurs}: {
		"olm-render issues the webhook's serving certificate through cert-manager instead of generating it (docs/offline.md)",
		"install/certresources.go"},
	{Kind: "Issuer.cert-manager.io", Path: "(object)", Side: sideOurs}: {
		"the self-signed cert-manager Issuer of olm-render's webhook certificates (docs/offline.md)",
		"install/certresources.go"},
	{Kind: "ValidatingWebhookConfiguration", Path: "metadata.annotations", Side: sideOurs}: {
		"cert-manager.io/inject-ca-from: cert-manager injects the CA that OLM writes into caBundle itself (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "MutatingWebhookConfiguration", Path: "metadata.annotations", Side: sideOurs}: {
		"cert-manager.io/inject-ca-from: cert-manager injects the CA that OLM writes into caBundle itself (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "CustomResourceDefinition", Path: `metadata.annotations["cert-manager.io/inject-ca-from"]`, Side: sideOurs}: {
		"the CA of a conversion webhook comes from cert-manager, where OLM writes its own into spec.conversion.webhook.clientConfig.caBundle (docs/olm-differences.md)",
		"operators/olm/apiservices.go, install/webhook.go"},

	// Webhook configurations: OLM names them with generateName and selects namespaces by the
	// OperatorGroup's UID label.
	{Kind: "ValidatingWebhookConfiguration", Path: "metadata.name", Side: sideDiffers}: {
		"OLM names webhook configurations with generateName (a random suffix); olm-render uses the fixed prefix (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "MutatingWebhookConfiguration", Path: "metadata.name", Side: sideDiffers}: {
		"OLM names webhook configurations with generateName (a random suffix); olm-render uses the fixed prefix (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "ValidatingWebhookConfiguration", Path: "metadata.generateName", Side: sideOLM}: {
		"OLM creates webhook configurations with generateName; olm-render writes a fixed name (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "MutatingWebhookConfiguration", Path: "metadata.generateName", Side: sideOLM}: {
		"OLM creates webhook configurations with generateName; olm-render writes a fixed name (docs/offline.md)",
		"install/webhook.go"},
	{Kind: "ValidatingWebhookConfiguration", Path: "webhooks[].namespaceSelector.matchLabels", Side: sideOLM}: {
		"OLM selects the target namespaces by the olm.operatorgroup.uid/<uid> label (a UID the API server assigns); olm-render selects them by kubernetes.io/metadata.name (docs/offline.md)",
		"install/webhook.go (OperatorGroup.NamespaceLabelSelector)"},
	{Kind: "MutatingWebhookConfiguration", Path: "webhooks[].namespaceSelector.matchLabels", Side: sideOLM}: {
		"OLM selects the target namespaces by the olm.operatorgroup.uid/<uid> label (a UID the API server assigns); olm-render selects them by kubernetes.io/metadata.name (docs/offline.md)",
		"install/webhook.go (OperatorGroup.NamespaceLabelSelector)"},
	{Kind: "ValidatingWebhookConfiguration", Path: "webhooks[].namespaceSelector.matchExpressions", Side: sideOurs}: {
		"olm-render selects the target namespaces by kubernetes.io/metadata.name, not by the OperatorGroup's UID label (docs/offline.md)",
		"install/webhook.go (OperatorGroup.NamespaceLabelSelector)"},
	{Kind: "MutatingWebhookConfiguration", Path: "webhooks[].namespaceSelector.matchExpressions", Side: sideOurs}: {
		"olm-render selects the target namespaces by kubernetes.io/metadata.name, not by the OperatorGroup's UID label (docs/offline.md)",
		"install/webhook.go (OperatorGroup.NamespaceLabelSelector)"},

	{Kind: "CustomResourceDefinition", Path: `metadata.annotations["cert-manager.io/inject-ca-from"]`, Side: sideDiffers}: {
		"a bundle CRD that already carries the annotation and has a conversion webhook OLM serves: olm-render makes it name the certificate of the webhook's Secret, OLM keeps the bundle's value and writes its own CA into caBundle (docs/olm-differences.md)",
		"operators/olm/apiservices.go, install/webhook.go"},

	// Subscriptions OLM creates for a dependency.
	{Kind: "Subscription", Path: "metadata.annotations", Side: sideOLM}: {
		"olm.generated-by names the InstallPlan that created the dependency's Subscription, a name the API server generates; olm-render renders no InstallPlans (docs/offline.md)",
		"operators/catalog/operator.go (ExecutePlan: Subscription steps)"},
}

// isUnknown reports whether a difference class is not in knownDifferences.
func isUnknown(cl differenceClass) bool {
	_, ok := knownFor(cl)
	return !ok
}

// knownFor returns why a difference class is expected: its entry in knownDifferences, or, for
// the ownerReferences of any other kind OLM owns by reference (bundle objects of the kinds its
// InstallPlan supports, such as ServiceMonitors), the UID reason.
func knownFor(cl differenceClass) (knownDifference, bool) {
	if k, ok := knownDifferences[cl]; ok {
		return k, true
	}
	if cl.Path == "metadata.ownerReferences" && cl.Side == sideOLM {
		return knownDifference{"ownerReferences need the owner's UID, assigned by the API server: olm-render omits them (docs/offline.md)",
			"operators/catalog/operator.go (ExecutePlan: bundle objects owned by the CSV)"}, true
	}
	return knownDifference{}, false
}

// ownerRefs is the class of a kind's ownerReferences that only OLM writes.
func ownerRefs(kind string) differenceClass {
	return differenceClass{Kind: kind, Path: "metadata.ownerReferences", Side: sideOLM}
}

// caseResult is the outcome of one case.
type caseResult struct {
	Case wholeCase
	// Verdict is "identical", "differs", "both refuse" (OLM's install and the render both
	// fail), "not comparable" or "error".
	Verdict string
	// Reason says why a case is not comparable, or what went wrong.
	Reason   string
	Cmp      *comparison
	Classes  map[differenceClass]int
	Examples map[differenceClass]classExample
	// Failures make the test fail: crashes and harness errors.
	Failures []string
}

func TestWholeInstall(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	// OLM's controllers log through logrus (quiet already), klog (their event recorders and
	// error handlers) and operator-registry's global logrus logger.
	logrus.SetOutput(io.Discard)
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	// Errors also go to stderr past klog's stderr threshold unless a logger takes them.
	klog.SetLogger(logr.Discard())
	ctx := context.Background()
	tmp := t.TempDir()
	var cases []wholeCase
	regs := map[string]*registryCatalog{}
	for _, dir := range catalogsUnderTest() {
		cat, err := ourCatalog(catalogPath(dir))
		if err != nil {
			t.Fatalf("loading %s: %v", dir, err)
		}
		if regs[dir], err = loadRegistryCatalog(ctx, catalogPath(dir), cat, tmp); err != nil {
			t.Fatalf("building OLM's registry of %s: %v", dir, err)
		}
		cs, err := casesOf(dir, cat)
		if err != nil {
			t.Fatalf("cases of %s: %v", dir, err)
		}
		if !*wholeAll {
			cs = channelHeads(cat, cs)
		}
		cases = append(cases, cs...)
	}
	start := time.Now()
	results := make([]*caseResult, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for range wholeParallel {
		wg.Go(func() {
			for i := range next {
				began := time.Now()
				results[i] = runWholeCase(ctx, cases[i], regs[cases[i].Catalog], tmp)
				t.Logf("%s: %s (%s)", cases[i], results[i].Verdict, time.Since(began).Round(time.Millisecond))
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Logf("%d cases in %s", len(cases), time.Since(start).Round(time.Second))

	for _, r := range results {
		for _, f := range r.Failures {
			t.Errorf("%s: %s", r.Case, f)
		}
		for cl := range r.Classes {
			if isUnknown(cl) {
				t.Errorf("%s: difference class not in knownDifferences: %s (e.g. %s)", r.Case, cl, r.Examples[cl].describe())
			}
		}
		if r.Cmp == nil {
			continue
		}
		// The objects with a difference of a class not known, in full, for triage.
		for _, d := range r.Cmp.Diffs {
			if slices.ContainsFunc(d.classes(), isUnknown) {
				t.Logf("%s: %s", r.Case, describeDiff(d))
			}
		}
	}
	seen := map[differenceClass]bool{}
	for _, r := range results {
		for cl := range r.Classes {
			seen[cl] = true
		}
	}
	for _, cl := range slices.SortedFunc(maps.Keys(knownDifferences), compareClasses) {
		if !seen[cl] {
			t.Logf("known difference not observed in these cases (seen only with -whole-all, or obsolete): %s", cl)
		}
	}
	report := wholeReportText(results)
	if *wholeAll || *wholeOther != "" {
		// The golden report is the default subset's; other runs' reports are written aside.
		out := filepath.Join(os.TempDir(), "whole-report-all.txt")
		if *wholeOther != "" {
			out = filepath.Join(os.TempDir(), "whole-report-other.txt")
		}
		if err := os.WriteFile(out, report, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("report of every case: %s", out)
		return
	}
	if *update {
		if err := os.WriteFile(wholeReport, report, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(wholeReport)
	if err != nil {
		t.Fatalf("%v (write it with -update)", err)
	}
	if !bytes.Equal(want, report) {
		t.Errorf("%s is out of date (run with -update and review the change):\n%s", wholeReport, lineDiff(string(want), string(report)))
	}
}

// channelHeads keeps the cases of each package's channel head: the entry of its default
// channel that no other entry of the channel replaces or skips (the highest version when
// several are), in every install mode it supports.
func channelHeads(cat *catalog.Catalog, cases []wholeCase) []wholeCase {
	heads := map[string]string{}
	for _, p := range cat.Packages {
		ch := p.Channel(p.DefaultChannel)
		if ch == nil && len(p.Channels) > 0 {
			ch = p.Channels[0]
		}
		if ch == nil {
			continue
		}
		replaced := map[string]bool{}
		for _, e := range ch.Entries {
			replaced[e.Replaces] = true
			for _, s := range e.Skips {
				replaced[s] = true
			}
		}
		var head *catalog.Bundle
		for _, e := range ch.Entries {
			b := p.Bundle(e.Name)
			if replaced[e.Name] || b == nil {
				continue
			}
			if head == nil || b.Version.GT(head.Version) || (b.Version.EQ(head.Version) && b.Name > head.Name) {
				head = b
			}
		}
		if head != nil {
			heads[p.Name] = head.Name
		}
	}
	var out []wholeCase
	for _, c := range cases {
		if heads[c.Package] == c.Bundle {
			out = append(out, c)
		}
	}
	return out
}

// runWholeCase installs a case with OLM and renders it with olm-render, and compares them.
func runWholeCase(ctx context.Context, c wholeCase, reg *registryCatalog, tmp string) (r *caseResult) {
	r = &caseResult{Case: c}
	ctx, cancel := context.WithTimeout(ctx, wholeCaseTimeout)
	defer cancel()
	path := catalogPath(c.Catalog)
	fail := func(format string, args ...any) *caseResult {
		r.Verdict = "error"
		r.Reason = fmt.Sprintf(format, args...)
		r.Failures = append(r.Failures, r.Reason)
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
	in, err := bindCatalog(c.inputs(), path, inputDir)
	if err != nil {
		return fail("%v", err)
	}
	dropped, isDropped := reg.dropped[c.Package+"/"+c.Channel]
	olm := &olmResult{}
	if !isDropped {
		if olm, err = guarded(func() (*olmResult, error) { return installWithOLM(ctx, in, reg, dir) }); err != nil {
			return fail("OLM side: %v", err)
		}
	}
	out, renderErr := guarded(func() ([]map[string]any, error) {
		o, err := renderWithOLMRender(ctx, in, inputDir)
		if err != nil {
			return nil, err
		}
		objs := make([]map[string]any, 0, len(o.Objects))
		for _, u := range o.Objects {
			objs = append(objs, u.Object)
		}
		return storedRender(objs)
	})
	var panicked *panicError
	if errors.As(renderErr, &panicked) {
		return fail("olm-render side: %v", renderErr)
	}
	if isDropped {
		r.Verdict = "not comparable"
		r.Reason = "OLM's catalog lacks the channel: opm refuses it (" + lastLine(dropped) + "); olm-render: "
		if renderErr != nil {
			r.Reason += "fails: " + firstLine(renderErr.Error())
		} else {
			r.Reason += "renders it (a community bundle tree is never validated as one graph: a load warning, docs/olm-differences.md)"
		}
		return r
	}
	judge(r, olm, out, renderErr)
	return r
}

// judge sets a case's verdict from OLM's outcome and olm-render's: both refuse, one refuses,
// or the objects compare (identical, or differing in classes).
func judge(r *caseResult, olm *olmResult, out []map[string]any, renderErr error) {
	outcome := func(side, why string) {
		cl := differenceClass{Kind: "(install)", Path: "outcome", Side: side}
		r.Verdict = "differs"
		r.Reason = why
		r.Classes = map[differenceClass]int{cl: 1}
		r.Examples = map[differenceClass]classExample{cl: {Path: why}}
	}
	switch {
	case olm.Failure != "" && renderErr != nil:
		r.Verdict = "both refuse"
		r.Reason = fmt.Sprintf("OLM: %s; olm-render: %s", firstLine(olm.Failure), firstLine(renderErr.Error()))
	case olm.Failure != "":
		outcome(sideOurs, "OLM does not install ("+firstLine(olm.Failure)+"), olm-render renders")
	case renderErr != nil:
		outcome(sideOLM, "OLM installs, olm-render fails: "+firstLine(renderErr.Error()))
	default:
		r.Cmp = compareObjects(olm.Objects, out)
		r.Classes, r.Examples = r.Cmp.classes()
		r.Verdict = "identical"
		if len(r.Cmp.Diffs) > 0 {
			r.Verdict = "differs"
		}
	}
}

// panicError is a panic recovered from one side.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.value, p.stack) }

// guarded runs f, turning a panic into a panicError.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack()}
		}
	}()
	return f()
}

// machinePaths match the parts of paths in messages that depend on where the checkout and the
// temporary directory are: what precedes shared/catalogs/, and a case's input directory.
var machinePaths = regexp.MustCompile(`[^\s:(]*/(shared/catalogs/)|[^\s:(]*/TestWholeInstall[0-9]+/[0-9]+/case-[0-9]+/`)

// firstLine returns the first line of a message, at most 300 bytes of it, with the paths made
// the same on every machine.
func firstLine(s string) string {
	s = machinePaths.ReplaceAllString(s, "$1")
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// lastLine returns the last line of a message without its indentation (opm's errors are trees
// whose leaf is the cause).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return firstLine(strings.TrimLeft(lines[len(lines)-1], " └─│├"))
}

// describe renders an example of a class.
func (e classExample) describe() string {
	switch {
	case e.Object == (objectID{}):
		return e.Path
	case e.Path == "":
		return e.Object.String()
	}
	return e.Object.String() + " " + e.Path
}

// wholeReportText renders the report: totals, the per-kind table, the difference classes and
// every case's verdict, each in a fixed order.
func wholeReportText(results []*caseResult) []byte {
	var b bytes.Buffer
	comparable, identical, knownOnlyCases, bothRefuse := 0, 0, 0, 0
	written, same, knownOnly := map[string]int{}, map[string]int{}, map[string]int{}
	type classStat struct {
		cases, occurrences int
		example            string
	}
	stats := map[differenceClass]*classStat{}
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(x, y *caseResult) int { return strings.Compare(x.Case.String(), y.Case.String()) })
	for _, r := range sorted {
		if r.Verdict == "identical" || r.Verdict == "differs" {
			comparable++
		}
		switch r.Verdict {
		case "identical":
			identical++
		case "both refuse":
			bothRefuse++
		}
		if r.Cmp != nil {
			for k, n := range r.Cmp.OLMWritten {
				written[k] += n
			}
			for k, n := range r.Cmp.Identical {
				same[k] += n
			}
			allKnown := true
			for _, d := range r.Cmp.Diffs {
				known := !slices.ContainsFunc(d.classes(), isUnknown)
				allKnown = allKnown && known
				if known && d.Side != sideOurs {
					knownOnly[kindOf(d.ID)]++
				}
			}
			if allKnown && len(r.Cmp.Diffs) > 0 {
				knownOnlyCases++
			}
		}
		for _, cl := range slices.SortedFunc(maps.Keys(r.Classes), compareClasses) {
			st := stats[cl]
			if st == nil {
				st = &classStat{example: r.Case.String() + ": " + r.Examples[cl].describe()}
				stats[cl] = st
			}
			st.cases++
			st.occurrences += r.Classes[cl]
		}
	}
	subset := "one bundle per package, the head of its default channel, in every install mode it supports (-whole-all: every bundle)"
	if *wholeAll {
		subset = "every bundle with manifests, in every install mode it supports (-whole-all)"
	}
	fmt.Fprintf(&b, "# olm-render against OLM v0.46.0's own controllers on a fake cluster: TestWholeInstall\n")
	fmt.Fprintf(&b, "# (regenerate with: go test -run TestWholeInstall -update .)\n")
	fmt.Fprintf(&b, "# cases: %s\n", subset)
	fmt.Fprintf(&b, "# catalogs (under shared/catalogs): %s\n", strings.Join(catalogsUnderTest(), ", "))
	for _, n := range wholeNotCovered {
		fmt.Fprintf(&b, "# not covered: %s\n", n)
	}
	for _, k := range slices.Sorted(maps.Keys(ignoredKinds)) {
		fmt.Fprintf(&b, "# not compared: %s (%s)\n", k, ignoredKinds[k])
	}
	fmt.Fprintf(&b, "\n%d cases, %d comparable, %d identical\n", len(results), comparable, identical)
	fmt.Fprintf(&b, "(%d of the comparable cases differ only in known classes)\n", knownOnlyCases)
	fmt.Fprintf(&b, "%d cases refused by both (OLM's install fails and the render fails)\n", bothRefuse)
	fmt.Fprintf(&b, "%d cases not comparable\n", len(results)-comparable-bothRefuse)
	fmt.Fprintf(&b, "\nkind: identical/OLM-written (pct), over the comparable cases; then how many more differ only in known classes\n")
	for _, k := range slices.Sorted(maps.Keys(written)) {
		fmt.Fprintf(&b, "  %s: %d/%d (%.1f%%); +%d known-only\n", k, same[k], written[k], 100*float64(same[k])/float64(written[k]), knownOnly[k])
	}
	fmt.Fprintf(&b, "\ndifference classes: kind, field path, side; cases, occurrences; first example\n")
	for _, cl := range slices.SortedFunc(maps.Keys(stats), compareClasses) {
		st := stats[cl]
		fmt.Fprintf(&b, "  %s: %d cases, %d occurrences\n      e.g. %s\n", cl, st.cases, st.occurrences, st.example)
		if k, ok := knownFor(cl); ok {
			fmt.Fprintf(&b, "      known: %s [%s]\n", k.Reason, k.DecidedBy)
		} else {
			fmt.Fprintf(&b, "      NOT KNOWN\n")
		}
	}
	fmt.Fprintf(&b, "\ncases\n")
	for _, r := range sorted {
		fmt.Fprintf(&b, "  %s: %s", r.Case, r.Verdict)
		if r.Reason != "" {
			fmt.Fprintf(&b, ": %s", r.Reason)
		}
		fmt.Fprintln(&b)
		for _, cl := range slices.SortedFunc(maps.Keys(r.Classes), compareClasses) {
			if cl.Kind == "(install)" {
				continue
			}
			fmt.Fprintf(&b, "      %s (%d)\n", cl, r.Classes[cl])
		}
	}
	return b.Bytes()
}

// compareClasses orders difference classes.
func compareClasses(x, y differenceClass) int {
	return strings.Compare(x.Kind+"\x00"+x.Path+"\x00"+x.Side, y.Kind+"\x00"+y.Path+"\x00"+y.Side)
}

// lineDiff shows how got differs from want, line by line.
func lineDiff(want, got string) string {
	return cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n"))
}

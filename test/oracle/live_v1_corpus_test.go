package oracle

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/olmv1"
	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/oracle/live"
)

// liveV1Report is the report TestLiveV1Corpus compares with (and writes with -update).
const liveV1Report = "testdata/live-v1-report.txt"

// v1Modes are the install modes OLM v1 can be asked for, each with whether it needs the
// SingleOwnNamespaceInstallSupport gate (and the experimental CRD, whose spec.config holds
// watchNamespace). MultiNamespace has no ClusterExtension.
var v1Modes = map[v1alpha1.InstallModeType]bool{
	v1alpha1.InstallModeTypeAllNamespaces:   false,
	v1alpha1.InstallModeTypeOwnNamespace:    true,
	v1alpha1.InstallModeTypeSingleNamespace: true,
}

// v1Case is one case of the v1 differential: what operator-controller did with a bundle in an
// install mode, and what olm-render said it would do.
type v1Case struct {
	Case wholeCase
	// Verdict is olm-render's for the case's Subscription, as `olm-render migrate check` gives it
	// (olmv1.Check), and Codes the codes of its reasons.
	Verdict olmv1.Outcome
	Codes   []string
	// RenderErr is why olm-render failed before any verdict ("" when it did not).
	RenderErr string
	// Installed is the bundle operator-controller installed ("" when it did not); Refusal its
	// Progressing condition when it did not, and RefusalCode the code that message maps to
	// (v1RefusalCodes; "" when none does).
	Installed, Refusal, RefusalCode string
	// Result is the comparison of the objects, when both install.
	Result *caseResult
	Took   time.Duration
}

// TestLiveV1Corpus is the live differential of OLM v1: the head of every package's default
// channel in the corpus's operators catalog, in every install mode OLM v1 can be asked for
// (AllNamespaces with the standard manifest's gates and CRDs; OwnNamespace and SingleNamespace
// with SingleOwnNamespaceInstallSupport on and the experimental CRDs), rendered by olm-render
// for --olm=v1 and installed by operator-controller v1.11.0 through what the render applies
// (the ClusterCatalog of the published index by digest, the ClusterExtension pinned to the
// version). Where both install, every object operator-controller created is held against the
// render and its prediction, as TestLiveInstall holds OLM v0's (the same normalisation), and
// every difference must be of a class v1KnownDifferences explains with the operator-controller
// code that decides it. Where operator-controller refuses, olm-render's verdict must refuse for
// the same reason code. testdata/live-v1-report.txt holds the counts, the refusals by code from
// both sides, the classes and every case.
func TestLiveV1Corpus(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared corpus not found: %v", err)
	}
	quietOLMLogs()
	ctx := context.Background()
	cl := liveV1Cluster(t, false, nil)
	tree, err := ourCatalog(catalogPath(liveCatalog))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := casesOf(liveCatalog, tree)
	if err != nil {
		t.Fatal(err)
	}
	cases = v1Cases(channelHeads(tree, cases))
	if *liveCases != "" {
		cases = slices.DeleteFunc(cases, func(c wholeCase) bool {
			return !slices.ContainsFunc(strings.Split(*liveCases, ","), func(s string) bool { return strings.Contains(c.String(), s) })
		})
	}
	pub := publishV1(t, catalogPath(liveCatalog), liveCatalog)
	index, err := indexByDigest(pub.Index)
	if err != nil {
		t.Fatal(err)
	}
	b := v1Binding{index: index, kube: serverVersion(t, cl), tmp: t.TempDir(), tree: tree}
	start := time.Now()
	var results []*v1Case
	for _, c := range cases {
		cl := liveV1Cluster(t, v1Modes[c.Mode], v1GatesFor(c.Mode))
		r := runV1Case(ctx, cl, c, b)
		t.Logf("%s: %s (%s)", c, r.summary(), r.Took.Round(100*time.Millisecond))
		results = append(results, r)
	}
	t.Logf("%d cases in %s", len(cases), time.Since(start).Round(time.Second))
	for _, r := range results {
		for _, f := range r.failures() {
			t.Errorf("%s: %s", r.Case, f)
		}
	}
	full := filepath.Join(os.TempDir(), "live-v1-report-full.txt")
	if err := os.WriteFile(full, v1ReportText(results), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("this run's report: %s", full)
	if *liveCases != "" {
		return
	}
	checkGolden(t, liveV1Report, v1ReportText(results))
}

// v1Cases keeps the cases of the install modes OLM v1 can be asked for, AllNamespaces first
// (the standard configuration), then Own and Single (the gate on), so that operator-controller
// is restarted with other gates once.
func v1Cases(cases []wholeCase) []wholeCase {
	cases = slices.DeleteFunc(slices.Clone(cases), func(c wholeCase) bool { _, ok := v1Modes[c.Mode]; return !ok })
	slices.SortStableFunc(cases, func(a, b wholeCase) int {
		ga, gb := v1Modes[a.Mode], v1Modes[b.Mode]
		switch {
		case ga == gb:
			return strings.Compare(a.String(), b.String())
		case !ga:
			return -1
		}
		return 1
	})
	return cases
}

// v1GatesFor returns the gates operator-controller runs with for a mode.
func v1GatesFor(mode v1alpha1.InstallModeType) map[string]bool {
	if v1Modes[mode] {
		return map[string]bool{live.GateSingleOwnNamespace: true}
	}
	return nil
}

// indexByDigest returns an index image's reference by its digest, read from the in-process
// registry that v1Registry names.
func indexByDigest(image string) (string, error) {
	repo, _, _ := strings.Cut(image, ":live")
	at := strings.Replace(image, v1Registry, liveV1State.reg.Host+"/olm-render", 1)
	d, err := crane.Digest(at, crane.Insecure)
	if err != nil {
		return "", fmt.Errorf("reading the digest of %s: %w", image, err)
	}
	return repo + "@" + d, nil
}

// v1Binding is what every case of the v1 differential shares.
type v1Binding struct {
	index string // the published index image, by digest
	kube  string // the API server's version
	tmp   string
	tree  *catalog.Catalog // the corpus catalog, as olm-render reads it
}

// runV1Case renders a case for OLM v1, installs it with operator-controller and judges both.
func runV1Case(ctx context.Context, cl *live.Cluster, c wholeCase, b v1Binding) *v1Case {
	r := &v1Case{Case: c, Result: &caseResult{Case: c}}
	fail := func(format string, args ...any) *v1Case {
		r.Result.Verdict = "error"
		r.Result.Reason = fmt.Sprintf(format, args...)
		r.Result.Failures = append(r.Result.Failures, r.Result.Reason)
		return r
	}
	dir, err := os.MkdirTemp(b.tmp, "case-")
	if err != nil {
		return fail("%v", err)
	}
	in := c.inputs()
	in.CatalogSource.Spec.Image = b.index
	if in, err = bindCatalog(in, catalogPath(c.Catalog), dir); err != nil {
		return fail("%v", err)
	}
	out, err := guarded(func() (*pipeline.Output, error) { return renderV1(ctx, in, dir, b.kube, c.Mode) })
	var panicked *panicError
	var refusal *olmv1.Refusal
	switch {
	case errors.As(err, &panicked):
		return fail("olm-render side: %v", err)
	case errors.As(err, &refusal):
		// Neither OLM installs it (OLM v0 cannot resolve it): the render fails with v1's
		// verdict, which --allow-partial cannot leave to v0.
		out = nil
		i := slices.IndexFunc(refusal.Verdicts, func(v olmv1.Verdict) bool {
			return v.Namespace == in.Subscription.Namespace && v.Subscription == in.Subscription.Name
		})
		if i < 0 {
			return fail("olm-render refused without a verdict for Subscription %s/%s: %v", in.Subscription.Namespace, in.Subscription.Name, err)
		}
		r.Verdict, r.Codes = refusal.Verdicts[i].Outcome, reasonCodes(refusal.Verdicts[i])
	case err != nil:
		r.RenderErr, out = firstLine(err.Error()), nil
	default:
		v, ok := verdictOf(out, in, c.Mode)
		if !ok {
			return fail("olm-render gave no verdict for Subscription %s/%s", in.Subscription.Namespace, in.Subscription.Name)
		}
		r.Verdict, r.Codes = v.Outcome, reasonCodes(v)
	}
	side, err := installV1(ctx, cl, c, in, out, b)
	if err != nil {
		return fail("live side: %v", err)
	}
	r.Took = side.Took
	r.Installed = side.outcome.Installed[c.Package]
	if r.Installed == "" {
		r.Refusal = side.outcome.Refused[c.Package]
		r.RefusalCode = v1RefusalCode(r.Refusal)
	}
	if err := side.dump("v1-" + c.String()); err != nil {
		return fail("%v", err)
	}
	judgeV1(r, side)
	return r
}

// renderV1 renders the inputs for OLM v1 as `olm-render render --olm=v1 --allow-partial` does,
// with the gates operator-controller runs with for the mode: a Subscription v1 does not take is
// left out with its verdict, instead of failing the render, unless OLM v0 cannot resolve it
// either (the render then fails with v1's verdict, an *olmv1.Refusal).
func renderV1(ctx context.Context, in installInputs, dir, kube string, mode v1alpha1.InstallModeType) (*pipeline.Output, error) {
	v1 := v1OptionsFor(mode)
	v1.AllowPartial = true
	return renderWith(ctx, in, dir, resolver.Options{ForOLMv1: true}, render.Options{KubeVersion: kube, Target: render.TargetV1, V1: v1})
}

// v1OptionsFor returns olm-render's options for the operator-controller a mode runs with.
func v1OptionsFor(mode v1alpha1.InstallModeType) olmv1.Options {
	if v1Modes[mode] {
		return olmv1.Options{Gates: []olmv1.Gate{olmv1.SingleOwnNamespaceInstallSupport}}
	}
	return olmv1.Options{}
}

// verdictOf returns `olm-render migrate check`'s verdict for the case's Subscription: olmv1.Check
// of the render's resolution, with the options of the mode's operator-controller.
func verdictOf(out *pipeline.Output, in installInputs, mode v1alpha1.InstallModeType) (olmv1.Verdict, bool) {
	for _, v := range olmv1.Check(out.Set, out.Resolution, v1OptionsFor(mode)) {
		if v.Namespace == in.Subscription.Namespace && v.Subscription == in.Subscription.Name {
			return v, true
		}
	}
	return olmv1.Verdict{}, false
}

// reasonCodes returns the codes of a verdict's reasons, sorted, each once.
func reasonCodes(v olmv1.Verdict) []string {
	var out []string
	for _, r := range v.Reasons {
		if !slices.Contains(out, string(r.Code)) {
			out = append(out, string(r.Code))
		}
	}
	slices.Sort(out)
	return out
}

// v1Side is a case installed by operator-controller: what it created and settled on, and the
// render as the API server stores it.
type v1Side struct {
	liveSide
	outcome live.V1Outcome
}

// installV1 installs a case with operator-controller on a reset cluster, as a user applies a
// render: the Namespaces, the ClusterCatalog (once catalogd serves it, the rest), the
// ClusterExtension. When the render refuses the Subscription (and so has no ClusterExtension),
// the ClusterExtension the render would have written is applied instead, so that
// operator-controller says whether it refuses too. The render (what it applies, and the
// prediction without its marks) is stored by a server-side dry-run before anything of the
// install exists.
func installV1(ctx context.Context, cl *live.Cluster, c wholeCase, in installInputs, out *pipeline.Output, b v1Binding) (*v1Side, error) {
	side := &v1Side{liveSide: liveSide{OLM: &olmResult{}}}
	namespaces, catalogs, extensions, prediction, err := v1Applied(c, in, out, b)
	if err != nil {
		return nil, err
	}
	rendered := len(extensions) > 0
	if !rendered {
		extensions = []*unstructured.Unstructured{clusterExtension(extensionOf(c, in, b.tree))}
	}
	if err := side.store(ctx, cl, namespaces); err != nil {
		return nil, err
	}
	if err := cl.Apply(ctx, namespaces...); err != nil {
		return nil, err
	}
	if err := side.store(ctx, cl, append(slices.Clone(catalogs), prediction...)); err != nil {
		return nil, err
	}
	if rendered {
		if err := side.store(ctx, cl, extensions); err != nil {
			return nil, err
		}
	}
	if err := cl.Apply(ctx, catalogs...); err != nil {
		return nil, err
	}
	if err := cl.WaitCatalogsServing(ctx, []string{catalogs[0].GetName()}, 2*time.Minute); err != nil {
		return nil, err
	}
	if err := cl.Apply(ctx, extensions...); err != nil {
		return nil, err
	}
	if side.outcome, err = cl.SettleV1(ctx, []string{extensions[0].GetName()}, v1CaseTimeout); err != nil {
		return nil, err
	}
	side.Took = side.outcome.Took
	snap, err := cl.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range snap {
		side.OLM.Objects = append(side.OLM.Objects, o.Object)
	}
	return side, nil
}

// v1Applied sorts what a render applies (the Namespaces, the ClusterCatalog, the
// ClusterExtension when the render takes the Subscription) and returns its prediction without
// the prediction's marks. When olm-render failed (out nil), what a user writes by hand stands in:
// the input Namespaces and a ClusterCatalog of the index named after the CatalogSource.
func v1Applied(c wholeCase, in installInputs, out *pipeline.Output, b v1Binding) (namespaces, catalogs, extensions, prediction []*unstructured.Unstructured, err error) {
	if out == nil {
		nss := make([]any, 0, len(in.Namespaces))
		for _, ns := range in.Namespaces {
			nss = append(nss, ns)
		}
		if namespaces, err = unstructuredOf(nss...); err != nil {
			return nil, nil, nil, nil, err
		}
		return namespaces, []*unstructured.Unstructured{clusterCatalog(in.CatalogSource.Name, b.index)}, nil, nil, nil
	}
	for _, o := range out.Objects {
		switch o.GetKind() {
		case "Namespace":
			namespaces = append(namespaces, o)
		case "ClusterCatalog":
			catalogs = append(catalogs, o)
		case "ClusterExtension":
			extensions = append(extensions, o)
		default:
			return nil, nil, nil, nil, fmt.Errorf("the render applies %s %s, which the v1 differential does not expect", o.GetKind(), o.GetName())
		}
	}
	if len(catalogs) != 1 {
		return nil, nil, nil, nil, fmt.Errorf("the render has %d ClusterCatalogs, want 1", len(catalogs))
	}
	for _, p := range out.Prediction {
		prediction = append(prediction, withoutPredictionMarks(p))
	}
	return namespaces, catalogs, extensions, prediction, nil
}

// extensionOf is the ClusterExtension olm-render writes for a case (olmv1/intent.go): named
// after the Subscription, in its namespace, pinned to the bundle's version on its channel, from
// the ClusterCatalog named after the CatalogSource, watching the OperatorGroup's one target
// namespace in Own and Single.
func extensionOf(c wholeCase, in installInputs, tree *catalog.Catalog) v1Extension {
	e := v1Extension{Name: in.Subscription.Name, Namespace: in.Subscription.Namespace, Package: c.Package,
		Channel: c.Channel, Catalog: in.CatalogSource.Name, Version: bundleVersion(tree, c)}
	if targets := in.OperatorGroup.Spec.TargetNamespaces; len(targets) == 1 {
		e.WatchNamespace = targets[0]
	}
	return e
}

// bundleVersion returns the version of a case's bundle, from its catalog.
func bundleVersion(cat *catalog.Catalog, c wholeCase) string {
	if p := cat.Package(c.Package); p != nil {
		if b := p.Bundle(c.Bundle); b != nil {
			return b.Version.String()
		}
	}
	return ""
}

// judgeV1 judges a case: both install (the objects compared), both refuse (the codes
// compared), or one refuses (a class of its own, naming who).
func judgeV1(r *v1Case, side *v1Side) {
	res := r.Result
	outcome := func(s, why string) {
		cl := differenceClass{Kind: "(install)", Path: "outcome", Side: s}
		res.Verdict, res.Reason = "differs", why
		res.Classes = map[differenceClass]int{cl: 1}
		res.Examples = map[differenceClass]classExample{cl: {Path: why}}
	}
	eligible := r.Verdict == olmv1.Eligible
	ours := strings.Join(r.Codes, ", ")
	if r.RenderErr != "" {
		ours = "fails: " + r.RenderErr
	}
	switch {
	case r.Installed == "" && !eligible:
		res.Verdict = "both refuse"
		res.Reason = fmt.Sprintf("operator-controller: %s; olm-render: %s", firstLine(r.Refusal), ours)
	case r.Installed == "":
		outcome(sideOurs, "operator-controller does not install ("+firstLine(r.Refusal)+"), olm-render renders")
	case !eligible:
		outcome(sideOLM, "operator-controller installs, olm-render "+ours)
	default:
		aside := side.setAside()
		side.OLM.Objects = dropAllocatedClusterIPs(side.OLM.Objects)
		side.Stored = dropAllocatedClusterIPs(side.Stored)
		res.Cmp = compareObjects(side.OLM.Objects, side.Stored)
		res.Classes, res.Examples = res.Cmp.classes()
		res.Verdict = "identical"
		if len(res.Cmp.Diffs) > 0 {
			res.Verdict = "differs"
		}
		addClasses(res, aside)
		addClasses(res, refusedClasses(side.Refused))
	}
}

// The classes of what setAside sets aside; Helm's metadata and ownerReference are one class
// each for every kind (releaseObjects).
const (
	releaseObjects   = "(every object of the release)"
	helmReleasePath  = "(the Helm release, stored in olmv1-system)"
	helmMetadataPath = "(Helm's release metadata: meta.helm.sh/release-name and -namespace, app.kubernetes.io/managed-by: Helm)"
	helmOwnerPath    = "(the ownerReference to the ClusterExtension)"
)

// setAside takes out of operator-controller's objects what its Helm applier adds to every
// install, and returns its classes, so that what remains is compared as the render and its
// prediction have it: the release itself (the chunked Secrets of the release in olmv1-system),
// and on each object of the release Helm's release metadata (the two meta.helm.sh annotations
// naming the ClusterExtension and its namespace, and app.kubernetes.io/managed-by: Helm where
// the bundle's object does not set that label) and the controller ownerReference to the
// ClusterExtension. Only these exact values are taken out: anything else shows as a difference.
func (side *v1Side) setAside() map[differenceClass]classExample {
	out := map[differenceClass]classExample{}
	ext := extensionIn(side.OLM.Objects)
	if ext == nil {
		return out
	}
	name, ns := str(mapOf(ext["metadata"])["name"]), str(mapOf(ext["spec"])["namespace"])
	stored := map[objectID]map[string]any{}
	for _, o := range side.Stored {
		stored[idOf(o)] = o
	}
	var kept []map[string]any
	for _, o := range side.OLM.Objects {
		id := idOf(o)
		if id.Kind == "Secret" && id.Namespace == live.V1SystemNamespace && strings.HasPrefix(str(o["type"]), "operatorframework.io/") {
			out[differenceClass{Kind: kindOf(id), Path: helmReleasePath, Side: sideOLM}] = classExample{Object: id}
			continue
		}
		kept = append(kept, o)
		if id.Group == v1Group || (id.Group == "" && id.Kind == "Namespace") {
			continue
		}
		if takeHelmMetadata(o, stored[id], name, ns) {
			out[differenceClass{Kind: releaseObjects, Path: helmMetadataPath, Side: sideOLM}] = classExample{Object: id}
		}
		if takeOwnerReference(o, name) {
			out[differenceClass{Kind: releaseObjects, Path: helmOwnerPath, Side: sideOLM}] = classExample{Object: id}
		}
	}
	side.OLM.Objects = kept
	return out
}

// extensionIn returns the ClusterExtension among objects, or nil.
func extensionIn(objs []map[string]any) map[string]any {
	for _, o := range objs {
		if id := idOf(o); id.Kind == "ClusterExtension" && id.Group == v1Group {
			return o
		}
	}
	return nil
}

// takeHelmMetadata removes Helm's release metadata from an object of the release named name in
// namespace ns (helm.sh/helm/v3 pkg/action/validate.go setMetadataVisitor): the annotations when
// they name the release, the managed-by label when it says Helm and the rendered object does
// not set it. It reports whether it removed anything.
func takeHelmMetadata(o, rendered map[string]any, name, ns string) bool {
	md := mapOf(o["metadata"])
	ann, labels := mapOf(md["annotations"]), mapOf(md["labels"])
	took := false
	if ann["meta.helm.sh/release-name"] == name && ann["meta.helm.sh/release-namespace"] == ns {
		delete(ann, "meta.helm.sh/release-name")
		delete(ann, "meta.helm.sh/release-namespace")
		took = true
	}
	_, ours := mapOf(mapOf(rendered["metadata"])["labels"])["app.kubernetes.io/managed-by"]
	if labels["app.kubernetes.io/managed-by"] == "Helm" && !ours {
		delete(labels, "app.kubernetes.io/managed-by")
		took = true
	}
	for _, k := range []string{"annotations", "labels"} {
		if m, ok := md[k].(map[string]any); ok && len(m) == 0 {
			delete(md, k)
		}
	}
	return took
}

// takeOwnerReference removes the controller ownerReference to the ClusterExtension named name
// (helm-operator-plugins pkg/client/postrenderer.go ownerPostRenderer). It reports whether it
// removed it.
func takeOwnerReference(o map[string]any, name string) bool {
	md := mapOf(o["metadata"])
	refs := listOf(md["ownerReferences"])
	kept := slices.DeleteFunc(slices.Clone(refs), func(r any) bool {
		ref := mapOf(r)
		return ref["kind"] == "ClusterExtension" && ref["name"] == name && ref["apiVersion"] == olmv1.APIVersion &&
			ref["controller"] == true && ref["blockOwnerDeletion"] == true
	})
	if len(kept) == len(refs) {
		return false
	}
	if len(kept) == 0 {
		delete(md, "ownerReferences")
	} else {
		md["ownerReferences"] = kept
	}
	return true
}

// summary says in a few words how a case went.
func (r *v1Case) summary() string {
	switch {
	case r.Result.Verdict == "error":
		return "error: " + r.Result.Reason
	case r.Installed != "" && r.Verdict == olmv1.Eligible:
		return fmt.Sprintf("installed %s; %s", r.Installed, r.Result.Verdict)
	case r.Installed == "" && r.Verdict != olmv1.Eligible:
		return fmt.Sprintf("both refuse: operator-controller %s, olm-render %s", cmp.Or(r.RefusalCode, "(no code)"), cmp.Or(strings.Join(r.Codes, ","), "fails: "+r.RenderErr))
	}
	return r.Result.Reason
}

// failures are what makes a case fail the test: harness errors, a difference class nobody
// explained, a refusal operator-controller makes for a reason olm-render does not give.
func (r *v1Case) failures() []string {
	out := slices.Clone(r.Result.Failures)
	for cl := range r.Result.Classes {
		if _, ok := v1KnownFor(cl); !ok {
			out = append(out, fmt.Sprintf("difference class not known: %s (e.g. %s)", cl, r.Result.Examples[cl].describe()))
		}
	}
	if r.RenderErr != "" && r.Result.Verdict != "error" {
		out = append(out, "olm-render fails before any verdict: "+r.RenderErr)
	}
	if r.Installed == "" && r.Verdict != olmv1.Eligible && r.RenderErr == "" && r.Result.Verdict != "error" {
		switch {
		case r.RefusalCode == "":
			out = append(out, "operator-controller's refusal maps to no code (v1RefusalCodes): "+firstLine(r.Refusal))
		case !slices.Contains(r.Codes, r.RefusalCode):
			out = append(out, fmt.Sprintf("operator-controller refuses for %s (%s), olm-render for %s", r.RefusalCode, firstLine(r.Refusal), strings.Join(r.Codes, ", ")))
		}
	}
	return out
}

// v1Refusal maps what operator-controller says when it does not install a bundle to
// olmv1.Check's code, with the code that says it.
type v1Refusal struct {
	Pattern *regexp.Regexp
	Code    olmv1.Code
	Rule    string
}

// v1RefusalCodes are operator-controller v1.11.0's refusals, as its ClusterExtension's
// Progressing condition says them, by the code olm-render gives the same rule.
var v1RefusalCodes = []v1Refusal{
	{regexp.MustCompile(`has a dependency declared via property`), olmv1.CodeDependency, "resolve/validation.go NoDependencyValidation"},
	{regexp.MustCompile(`apiServiceDefintions are not supported`), olmv1.CodeAPIService, "applier/provider.go"},
	{regexp.MustCompile(`webhookDefinitions are not supported`), olmv1.CodeNoCertProvider, "applier/provider.go"},
	{regexp.MustCompile(`bundle does not support AllNamespaces install mode|must support at least one of|do not support target|do not support targeting|watchNamespace`), olmv1.CodeInstallMode, "applier/provider.go, rukpak/render/render.go validateTargetNamespaces, rukpak/bundle/registryv1.go"},
	{regexp.MustCompile(`conversion webhooks are only supported for bundles that only support AllNamespaces`), olmv1.CodeConversionWebhook, "validators.CheckConversionWebhookSupport"},
	{regexp.MustCompile(`references custom resource definition .* not owned|reference same custom resource definition|referenced by multiple conversion webhook`), olmv1.CodeConversionCRD, "validators.CheckConversionWebhooksReferenceOwnedCRDs, CheckConversionWebhookCRDReferenceUniqueness"},
	{regexp.MustCompile(`contains forbidden rule`), olmv1.CodeWebhookRules, "validators.CheckWebhookRules"},
	{regexp.MustCompile(`references non-existent deployment`), olmv1.CodeWebhookDeployment, "validators.CheckWebhookDeploymentReferentialIntegrity"},
	{regexp.MustCompile(`duplicate webhook|webhook of type .* has invalid name`), olmv1.CodeWebhookName, "validators.CheckWebhookNameUniqueness, CheckWebhookNameIsDNS1123SubDomain"},
	{regexp.MustCompile(`duplicate strategy deployment spec|invalid cluster service version strategy deployment name`), olmv1.CodeDeploymentName, "validators.CheckDeploymentSpecUniqueness, CheckDeploymentNameIsDNS1123SubDomain"},
	{regexp.MustCompile(`owned custom resource definition .* not found in bundle|duplicate custom resource definition`), olmv1.CodeOwnedCRD, "validators.CheckOwnedCRDExistence, CheckCRDResourceUniqueness"},
	{regexp.MustCompile(`preserveUnknownFields set to false`), olmv1.CodePreserveUnknownFields, "generators.BundleCRDGenerator"},
	{regexp.MustCompile(`unsupported resource`), olmv1.CodeUnsupportedObject, "validators.CheckObjectSupport, generators.BundleAdditionalResourcesGenerator"},
}

// v1RefusalCode returns the code of operator-controller's refusal, or "".
func v1RefusalCode(msg string) string {
	for _, r := range v1RefusalCodes {
		if r.Pattern.MatchString(msg) {
			return string(r.Code)
		}
	}
	return ""
}

// v1RefusalRule names the operator-controller code behind a refusal code, or "".
func v1RefusalRule(code string) string {
	for _, r := range v1RefusalCodes {
		if string(r.Code) == code {
			return r.Rule
		}
	}
	return ""
}

// v1ReportText renders the report: the counts, the refusals by code from both sides, the
// difference classes with why each is known, and every case.
func v1ReportText(results []*v1Case) []byte {
	var b bytes.Buffer
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(x, y *v1Case) int { return strings.Compare(x.Case.String(), y.Case.String()) })
	fmt.Fprintf(&b, "# olm-render --olm=v1 against operator-controller and catalogd %s on a real API server: TestLiveV1Corpus\n", live.OperatorControllerVersion)
	fmt.Fprintf(&b, "# (regenerate with: go test -run TestLiveV1Corpus -update .; docs/live-olm.md, docs/olm-differences.md)\n")
	fmt.Fprintf(&b, "# cases: the head of each package's default channel in shared/catalogs/%s, in every install mode it supports that\n", liveCatalog)
	fmt.Fprintf(&b, "# OLM v1 can be asked for: AllNamespaces (standard gates and CRDs), OwnNamespace and SingleNamespace\n")
	fmt.Fprintf(&b, "# (SingleOwnNamespaceInstallSupport on, experimental CRDs); the catalog published in the in-process registry\n")
	fmt.Fprintf(&b, "# normalisation: TestLiveInstall's (the render as the API server stores it, allocated cluster IPs, then uids,\n")
	fmt.Fprintf(&b, "# resourceVersions, managedFields, status, generated CA material)\n\n")
	var identical, knownOnly, unknown, sameCode, otherCode, outcome, other int
	for _, r := range sorted {
		switch {
		case r.Result.Verdict == "identical":
			identical++
		case r.Result.Verdict == "both refuse" && r.RefusalCode != "" && slices.Contains(r.Codes, r.RefusalCode):
			sameCode++
		case r.Result.Verdict == "both refuse":
			otherCode++
		case r.Result.Verdict == "differs" && r.Result.Cmp == nil:
			outcome++
		case r.Result.Verdict == "differs" && len(r.unknownClasses()) == 0:
			knownOnly++
		case r.Result.Verdict == "differs":
			unknown++
		default:
			other++
		}
	}
	fmt.Fprintf(&b, "both install: identical, known-only (every difference of a known class), unknown (a class nobody explained);\n")
	fmt.Fprintf(&b, "both refuse: for the same reason code, or not (olm-render failing before a verdict included);\n")
	fmt.Fprintf(&b, "one installs, the other refuses; harness errors\n")
	fmt.Fprintf(&b, "%6s %10s %11s %8s %15s %15s %15s %6s\n", "cases", "identical", "known-only", "unknown", "refuse: same", "refuse: other", "one refuses", "error")
	fmt.Fprintf(&b, "%6d %10d %11d %8d %15d %15d %15d %6d\n", len(sorted), identical, knownOnly, unknown, sameCode, otherCode, outcome, other)
	writeV1Refusals(&b, sorted)
	writeV1Classes(&b, sorted)
	fmt.Fprintf(&b, "\ncases: operator-controller | olm-render: verdict\n")
	for _, r := range sorted {
		oc := "installed " + r.Installed
		if r.Installed == "" {
			oc = "refused [" + cmp.Or(r.RefusalCode, "no code") + "] " + firstLine(r.Refusal)
		}
		ours := string(r.Verdict)
		if len(r.Codes) > 0 {
			ours += " [" + strings.Join(r.Codes, ", ") + "]"
		}
		if r.RenderErr != "" {
			ours = "fails: " + r.RenderErr
		}
		fmt.Fprintf(&b, "  %s: %s | %s: %s\n", r.Case, oc, ours, r.Result.Verdict)
		for _, cl := range slices.SortedFunc(maps.Keys(r.Result.Classes), compareClasses) {
			if cl.Kind != "(install)" {
				fmt.Fprintf(&b, "      %s (%d)\n", cl, r.Result.Classes[cl])
			}
		}
	}
	return b.Bytes()
}

// writeV1Refusals writes the refusals by code, from both sides: how many cases each refuses
// for the code, and in how many both do.
func writeV1Refusals(b *bytes.Buffer, sorted []*v1Case) {
	type counts struct{ oc, ours, both int }
	byCode := map[string]*counts{}
	at := func(code string) *counts {
		if byCode[code] == nil {
			byCode[code] = &counts{}
		}
		return byCode[code]
	}
	for _, r := range sorted {
		if r.Result.Verdict == "error" {
			continue
		}
		if r.Installed == "" {
			at(cmp.Or(r.RefusalCode, "(no code)")).oc++
		}
		if r.RenderErr != "" {
			at("(olm-render fails)").ours++
		}
		for _, c := range r.Codes {
			at(c).ours++
			if r.Installed == "" && r.RefusalCode == c {
				at(c).both++
			}
		}
	}
	fmt.Fprintf(b, "\nrefusals by reason code: cases operator-controller refuses | olm-render refuses | both; operator-controller's rule\n")
	for _, code := range slices.Sorted(maps.Keys(byCode)) {
		c := byCode[code]
		line := fmt.Sprintf("  %-24s %4d | %4d | %4d   %s", code, c.oc, c.ours, c.both, v1RefusalRule(code))
		fmt.Fprintln(b, strings.TrimRight(line, " "))
	}
}

// writeV1Classes writes every difference class: in how many cases, how often, a first example
// and why it is known.
func writeV1Classes(b *bytes.Buffer, sorted []*v1Case) {
	stats := map[differenceClass][2]int{}
	examples := map[differenceClass]string{}
	for _, r := range sorted {
		for cl, n := range r.Result.Classes {
			st := stats[cl]
			st[0]++
			st[1] += n
			stats[cl] = st
			if _, ok := examples[cl]; !ok {
				examples[cl] = r.Case.String() + ": " + r.Result.Examples[cl].describe()
			}
		}
	}
	fmt.Fprintf(b, "\ndifference classes: kind, field path, side; cases, occurrences; first example; why\n")
	for _, cl := range slices.SortedFunc(maps.Keys(stats), compareClasses) {
		why := "NOT KNOWN"
		if k, ok := v1KnownFor(cl); ok {
			why = k.Reason + " [operator-controller: " + k.DecidedBy + "]"
		}
		fmt.Fprintf(b, "  %s: %d cases, %d occurrences\n      e.g. %s\n      %s\n", cl, stats[cl][0], stats[cl][1], examples[cl], why)
	}
}

// unknownClasses lists a case's classes nobody explained.
func (r *v1Case) unknownClasses() []differenceClass {
	var out []differenceClass
	for cl := range r.Result.Classes {
		if _, ok := v1KnownFor(cl); !ok {
			out = append(out, cl)
		}
	}
	return out
}

// v1Group is OLM v1's API group.
const v1Group = "olm.operatorframework.io"

// v1KnownDifferences are the difference classes of the v1 differential, each with why and the
// operator-controller v1.11.0 code that decides it (paths under internal/ unless named
// otherwise); docs/olm-differences.md documents them. The classes of what setAside sets aside
// are v1KnownFor's, whatever the kind.
var v1KnownDifferences = map[differenceClass]knownDifference{
	{Kind: "ClusterExtension." + v1Group, Path: "metadata.finalizers", Side: sideOLM}: {
		"operator-controller adds its finalizers (olm.operatorframework.io/cleanup-unpack-cache, cleanup-contentmanager-cache) to every ClusterExtension it reconciles; a render writes none, and must not (GitOps would remove them)",
		"operator-controller/controllers/clusterextension_controller.go, clusterextension_reconcile_steps.go HandleFinalizers; cmd/operator-controller/main.go registers them"},
	{Kind: "ClusterCatalog." + v1Group, Path: "metadata.finalizers", Side: sideOLM}: {
		"catalogd adds its finalizer (olm.operatorframework.io/delete-server-cache) to every ClusterCatalog it unpacks; a render writes none, and must not",
		"catalogd/controllers/core/clustercatalog_controller.go (fbcDeletionFinalizer)"},
}

// The reasons of setAside's classes.
var (
	helmRelease = knownDifference{
		"operator-controller's Helm applier stores each ClusterExtension's release (the rendered manifest, gzipped, with its install time) in chunked Secrets in olmv1-system, owned by the ClusterExtension: operator-controller's state, as InstallPlans are OLM v0's, which the prediction does not hold",
		"operator-controller/action/storagedriver.go (ChunkedStorageDriverMapper), helm-operator-plugins pkg/storage/chunked.go"}
	helmMetadata = knownDifference{
		"Helm marks every object of a release with the annotations meta.helm.sh/release-name (the ClusterExtension) and meta.helm.sh/release-namespace (its spec.namespace) and the label app.kubernetes.io/managed-by: Helm; where the bundle's object sets that label, operator-controller's next reconcile patches it back to the bundle's value. The prediction leaves Helm's metadata out (docs/olm-differences.md: the Boxcutter applier writes none); setAside takes out exactly these values",
		"operator-controller/applier/helm.go (Install, Upgrade, then Reconcile of an unchanged release); helm.sh/helm/v3 pkg/action/install.go and validate.go setMetadataVisitor; helm-operator-plugins pkg/client/actionclient.go Reconcile"}
	helmOwner = knownDifference{
		"every object of the release is owned by the ClusterExtension (a controller ownerReference with blockOwnerDeletion), written by helm-operator-plugins' default post-renderer; the prediction leaves it out (the owner's UID is the API server's); setAside takes out exactly this reference",
		"operator-controller/applier/helm.go (the action client getter's post-renderers); helm-operator-plugins pkg/client/postrenderer.go ownerPostRenderer"}
)

// v1KnownFor returns why a class of the v1 differential is expected.
func v1KnownFor(cl differenceClass) (knownDifference, bool) {
	if k, ok := v1KnownDifferences[cl]; ok {
		return k, true
	}
	if cl.Side != sideOLM {
		return knownDifference{}, false
	}
	switch {
	case cl.Path == helmReleasePath && cl.Kind == "Secret":
		return helmRelease, true
	case cl.Path == helmMetadataPath && cl.Kind == releaseObjects:
		return helmMetadata, true
	case cl.Path == helmOwnerPath && cl.Kind == releaseObjects:
		return helmOwner, true
	}
	return knownDifference{}, false
}

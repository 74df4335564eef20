package olmv1

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

var update = flag.Bool("update", false, "update golden files")

// load loads and resolves the inputs at path.
func load(t *testing.T, path string) (*inputs.Set, *resolver.Result) {
	t.Helper()
	set, err := inputs.Load([]string{path}, fixture.Options(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return set, res
}

// renderCase renders testdata/<name>/input.
func renderCase(t *testing.T, name string, opts Options) (*Result, error) {
	t.Helper()
	set, res := load(t, filepath.Join("testdata", name, "input"))
	return Render(set, res, opts)
}

// golden compares got with the file at path, or writes it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs; rerun with -update and review the diff", path)
	}
}

// stream writes what Git applies, then the prediction.
func stream(t *testing.T, res *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := emit.Stream(&b, res.Objects); err != nil {
		t.Fatal(err)
	}
	b.WriteString("# prediction\n")
	if err := emit.Stream(&b, res.Prediction); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// find returns the object of a kind and name, or fails.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

// str returns a nested string field.
func str(u *unstructured.Unstructured, fields ...string) string {
	s, _, _ := unstructured.NestedString(u.Object, fields...)
	return s
}

// TestIntent renders kube-green, a dependency-free operator of the corpus, for operator-controller
// v1.11: Git applies the Namespace, a ClusterCatalog pinned by digest with its name label and
// priority, a ClusterExtension pinned to the resolved version on its channel from that catalog
// alone, and what the inputs pass through; no OLM v0 object. The prediction holds what
// operator-controller creates (its webhook served with cert-manager's certificates), marked and
// labelled with its owner.
func TestIntent(t *testing.T) {
	res, err := renderCase(t, "kube-green", Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "kube-green", "want.yaml"), stream(t, res))
	again, err := renderCase(t, "kube-green", Options{})
	if err != nil || !bytes.Equal(stream(t, again), stream(t, res)) {
		t.Errorf("a second render differs (%v)", err)
	}
	var kinds []string
	for _, o := range res.Objects {
		kinds = append(kinds, o.GetKind())
	}
	if want := []string{"Namespace", "ConfigMap", "ClusterCatalog", "ClusterExtension"}; !slices.Equal(kinds, want) {
		t.Errorf("applied %v, want %v", kinds, want)
	}
	cc := find(t, res.Objects, "ClusterCatalog", "community")
	if got := str(cc, "spec", "source", "image", "ref"); got != "registry.redhat.io/redhat/community-operator-index@sha256:92d6d2d802dfa2c9ae9366e3698f047feba769aa964178a032030974515fc8d7" {
		t.Errorf("ClusterCatalog image %q", got)
	}
	if cc.GetLabels()[CatalogNameLabel] != "community" {
		t.Errorf("ClusterCatalog labels %v", cc.GetLabels())
	}
	ce := find(t, res.Objects, "ClusterExtension", "kube-green")
	for field, want := range map[string]string{"namespace": "kube-green", "source.catalog.version": "0.7.1", "source.catalog.packageName": "kube-green",
		"source.catalog.upgradeConstraintPolicy": "CatalogProvided", "source.catalog.selector.matchLabels." + CatalogNameLabel: "community"} {
		if got := str(ce, append([]string{"spec"}, splitField(field)...)...); got != want {
			t.Errorf("ClusterExtension spec.%s = %q, want %q", field, got, want)
		}
	}
	if _, ok := ce.Object["spec"].(map[string]any)["serviceAccount"]; ok {
		t.Error("a ClusterExtension for v1.11 names a ServiceAccount")
	}
	checkPrediction(t, res.Prediction, "kube-green")
	if !slices.ContainsFunc(res.Prediction, func(o *unstructured.Unstructured) bool { return o.GetKind() == "Certificate" }) {
		t.Error("no cert-manager Certificate for kube-green's webhook")
	}
}

// splitField splits a dotted field path whose last element may hold dots (a label key).
func splitField(field string) []string {
	if before, after, ok := strings.Cut(field, ".matchLabels."); ok {
		return append(strings.Split(before, "."), "matchLabels", after)
	}
	return strings.Split(field, ".")
}

// checkPrediction checks every predicted object is marked and owned by the extension.
func checkPrediction(t *testing.T, prediction []*unstructured.Unstructured, extension string) {
	t.Helper()
	if len(prediction) == 0 {
		t.Fatal("no prediction")
	}
	for _, o := range prediction {
		where := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
		if a := o.GetAnnotations(); a[emit.PredictionAnnotation] != "true" || a[emit.LocalConfigAnnotation] != "true" {
			t.Errorf("%s is not marked: %v", where, a)
		}
		if l := o.GetLabels(); l[OwnerKindLabel] != "ClusterExtension" || l[OwnerNameLabel] != extension {
			t.Errorf("%s: owner labels %v", where, l)
		}
		if o.GetKind() == "ClusterServiceVersion" || o.GetKind() == "OperatorCondition" {
			t.Errorf("v1 creates no %s", o.GetKind())
		}
	}
}

// TestInstallerServiceAccount renders kube-green for operator-controller v1.10, which installs
// with the ServiceAccount a ClusterExtension names: Git applies it with its RBAC.
func TestInstallerServiceAccount(t *testing.T) {
	res, err := renderCase(t, "kube-green", Options{OperatorController: Version{1, 10}})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "kube-green", "want-v1.10.yaml"), stream(t, res))
	ce := find(t, res.Objects, "ClusterExtension", "kube-green")
	if got := str(ce, "spec", "serviceAccount", "name"); got != "kube-green-installer" {
		t.Errorf("spec.serviceAccount.name %q", got)
	}
	sa := find(t, res.Objects, "ServiceAccount", "kube-green-installer")
	if sa.GetNamespace() != "kube-green" {
		t.Errorf("installer in namespace %q", sa.GetNamespace())
	}
	cr := find(t, res.Objects, "ClusterRole", "kube-green-installer")
	rules, _, _ := unstructured.NestedSlice(cr.Object, "rules")
	var finalizers, crds bool
	for _, r := range rules {
		r := r.(map[string]any)
		res, _ := r["resources"].([]any)
		verbs, _ := r["verbs"].([]any)
		finalizers = finalizers || slices.Contains(res, any("clusterextensions/finalizers"))
		crds = crds || (slices.Contains(res, any("customresourcedefinitions")) && slices.Contains(verbs, any("create")))
	}
	if !finalizers || !crds {
		t.Errorf("installer ClusterRole lacks the finalizers or CRD rules: %v", rules)
	}
	find(t, res.Objects, "ClusterRoleBinding", "kube-green-installer")
	find(t, res.Objects, "Role", "kube-green-installer")
}

// TestGates renders ecr-secret-operator watching its own namespace, with a Subscription
// config: it needs both gates, and with them on the ClusterExtension carries watchNamespace and
// the deploymentConfig (without the selector, which v1 does not have), on the package's
// default channel, and the prediction holds Roles in the watched namespace.
func TestGates(t *testing.T) {
	_, err := renderCase(t, "gates", Options{})
	var refusal *Refusal
	if !errors.As(err, &refusal) || len(refusal.Verdicts) != 1 {
		t.Fatalf("want a Refusal of one Subscription, got %v", err)
	}
	v := refusal.Verdicts[0]
	if v.Outcome != NeedsGate || !slices.Equal(v.Gates(), []Gate{DeploymentConfig, SingleOwnNamespaceInstallSupport}) {
		t.Errorf("verdict %s with gates %v, want needs-gate with both gates", v.Outcome, v.Gates())
	}
	res, err := renderCase(t, "gates", Options{Gates: Gates})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "gates", "want.yaml"), stream(t, res))
	ce := find(t, res.Objects, "ClusterExtension", "ecr-secret-operator")
	if got := str(ce, "spec", "config", "inline", "watchNamespace"); got != "ecr" {
		t.Errorf("watchNamespace %q", got)
	}
	if got, _, _ := unstructured.NestedStringSlice(ce.Object, "spec", "source", "catalog", "channels"); !slices.Equal(got, []string{"alpha"}) {
		t.Errorf("channels %v, want the default channel", got)
	}
	dc, _, _ := unstructured.NestedMap(ce.Object, "spec", "config", "inline", "deploymentConfig")
	if _, ok := dc["selector"]; ok || dc["env"] == nil || dc["nodeSelector"] == nil {
		t.Errorf("deploymentConfig %v", dc)
	}
	if !slices.ContainsFunc(res.Warnings, func(p diag.Problem) bool { return p.Field == "spec.config.selector" }) {
		t.Errorf("no warning about the dropped selector: %v", res.Warnings)
	}
	if !slices.ContainsFunc(res.Prediction, func(o *unstructured.Unstructured) bool { return o.GetKind() == "Role" && o.GetNamespace() == "ecr" }) {
		t.Error("no Role in the watched namespace")
	}
	checkPrediction(t, res.Prediction, "ecr-secret-operator")
}

// TestQuickstart renders examples/quickstart for OLM v1: widget-operator requires the Gadget
// API (olm.gvk.required, from its CSV's required CRD), which v1 refuses, and gadget-operator is
// the Subscription OLM v0 generated for it.
func TestQuickstart(t *testing.T) {
	set, res := load(t, filepath.Join("..", "examples", "quickstart", "input"))
	_, err := Render(set, res, Options{})
	var refusal *Refusal
	if !errors.As(err, &refusal) {
		t.Fatalf("want a Refusal, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"widget-operator", "Gadget API", "olm.gvk.required", "[dependency]", "[dependent]", "widget-operator.clusterserviceversion.yaml", "spec.customresourcedefinitions.required[0]", "resolve/validation.go NoDependencyValidation"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, msg)
		}
	}
	partial, err := Render(set, res, Options{AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(partial.Objects, func(o *unstructured.Unstructured) bool { return o.GetKind() == "ClusterExtension" }) {
		t.Error("a ClusterExtension for a refused Subscription")
	}
	left := 0
	for _, w := range partial.Warnings {
		if strings.Contains(w.Message, "left to OLM v0") {
			left++
		}
	}
	if left != 2 {
		t.Errorf("%d Subscriptions left to OLM v0, want 2: %v", left, partial.Warnings)
	}
}

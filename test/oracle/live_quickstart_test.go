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

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/oracle/live"
)

// quickstartDir is the bundled example.
const quickstartDir = "../../examples/quickstart"

// liveQuickstartGolden records what live OLM did with the quickstart.
const liveQuickstartGolden = "testdata/live-quickstart.txt"

// quickstartInputs reads the quickstart's inputs, with the Namespace of its CatalogSource
// (which a cluster with OLM has already) and the CatalogSource served at address.
func quickstartInputs(t *testing.T, address string) installInputs {
	t.Helper()
	in := installInputs{}
	read := func(name string, into any) {
		data, err := os.ReadFile(filepath.Join(quickstartDir, "input", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, into); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	in.OperatorGroup, in.CatalogSource, in.Subscription = &operatorsv1.OperatorGroup{}, &v1alpha1.CatalogSource{}, &v1alpha1.Subscription{}
	read("operatorgroup.yaml", in.OperatorGroup)
	read("catalogsource.yaml", in.CatalogSource)
	read("subscription.yaml", in.Subscription)
	data, err := os.ReadFile(filepath.Join(quickstartDir, "input", "namespaces.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		ns := &corev1.Namespace{}
		if err := yaml.UnmarshalStrict(doc, ns); err != nil {
			t.Fatalf("namespaces.yaml: %v", err)
		}
		in.Namespaces = append(in.Namespaces, ns)
	}
	in.Namespaces = append(in.Namespaces, &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: in.CatalogSource.Namespace}})
	in.CatalogSource.Spec.Address = address
	return in
}

// TestLiveQuickstart installs the quickstart with OLM's own controllers on a real API server:
// widget-operator requires the Gadget API, so OLM's resolution pulls in gadget-operator; one
// InstallPlan installs both; both CSVs succeed; and every object OLM created equals the render
// after the documented normalisation (only known difference classes).
func TestLiveQuickstart(t *testing.T) {
	cl := liveCluster(t)
	quietOLMLogs()
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
	inputDir := filepath.Join(tmp, "inputs")
	if err := os.Mkdir(inputDir, 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := bindCatalog(quickstartInputs(t, srv.Address), fbc, inputDir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := renderMaps(ctx, in, inputDir, serverVersion(t, cl))
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	side, err := installLive(ctx, cl, in, out, live.ApproveAll, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if side.OLM.Failure != "" {
		t.Fatalf("OLM did not install the quickstart: %s", side.OLM.Failure)
	}
	if err := side.dump("quickstart"); err != nil {
		t.Fatal(err)
	}
	r := &caseResult{}
	judgeLive(r, side, in, nil)
	for _, msg := range side.Refused {
		t.Errorf("the API server refuses a rendered object: %s", msg)
	}
	for cl := range r.Classes {
		if isUnknown(cl) && !isLiveKnown(cl) {
			t.Errorf("difference class not known: %s (e.g. %s)", cl, r.Examples[cl].describe())
		}
	}
	for _, d := range r.Cmp.Diffs {
		if slices.ContainsFunc(d.classes(), func(cl differenceClass) bool { return isUnknown(cl) && !isLiveKnown(cl) }) {
			t.Logf("%s", describeDiff(d))
		}
	}
	report := quickstartReport(side, r)
	checkGolden(t, liveQuickstartGolden, report)
}

// quickstartReport records the InstallPlans OLM made (approval, steps), the CSVs and their
// phases, and the difference classes.
func quickstartReport(side *liveSide, r *caseResult) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The quickstart installed by OLM v0.46.0's own controllers on a real API server: TestLiveQuickstart\n")
	fmt.Fprintf(&b, "# (regenerate with: go test -run TestLiveQuickstart -update .)\n\n")
	for _, o := range side.OLM.Objects {
		switch o["kind"] {
		case "InstallPlan":
			ip := &v1alpha1.InstallPlan{}
			if err := fromMap(o, ip); err != nil {
				fmt.Fprintf(&b, "InstallPlan: %v\n", err)
				continue
			}
			// OLM orders neither the CSVs of a plan nor the steps of one kind: sorted here.
			fmt.Fprintf(&b, "InstallPlan %s/%s: approval %s, approved %v, phase %s\n  clusterServiceVersionNames: %s\n",
				ip.Namespace, generatedName(ip.Name), ip.Spec.Approval, ip.Spec.Approved, ip.Status.Phase,
				strings.Join(slices.Sorted(slices.Values(ip.Spec.ClusterServiceVersionNames)), ", "))
			var steps []string
			for _, s := range ip.Status.Plan {
				steps = append(steps, fmt.Sprintf("  step: resolving %s: %s %s (%s)\n", s.Resolving, s.Resource.Kind, s.Resource.Name, s.Status))
			}
			slices.Sort(steps)
			b.WriteString(strings.Join(steps, ""))
		case "ClusterServiceVersion":
			csv := &v1alpha1.ClusterServiceVersion{}
			if err := fromMap(o, csv); err != nil {
				fmt.Fprintf(&b, "CSV: %v\n", err)
				continue
			}
			copied := ""
			if _, ok := csv.Labels[v1alpha1.CopiedLabelKey]; ok {
				copied = " (copy)"
			}
			fmt.Fprintf(&b, "CSV %s/%s%s: %s (%s)\n", csv.Namespace, csv.Name, copied, csv.Status.Phase, csv.Status.Reason)
		}
	}
	fmt.Fprintf(&b, "\ndifference classes (those that depend on timing left out: docs/live-olm.md)\n")
	for _, cl := range slices.SortedFunc(maps.Keys(r.Classes), compareClasses) {
		if isTiming(cl) {
			continue
		}
		fmt.Fprintf(&b, "  %s (%d): %s\n", cl, r.Classes[cl], liveReason(cl))
	}
	return b.Bytes()
}

// generatedName replaces the random suffix of a name the API server generated (InstallPlans'
// install-xxxxx) with x's.
func generatedName(name string) string {
	if prefix, suffix, ok := strings.Cut(name, "-"); ok && prefix == "install" && len(suffix) == 5 {
		return prefix + "-xxxxx"
	}
	return name
}

package apiserver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/cluster/live"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

// nfdCatalog is the NFD stand-in catalog, which provides the API special-resource-operator
// requires.
var nfdCatalog = filepath.Join("..", "..", "resolver", "testdata", "nfd")

// operatorsCatalog returns the corpus's operators, as an absolute path (fixture.Corpus: the test
// is skipped without them, and fails under CI).
func operatorsCatalog(t *testing.T) string {
	t.Helper()
	return filepath.Join(fixture.Corpus(t), "operators")
}

// applyFixture applies the objects of a YAML file.
func applyFixture(t *testing.T, c *live.Cluster, path string) {
	t.Helper()
	items, problems := inputs.ReadFile(path)
	if err := problems.Err(); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, it := range items {
		objs = append(objs, it.Object)
	}
	if _, err := c.Apply(context.Background(), objs); err != nil {
		t.Fatalf("applying %s: %v", path, err)
	}
}

func connect(t *testing.T) *live.Cluster {
	t.Helper()
	c, err := live.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render renders inputs with the OLM CRDs, so CSVs and OperatorGroups apply.
func render(t *testing.T, paths ...string) []*unstructured.Unstructured {
	t.Helper()
	req := pipeline.Request{Paths: paths}
	req.Render.IncludeOLMCRDs = true
	set, err := inputs.Load(paths, fixture.SystemOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pipeline.RunSet(context.Background(), set, req)
	if err != nil {
		t.Fatal(err)
	}
	return out.Objects
}

// applyTwice applies objs, checks every object was accepted, applies again and checks nothing
// changed. It returns the number of objects applied.
func applyTwice(t *testing.T, c *live.Cluster, objs []*unstructured.Unstructured) int {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Apply(ctx, objs); err != nil {
		t.Fatalf("the API server rejected the render: %v", err)
	}
	cs, err := c.Apply(ctx, objs)
	if err != nil {
		t.Fatalf("second apply: %v", err)
	}
	var changed []string
	for _, e := range cs.Entries {
		if e.Action != ssa.UnchangedAction && e.Action != ssa.SkippedAction {
			changed = append(changed, fmt.Sprintf("%s (%s)", e.Subject, e.Action))
		}
	}
	if len(changed) > 0 {
		t.Errorf("a second apply changed %d objects; the render is not stable against the server's defaulting:\n%s",
			len(changed), strings.Join(changed, "\n"))
	}
	return len(objs)
}

func TestQuickstartApplies(t *testing.T) {
	needServer(t)
	applyFixture(t, connect(t), "testdata/crds/cert-manager.yaml")
	objs := render(t, "../../examples/quickstart/input")
	n := applyTwice(t, connect(t), objs)
	t.Logf("quickstart: %d objects applied and stable", n)
}

// TestBrokenRenderRejected applies a render of a bundle whose Deployment is invalid in a way only
// the API server checks (a container port above 65535): the server must reject it and the error
// must name the object and carry the server's message.
func TestBrokenRenderRejected(t *testing.T) {
	needServer(t)
	objs := render(t, "testdata/broken/input")
	_, err := connect(t).Apply(context.Background(), objs)
	if err == nil {
		t.Fatal("the API server accepted an invalid Deployment")
	}
	for _, want := range []string{"Deployment", "broken-operator", "Invalid value", "containers[0].ports[0].containerPort"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	t.Logf("rejected as expected: %v", err)
}

// TestOperatorsApply renders the latest bundle of every operator in every install mode it
// supports and applies it.
func TestOperatorsApply(t *testing.T) {
	needServer(t)
	cluster := connect(t)
	abs := operatorsCatalog(t)
	nfd, err := filepath.Abs(nfdCatalog)
	if err != nil {
		t.Fatal(err)
	}
	// CRDs of other operators that bundles ship objects of (ServiceMonitor, PrometheusRule).
	applyFixture(t, cluster, "testdata/crds/monitoring.yaml")
	applyFixture(t, cluster, "testdata/crds/cert-manager.yaml")
	var cases, objects, unresolvable int
	for _, tc := range installModeCasesOf(t) {
		name := tc.Name()
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			fixture.WriteInputs(t, dir, tc, fixture.CatalogSource("operators", fixture.Rel(t, dir, abs), ""),
				// The NFD stand-in catalog provides the API special-resource-operator requires.
				fixture.CatalogSource("nfd", fixture.Rel(t, dir, nfd), ""))
			set, err := inputs.Load([]string{dir}, fixture.SystemOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			req := pipeline.Request{}
			req.Render.IncludeOLMCRDs = true
			out, err := pipeline.RunSet(context.Background(), set, req)
			if err != nil {
				if fixture.ExpectUnresolvable[tc.Package] && strings.Contains(err.Error(), "ConstraintsNotSatisfiable") {
					unresolvable++
					t.Skipf("does not resolve against this corpus, as expected: %v", err)
				}
				t.Fatal(err)
			}
			objects += applyTwice(t, cluster, out.Objects)
			cases++
		})
	}
	t.Logf("operators x install modes applied: %d cases, %d objects; %d cases unresolvable", cases, objects, unresolvable)
}

// installModeCasesOf lists the install cases of the latest bundle of every operator.
func installModeCasesOf(t *testing.T) []fixture.Case {
	t.Helper()
	c, err := catalog.Load(operatorsCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	return fixture.InstallModeCases(t, c)
}

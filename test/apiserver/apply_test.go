package apiserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/ssa"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/live"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
	"sigs.k8s.io/yaml"
)

var (
	operatorsCatalog = filepath.Join("..", "..", "..", "shared", "catalogs", "operators")
	nfdCatalog       = filepath.Join("..", "..", "resolver", "testdata", "nfd")
)

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

// TestBrokenRenderRejected applies a render of a bundle whose Deployment is invalid (a container
// name that is not a DNS label): the server must reject it and the error must name the object
// and carry the server's message.
func TestBrokenRenderRejected(t *testing.T) {
	needServer(t)
	objs := render(t, "testdata/broken/input")
	_, err := connect(t).Apply(context.Background(), objs)
	if err == nil {
		t.Fatal("the API server accepted an invalid Deployment")
	}
	for _, want := range []string{"Deployment", "broken-operator", "Invalid value", "containers[0].name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	t.Logf("rejected as expected: %v", err)
}

// expectUnresolvable are the packages whose latest bundle needs an API or package no catalog
// here provides (../shared/catalogs/README.md): awss3-operator-registry 1.0.1 requires the
// objectbucket CRDs only 1.0.0 owned; l5-operator needs crunchy-postgres-operator.
var expectUnresolvable = map[string]bool{"awss3-operator-registry": true, "l5-operator": true}

// installModeCases lists, for the latest bundle of every operator under ../shared/catalogs/operators,
// one case per install mode it supports.
type installModeCase struct {
	pkg, bundle, channel string
	mode                 v1alpha1.InstallModeType
}

func installModeCases(t *testing.T) []installModeCase {
	t.Helper()
	c, err := catalog.Load(operatorsCatalog)
	if err != nil {
		t.Fatal(err)
	}
	var out []installModeCase
	for _, p := range c.Packages {
		latest := slices.MaxFunc(p.Bundles, func(a, b *catalog.Bundle) int { return a.Version.Compare(b.Version) })
		m, err := latest.Manifests()
		if err != nil {
			t.Fatalf("%s: %v", latest.Name, err)
		}
		channel := p.DefaultChannel
		if !slices.Contains(latest.Channels, channel) && len(latest.Channels) > 0 {
			channel = latest.Channels[0]
		}
		for _, im := range m.CSV.Spec.InstallModes {
			if im.Supported {
				out = append(out, installModeCase{pkg: p.Name, bundle: latest.Name, channel: channel, mode: im.Type})
			}
		}
	}
	return out
}

// TestOperatorsApply renders the latest bundle of every operator in every install mode it
// supports and applies it.
func TestOperatorsApply(t *testing.T) {
	needServer(t)
	cluster := connect(t)
	abs, err := filepath.Abs(operatorsCatalog)
	if err != nil {
		t.Fatal(err)
	}
	nfd, err := filepath.Abs(nfdCatalog)
	if err != nil {
		t.Fatal(err)
	}
	// CRDs of other operators that bundles ship objects of (ServiceMonitor, PrometheusRule).
	applyFixture(t, cluster, "testdata/crds/monitoring.yaml")
	applyFixture(t, cluster, "testdata/crds/cert-manager.yaml")
	var cases, objects, unresolvable int
	for _, tc := range installModeCases(t) {
		name := tc.pkg + "/" + string(tc.mode)
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeInputs(t, dir, abs, nfd, tc)
			set, err := inputs.Load([]string{dir}, fixture.SystemOptions(t))
			if err != nil {
				t.Fatal(err)
			}
			req := pipeline.Request{}
			req.Render.IncludeOLMCRDs = true
			out, err := pipeline.RunSet(context.Background(), set, req)
			if err != nil {
				if expectUnresolvable[tc.pkg] && strings.Contains(err.Error(), "ConstraintsNotSatisfiable") {
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

// writeInputs writes the Namespaces, OperatorGroup, CatalogSource and Subscription of one case.
func writeInputs(t *testing.T, dir, catalogPath, nfdPath string, tc installModeCase) {
	t.Helper()
	short := tc.pkg
	if len(short) > 30 {
		short = short[:30]
	}
	short = strings.TrimRight(short, "-")
	mode := strings.ToLower(strings.TrimSuffix(string(tc.mode), "Namespace"))
	ns := short + "-" + mode
	namespaces := []string{ns, ns + "-a", ns + "-b"}
	var targets []string
	switch tc.mode {
	case v1alpha1.InstallModeTypeOwnNamespace:
		targets = []string{ns}
	case v1alpha1.InstallModeTypeSingleNamespace:
		targets = []string{ns + "-a"}
	case v1alpha1.InstallModeTypeMultiNamespace:
		targets = []string{ns + "-a", ns + "-b"}
	}
	docs := []map[string]any{}
	for _, n := range namespaces {
		docs = append(docs, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": n}})
	}
	og := map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
		"metadata": map[string]any{"name": "og", "namespace": ns}, "spec": map[string]any{}}
	if targets != nil {
		og["spec"] = map[string]any{"targetNamespaces": targets}
	}
	docs = append(docs, og,
		map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
			"metadata": map[string]any{"name": "operators", "namespace": "olm",
				"annotations": map[string]any{inputs.CatalogAnnotation: fixture.Rel(t, dir, catalogPath)}},
			"spec": map[string]any{"sourceType": "grpc"}},
		// The NFD stand-in catalog provides the API special-resource-operator requires.
		map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
			"metadata": map[string]any{"name": "nfd", "namespace": "olm",
				"annotations": map[string]any{inputs.CatalogAnnotation: fixture.Rel(t, dir, nfdPath)}},
			"spec": map[string]any{"sourceType": "grpc"}},
		map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
			"metadata": map[string]any{"name": tc.pkg, "namespace": ns},
			"spec": map[string]any{"name": tc.pkg, "channel": tc.channel, "startingCSV": tc.bundle,
				"source": "operators", "sourceNamespace": "olm"}},
	)
	for i, d := range docs {
		writeObject(t, filepath.Join(dir, fmt.Sprintf("%02d.yaml", i)), d)
	}
}

func writeObject(t *testing.T, path string, obj map[string]any) {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

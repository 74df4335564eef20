//go:build diffrender

package diff_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render"
	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/pipeline"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
	projectfile "github.com/olm-render/olm-render/schemas/project"
	"github.com/olm-render/olm-render/test/fixture"
)

var rerender = flag.Bool("rerender", false, "render testdata/<case>/input-before and input-after again into before.yaml and after.yaml")

// TestDiffFixturesRendered renders the inputs of the golden cases that have them (real bundles:
// examples/quickstart/catalog and ../shared/catalogs/operators) into their before.yaml and
// after.yaml, so the golden diffs compare real renders. It needs the diffrender build tag and
// -rerender (go test -tags diffrender -run TestDiffFixturesRendered ./diff -rerender):
// the fixtures are committed, so neither a renderer change nor a renderer being edited moves
// or breaks the diff goldens.
func TestDiffFixturesRendered(t *testing.T) {
	if !*rerender {
		t.Skip("run with -rerender to render the fixtures again")
	}
	fixture.Corpus(t) // the inputs name it at its conventional place, ../shared/catalogs
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "input-before"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, dir := range dirs {
		caseDir := filepath.Dir(dir)
		t.Run(filepath.Base(caseDir), func(t *testing.T) {
			for _, side := range []string{"before", "after"} {
				out := renderInputs(t, filepath.Join(caseDir, "input-"+side))
				if err := os.WriteFile(filepath.Join(caseDir, side+".yaml"), out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// renderInputs renders an input directory as a YAML stream, reading from the whole file system.
func renderInputs(t *testing.T, dir string) []byte {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := pipeline.Request{Paths: []string{abs}, Root: fixture.SystemOptions(t).Root}
	out, err := pipeline.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("rendering %s: %v", dir, err)
	}
	var buf bytes.Buffer
	if err := emit.Stream(&buf, out.Objects); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// openshiftCase is the golden case rendered from examples/openshift.
const openshiftCase = "openshift-lock-bump"

// TestDiffFixturesOpenShift renders testdata/openshift-lock-bump/before.yaml and after.yaml
// from examples/openshift as its project file asks (olm: running, openshift-marketplace,
// Kubernetes 1.31): its Namespace, OperatorGroup, CatalogSource and Subscription (the approver
// it passes through is left out, the same on both sides), the Subscription locked at
// kube-green.v0.7.0 before and kube-green.v0.7.1 after (spec.startingCSV, as a render writes
// the lock), the CatalogSource's image pinned by a made-up digest (a render for OLM needs one),
// against the corpus's copy of OpenShift 4.16's community catalog. Each file holds what Git
// applies, then the prediction. Regenerate with
//
//	go test -tags diffrender -run TestDiffFixturesOpenShift ./diff -rerender
//
// (the flag after the package), then go test -run TestDiffGolden ./diff -update, and read the
// goldens before committing.
func TestDiffFixturesOpenShift(t *testing.T) {
	if !*rerender {
		t.Skip("run with -rerender to render the fixtures again")
	}
	example := filepath.Join("..", "examples", "openshift")
	cfg, err := os.ReadFile(filepath.Join(example, "olm-render.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	project, err := projectfile.Parse("olm-render.yaml", cfg)
	if err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(fixture.Corpus(t), "fbc", "community-operators-prod", "catalogs", "v4.16", "kube-green")
	for side, csv := range map[string]string{"before": "kube-green.v0.7.0", "after": "kube-green.v0.7.1"} {
		t.Run(side, func(t *testing.T) {
			paths := openshiftInputs(t, filepath.Join(example, "inputs"), csv, true)
			req := pipeline.Request{
				Paths:    paths,
				Root:     fixture.SystemOptions(t).Root,
				Catalogs: []inputs.Binding{{Namespace: "openshift-marketplace", Name: "community-operators-pinned", Path: catalog}},
				Resolve:  resolver.Options{GlobalCatalogNamespace: project.Options.GlobalCatalogNamespace},
				Render:   render.Options{Target: render.Target(project.Options.OLM), KubeVersion: project.Options.KubeVersion},
			}
			out, err := pipeline.Run(context.Background(), req)
			if err != nil {
				t.Fatalf("rendering examples/openshift at %s: %v", csv, err)
			}
			var buf bytes.Buffer
			if err := emit.Stream(&buf, append(out.Objects, out.Prediction...)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", openshiftCase, side+".yaml"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// openshiftInputs writes the example's Namespace, OperatorGroup, CatalogSource and Subscription
// into a temporary directory, the Subscription locked at csv and, with pin, the CatalogSource's
// image pinned by a made-up digest, and returns their paths.
func openshiftInputs(t *testing.T, dir, csv string, pin bool) []string {
	t.Helper()
	tmp := t.TempDir()
	var paths []string
	for _, name := range []string{"namespace.yaml", "operatorgroup.yaml", "catalogsource.yaml", "subscription.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch u.GetKind() {
		case "Subscription":
			err = unstructured.SetNestedField(u.Object, csv, "spec", "startingCSV")
		case "CatalogSource":
			if pin {
				err = pinImage(u)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// pinImage replaces the tag of a CatalogSource's spec.image by a made-up digest.
func pinImage(u *unstructured.Unstructured) error {
	image, _, err := unstructured.NestedString(u.Object, "spec", "image")
	if err != nil {
		return err
	}
	repo, _, _ := strings.Cut(image, ":")
	return unstructured.SetNestedField(u.Object, repo+"@sha256:"+strings.Repeat("ab", 32), "spec", "image")
}

// v1Case is the golden case rendered from examples/olmv1 for OLM v1.
const v1Case = "v1-upgrade"

// TestDiffFixturesV1 renders testdata/v1-upgrade/before.yaml and after.yaml from
// examples/olmv1's inputs for a cluster where OLM v1 runs (--olm=v1, openshift-marketplace,
// Kubernetes 1.31): the ClusterCatalog and ClusterExtension Git applies, then the objects
// operator-controller will create, with kube-green locked at kube-green.v0.7.0 before and
// kube-green.v0.7.1 after, against the fleet example's vendored 4.18 community catalog.
// Regenerate with
//
//	go test -tags diffrender -run TestDiffFixturesV1 ./diff -rerender
//
// then go test -run TestDiffGolden ./diff -update, and read the goldens before committing.
func TestDiffFixturesV1(t *testing.T) {
	if !*rerender {
		t.Skip("run with -rerender to render the fixtures again")
	}
	example := filepath.Join("..", "examples", "olmv1")
	catalog, err := filepath.Abs(filepath.Join("..", "examples", "fleet", "catalogs", "community-v4.18"))
	if err != nil {
		t.Fatal(err)
	}
	for side, csv := range map[string]string{"before": "kube-green.v0.7.0", "after": "kube-green.v0.7.1"} {
		t.Run(side, func(t *testing.T) {
			paths := openshiftInputs(t, filepath.Join(example, "v0"), csv, false)
			req := pipeline.Request{
				Paths:    paths,
				Root:     fixture.SystemOptions(t).Root,
				Catalogs: []inputs.Binding{{Namespace: "openshift-marketplace", Name: "community-operators-pinned", Path: catalog}},
				Resolve:  resolver.Options{GlobalCatalogNamespace: "openshift-marketplace"},
				Render:   render.Options{Target: render.TargetV1, KubeVersion: "v1.31.0"},
			}
			out, err := pipeline.Run(context.Background(), req)
			if err != nil {
				t.Fatalf("rendering examples/olmv1 at %s for OLM v1: %v", csv, err)
			}
			var buf bytes.Buffer
			if err := emit.Stream(&buf, append(out.Objects, out.Prediction...)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", v1Case, side+".yaml"), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

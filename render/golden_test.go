package render

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

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/test/fixture"
)

var update = flag.Bool("update", false, "update golden files")

// renderCase loads testdata/<name>, resolves and renders it.
func renderCase(t *testing.T, name string, opts Options) (*Result, error) {
	t.Helper()
	set, err := inputs.Load([]string{filepath.Join("testdata", name, "input")}, fixture.Options(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Render(set, res, opts)
}

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

// TestInstallModes renders real bundles in each install mode: OwnNamespace and SingleNamespace
// (etcd 0.9.4, with a Subscription config), MultiNamespace by label selector and AllNamespaces
// (debezium-operator 2.4.0, whose namespaced permissions are lifted).
func TestInstallModes(t *testing.T) {
	for _, name := range []string{"etcd-own", "etcd-single", "debezium-multi", "debezium-all", "marin3r-all"} {
		t.Run(name, func(t *testing.T) {
			res, err := renderCase(t, name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := emit.Stream(&b, res.Objects); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name, "want.yaml"), b.Bytes())
		})
	}
}

// TestFailures asserts OLM's reason and message for each membership failure, and that
// AllowFailed renders the Failed CSV without Deployments.
func TestFailures(t *testing.T) {
	tests := []struct {
		name, reason, message string
	}{
		{"fail-unsupported", "UnsupportedOperatorGroup", "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces"},
		{"fail-no-targets", "NoTargetNamespaces", "no targetNamespaces are matched operatorgroups namespace selection"},
		{"fail-owner-conflict", "InterOperatorGroupOwnerConflict", "intersecting operatorgroups provide the same apis"},
		{"fail-static-apis", "CannotModifyStaticOperatorGroupProvidedAPIs", "static provided api operatorgroup cannot be modified by these apis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderCase(t, tt.name, Options{})
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("error %v, want a Failure", err)
			}
			if len(f.CSVs) != 1 || f.CSVs[0].Reason != tt.reason || f.CSVs[0].Message != tt.message {
				t.Fatalf("failures %+v, want %s: %s", f.CSVs, tt.reason, tt.message)
			}
			if !strings.Contains(err.Error(), "input.yaml") {
				t.Errorf("the error does not name the file: %v", err)
			}
			res, err := renderCase(t, tt.name, Options{AllowFailed: true})
			if err != nil {
				t.Fatal(err)
			}
			var failed, deployments int
			for _, o := range res.Objects {
				switch o.GetKind() {
				case "Deployment":
					deployments++
				case "ClusterServiceVersion":
					phase, _, _ := unstructuredString(o.Object, "status", "phase")
					reason, _, _ := unstructuredString(o.Object, "status", "reason")
					if phase == "Failed" && reason == tt.reason {
						failed++
					}
				}
			}
			if failed != 1 {
				t.Errorf("%d Failed CSVs with reason %s, want 1", failed, tt.reason)
			}
			if tt.name != "fail-owner-conflict" && deployments != 0 {
				t.Errorf("%d Deployments rendered for a failed CSV", deployments)
			}
		})
	}
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// TestDeterministic renders a case twice with the input order reversed.
func TestDeterministic(t *testing.T) {
	set, err := inputs.Load([]string{filepath.Join("testdata", "debezium-multi", "input")}, fixture.Options(t))
	if err != nil {
		t.Fatal(err)
	}
	render := func() string {
		res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Render(set, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_ = emit.Stream(&b, out.Objects)
		return b.String()
	}
	first := render()
	slices.Reverse(set.Namespaces)
	slices.Reverse(set.OperatorGroups)
	slices.Reverse(set.CatalogSources)
	if render() != first {
		t.Fatal("the render depends on input order")
	}
}

// BenchmarkRenderOperators resolves and renders the latest bundle of every operator under
// the corpus's operators in one run: each in its own namespace, under a global
// OperatorGroup where the bundle supports AllNamespaces, else an OwnNamespace group.
func BenchmarkRenderOperators(b *testing.B) {
	c, err := catalog.Load(filepath.Join(fixture.Corpus(b), "operators"))
	if err != nil {
		b.Fatal(err)
	}
	set := &inputs.Set{Catalogs: []*inputs.Catalog{{Name: "community", Namespace: "olm", Catalog: c}}}
	for _, p := range c.Packages {
		switch p.Name {
		case "l5-operator", "awss3-operator-registry", "special-resource-operator":
			continue // unsatisfiable in this corpus
		}
		latest := slices.MaxFunc(p.Bundles, func(a, b *catalog.Bundle) int { return a.Version.Compare(b.Version) })
		m, err := latest.Manifests()
		if err != nil {
			b.Fatal(err)
		}
		ns := p.Name
		og := &inputs.OperatorGroup{}
		og.Name, og.Namespace = "og", ns
		all := slices.ContainsFunc(m.CSV.Spec.InstallModes, func(im v1alpha1.InstallMode) bool {
			return im.Type == v1alpha1.InstallModeTypeAllNamespaces && im.Supported
		})
		if !all {
			og.Spec.TargetNamespaces = []string{ns}
		}
		sub := &inputs.Subscription{}
		sub.Name, sub.Namespace = p.Name, ns
		sub.Spec = &v1alpha1.SubscriptionSpec{Package: p.Name, Channel: latest.Channels[0], StartingCSV: latest.Name, CatalogSource: "community", CatalogSourceNamespace: "olm"}
		set.OperatorGroups = append(set.OperatorGroups, og)
		set.Subscriptions = append(set.Subscriptions, sub)
		n := &inputs.Namespace{}
		n.Name = ns
		set.Namespaces = append(set.Namespaces, n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var objects int
	for range b.N {
		res, err := resolver.Resolve(context.Background(), set, resolver.Options{})
		if err != nil {
			b.Fatal(err)
		}
		out, err := Render(set, res, Options{})
		if err != nil {
			b.Fatal(err)
		}
		objects = len(out.Objects)
	}
	b.ReportMetric(float64(objects), "objects")
}

// TestMetadataOnlyCatalog: a catalog that carries only olm.csv.metadata resolves, and the render
// says clearly that the manifests are missing and how to supply them.
func TestMetadataOnlyCatalog(t *testing.T) {
	_, err := renderCase(t, "fail-metadata-only", Options{})
	if err == nil {
		t.Fatal("rendered without manifests")
	}
	for _, want := range []string{"bundle kube-green.v0.7.1 from catalog olm/community-v418", "carries only its metadata (olm.csv.metadata)", "--catalog olm/community-v418=PATH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestStaticGroupAnnotation: a static OperatorGroup's olm.providedAPIs is left as written,
// unsorted and listing an API no CSV provides, as OLM leaves it.
func TestStaticGroupAnnotation(t *testing.T) {
	res, err := renderCase(t, "static-apis", Options{})
	if err != nil {
		t.Fatal(err)
	}
	const want = "EtcdRestore.v1beta2.etcd.database.coreos.com,EtcdCluster.v1beta2.etcd.database.coreos.com,Widget.v1.example.com,EtcdBackup.v1beta2.etcd.database.coreos.com"
	for _, o := range res.Objects {
		if o.GetKind() == "OperatorGroup" {
			if got := o.GetAnnotations()["olm.providedAPIs"]; got != want {
				t.Errorf("olm.providedAPIs %q, want it as written: %q", got, want)
			}
			return
		}
	}
	t.Fatal("no OperatorGroup rendered")
}

// TestLegacyCRD: a bundle shipping a v1beta1 CRD (hawtio-operator 0.3.0) renders with a warning
// naming the file when the cluster's version is unknown, fails for a cluster of 1.22 or later
// (where OLM's InstallPlan fails) and renders silently for an older one.
func TestLegacyCRD(t *testing.T) {
	res, err := renderCase(t, "legacy-crd", Options{})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w.Error(), "hawtios.hawt.io.crd.yaml") && strings.Contains(w.Error(), "v1beta1")
	}
	if !warned {
		t.Errorf("no warning about the v1beta1 CRD: %v", res.Warnings)
	}
	_, err = renderCase(t, "legacy-crd", Options{KubeVersion: "v1.30.2"})
	if err == nil || !strings.Contains(err.Error(), "CustomResourceDefinition/hawtios.hawt.io") || !strings.Contains(err.Error(), "v1.30.2") {
		t.Errorf("error %v, want one naming the CRD and the cluster version", err)
	}
	res, err = renderCase(t, "legacy-crd", Options{KubeVersion: "v1.21.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings for a 1.21 cluster: %v", res.Warnings)
	}
}

// TestNoCopiedCSVs: NoCopiedCSVs leaves out every copied CSV (debezium in MultiNamespace mode
// has them) and nothing else.
func TestNoCopiedCSVs(t *testing.T) {
	with, err := renderCase(t, "debezium-multi", Options{})
	if err != nil {
		t.Fatal(err)
	}
	without, err := renderCase(t, "debezium-multi", Options{NoCopiedCSVs: true})
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, o := range with.Objects {
		if o.GetKind() == "ClusterServiceVersion" && o.GetLabels()["olm.copiedFrom"] != "" {
			copies++
		}
	}
	for _, o := range without.Objects {
		if o.GetKind() == "ClusterServiceVersion" && o.GetLabels()["olm.copiedFrom"] != "" {
			t.Errorf("copied CSV %s/%s rendered", o.GetNamespace(), o.GetName())
		}
	}
	if copies == 0 || len(with.Objects)-len(without.Objects) != copies {
		t.Errorf("%d objects with copies (%d of them), %d without", len(with.Objects), copies, len(without.Objects))
	}
}

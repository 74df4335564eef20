package crdcompat

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/fixture"
)

// corpusDir holds read-only operator bundles, one directory per bundle version: the corpus's
// operators, set by useCorpus.
var corpusDir string

// corpusPairCase is a CRD in two consecutive bundles and the breaking changes between them.
type corpusPairCase struct {
	name      string
	old, new  string // paths under corpusDir
	identical bool   // no change at all expected
	want      []Change
}

func TestCorpusPairs(t *testing.T) {
	useCorpus(t)
	for _, tc := range corpusPairCases() {
		t.Run(tc.name, func(t *testing.T) {
			got := compareDeterministic(t, loadCRD(t, tc.old), loadCRD(t, tc.new))
			if tc.identical && len(got) != 0 {
				t.Errorf("Compare = %v, want no changes", got)
			}
			if diff := gocmp.Diff(tc.want, Breaking(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("breaking changes (-want +got):\n%s", diff)
			}
		})
	}
}

func corpusPairCases() []corpusPairCase {
	etcd := func(version, crd string) string {
		return filepath.Join("etcd", version, "manifests", crd+".etcd.database.coreos.com.crd.yaml")
	}
	gitops := "multicluster-operators-subscription/%s/manifests/apps.open-cluster-management.io_gitopsclusters_crd_%s.yaml"
	return []corpusPairCase{
		{name: "etcd/etcdclusters", old: etcd("0.9.2", "etcdclusters"), new: etcd("0.9.4", "etcdclusters"), identical: true},
		{name: "etcd/etcdbackups", old: etcd("0.9.2", "etcdbackups"), new: etcd("0.9.4", "etcdbackups"), identical: true},
		{name: "etcd/etcdrestores", old: etcd("0.9.2", "etcdrestores"), new: etcd("0.9.4", "etcdrestores"), identical: true},
		{name: "cockroachdb/v1beta1-schema-added",
			old: "cockroachdb/2.1.11/manifests/cockroachdbs.charts.helm.k8s.io.crd.yaml",
			new: "cockroachdb/3.0.7/manifests/charts_v1alpha1_cockroachdb_crd.yaml"},
		{name: "marin3r/enum-value-removed",
			old:  "marin3r/0.11.1/manifests/marin3r.3scale.net_envoyconfigs.yaml",
			new:  "marin3r/0.12.3/manifests/marin3r.3scale.net_envoyconfigs.yaml",
			want: []Change{brk("enum", "v1alpha1", "spec.serialization", `field spec.serialization: enum values ["b64json"] removed`)}},
		{name: "hawtio/field-removed",
			old:  "hawtio-operator/0.3.0/manifests/hawtios.hawt.io.crd.yaml",
			new:  "hawtio-operator/0.4.0/manifests/hawtios.hawt.io.crd.yaml",
			want: []Change{brk("field-removed", "v1alpha1", "spec.rbac.enabled", "field spec.rbac.enabled: removed")}},
		{name: "redis/minimum-set",
			old:  "redis-operator/0.4.0/manifests/redis.redis.redis.opstreelabs.in.crd.yaml",
			new:  "redis-operator/0.5.0/manifests/redis.redis.redis.opstreelabs.in.crd.yaml",
			want: []Change{brk("minimum", "v1beta1", "spec.size", "field spec.size: minimum 3 set where there was no limit")}},
		{name: "node-healthcheck/default-removed",
			old:  "node-healthcheck-operator/0.9.0/manifests/remediation.medik8s.io_nodehealthchecks.yaml",
			new:  "node-healthcheck-operator/0.10.0/manifests/remediation.medik8s.io_nodehealthchecks.yaml",
			want: []Change{brk("default", "v1alpha1", "spec.minHealthy", `field spec.minHealthy: default "51%" removed`)}},
		{name: "gitopsclusters/version-replaced",
			old: fmt.Sprintf(gitops, "0.3.3", "v1alpha1"), new: fmt.Sprintf(gitops, "0.3.4", "v1beta1"),
			want: []Change{
				brk("served-version-removed", "v1alpha1", "", `version "v1alpha1": served version removed`),
				brk("stored-version-removed", "v1alpha1", "", `version "v1alpha1": stored version removed`),
			}},
	}
}

// TestCorpusSweep compares every CRD with its previous version in the corpus: no errors, and
// the same output whatever the order of spec.versions.
func TestCorpusSweep(t *testing.T) {
	useCorpus(t)
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	pairs := corpusCRDPairs(t)
	if len(pairs) == 0 {
		t.Fatal("no CRD pairs found in the corpus")
	}
	breaking := 0
	for _, p := range pairs {
		got := compareDeterministic(t, p.old.obj, p.new.obj)
		reordered := compareDeterministic(t, reverseVersions(p.old.obj), reverseVersions(p.new.obj))
		if diff := gocmp.Diff(got, reordered); diff != "" {
			t.Errorf("%s -> %s: output depends on spec.versions order (-want +got):\n%s", p.old.path, p.new.path, diff)
		}
		breaking += len(Breaking(got))
	}
	t.Logf("%d CRD pairs, %d breaking changes", len(pairs), breaking)
}

// compareDeterministic runs Compare twice, failing on an error or differing or unsorted output.
func compareDeterministic(t *testing.T, old, new *unstructured.Unstructured) []Change {
	t.Helper()
	first, err := Compare(old, new)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	second, err := Compare(old, new)
	if err != nil {
		t.Fatalf("Compare (second run): %v", err)
	}
	if diff := gocmp.Diff(first, second); diff != "" {
		t.Fatalf("Compare is not deterministic (-first +second):\n%s", diff)
	}
	if !slices.IsSortedFunc(first, changeOrder) {
		t.Fatalf("Compare output is not sorted: %v", first)
	}
	return first
}

// changeOrder is the documented output order.
func changeOrder(a, b Change) int {
	return cmp.Or(cmp.Compare(a.Version, b.Version), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Rule, b.Rule))
}

// reverseVersions returns a copy of crd with spec.versions in reverse order.
func reverseVersions(crd *unstructured.Unstructured) *unstructured.Unstructured {
	out := crd.DeepCopy()
	spec, _ := out.Object["spec"].(map[string]any)
	if versions, ok := spec["versions"].([]any); ok {
		slices.Reverse(versions)
	}
	return out
}

// useCorpus sets corpusDir (fixture.Corpus: the test is skipped without the corpus, and fails
// under CI).
func useCorpus(t *testing.T) {
	t.Helper()
	corpusDir = filepath.Join(fixture.Corpus(t), "operators")
}

// loadCRD reads a YAML manifest under corpusDir.
func loadCRD(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	obj, err := readManifest(filepath.Join(corpusDir, path))
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// readManifest decodes one YAML document.
func readManifest(path string) (*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeManifest(data)
}

// decodeManifest decodes one YAML document into an unstructured object.
func decodeManifest(data []byte) (*unstructured.Unstructured, error) {
	obj := map[string]any{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// corpusCRD is a CRD read from the corpus.
type corpusCRD struct {
	path string
	obj  *unstructured.Unstructured
}

// corpusPair is a CRD in one bundle and in the previous bundle holding it.
type corpusPair struct {
	old, new corpusCRD
}

// corpusCRDPairs returns, per operator and CRD name, the CRD of each bundle paired with the
// one in the previous bundle holding that CRD (bundles in semver order).
func corpusCRDPairs(t *testing.T) []corpusPair {
	t.Helper()
	operators, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []corpusPair
	for _, op := range operators {
		if op.IsDir() {
			pairs = append(pairs, operatorCRDPairs(t, op.Name())...)
		}
	}
	return pairs
}

// operatorCRDPairs pairs the CRD files of one operator's consecutive bundles.
func operatorCRDPairs(t *testing.T, operator string) []corpusPair {
	t.Helper()
	var pairs []corpusPair
	previous := map[string]corpusCRD{}
	for _, bundle := range sortedBundles(t, operator) {
		crds := bundleCRDs(filepath.Join(operator, bundle, "manifests"))
		for _, name := range sortedKeys(crds) {
			if prev, ok := previous[name]; ok {
				pairs = append(pairs, corpusPair{old: prev, new: crds[name]})
			}
			previous[name] = crds[name]
		}
	}
	return pairs
}

// sortedBundles lists an operator's bundle directories in semver order.
func sortedBundles(t *testing.T, operator string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(corpusDir, operator))
	if err != nil {
		t.Fatal(err)
	}
	var bundles []string
	for _, e := range entries {
		if e.IsDir() {
			bundles = append(bundles, e.Name())
		}
	}
	slices.SortFunc(bundles, compareBundles)
	return bundles
}

// compareBundles orders bundle directory names by semver, then by name.
func compareBundles(a, b string) int {
	va, errA := semver.ParseTolerant(a)
	vb, errB := semver.ParseTolerant(b)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return cmp.Or(va.Compare(vb), strings.Compare(a, b))
}

// bundleCRDs maps CRD names to the CRDs in one bundle's manifests directory.
func bundleCRDs(dir string) map[string]corpusCRD {
	entries, err := os.ReadDir(filepath.Join(corpusDir, dir))
	if err != nil {
		return nil
	}
	crds := map[string]corpusCRD{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, dir, name))
		if err != nil || !bytes.Contains(data, []byte(crdKind)) {
			continue
		}
		obj, err := decodeManifest(data)
		if err != nil || obj.GetKind() != crdKind {
			continue
		}
		crds[obj.GetName()] = corpusCRD{path: filepath.Join(dir, name), obj: obj}
	}
	return crds
}

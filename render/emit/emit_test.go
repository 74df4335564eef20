package emit

import (
	"bytes"
	"flag"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var update = flag.Bool("update", false, "update golden files")

func obj(apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind}}
	u.SetName(name)
	if namespace != "" {
		u.SetNamespace(namespace)
	}
	u.SetLabels(map[string]string{"z": "1", "a": "2"})
	return u
}

func objects() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		obj("apps/v1", "Deployment", "ops", "etcd-operator"),
		obj("operators.coreos.com/v1alpha1", "ClusterServiceVersion", "ops", "etcdoperator.v0.9.4"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:etcd"),
		obj("v1", "Namespace", "", "ops"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "etcdclusters.etcd.database.coreos.com"),
		obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "a-webhook"),
		obj("v1", "ServiceAccount", "ops", "etcd-operator"),
		obj("operators.coreos.com/v1", "Operator", "", "etcd.ops"),
		obj("example.com/v1", "Operator", "", "etcd.ops"),
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", p, diff)
	}
}

func TestSortTotalAndStable(t *testing.T) {
	want := objects()
	Sort(want)
	var kinds []string
	for _, u := range want {
		kinds = append(kinds, u.GetKind())
	}
	if kinds[0] != "CustomResourceDefinition" || kinds[1] != "Namespace" || kinds[len(kinds)-1] != "ValidatingWebhookConfiguration" {
		t.Errorf("kind order %v", kinds)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		got := objects()
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		Sort(got)
		if !slices.EqualFunc(got, want, func(a, b *unstructured.Unstructured) bool { return Compare(a, b) == 0 }) {
			t.Fatal("Sort depends on input order")
		}
	}
}

func TestStream(t *testing.T) {
	objs := objects()
	Sort(objs)
	var b bytes.Buffer
	if err := Stream(&b, objs); err != nil {
		t.Fatal(err)
	}
	golden(t, "stream.yaml", b.Bytes())
}

func TestStreamWritesNothingOnError(t *testing.T) {
	bad := obj("v1", "ConfigMap", "ops", "bad")
	bad.Object["data"] = map[string]any{"f": func() {}}
	var b bytes.Buffer
	if err := Stream(&b, []*unstructured.Unstructured{obj("v1", "Namespace", "", "ops"), bad}); err == nil {
		t.Fatal("no error")
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q", b.String())
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rendered")
	objs := objects()
	Sort(objs)
	if err := WriteDir(dir, objs); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	var names []string
	for name := range tree {
		names = append(names, name)
	}
	slices.Sort(names)
	golden(t, "dir-files.txt", []byte(strings.Join(names, "\n")+"\n"))
	golden(t, "dir-kustomization.yaml", []byte(tree["kustomization.yaml"]))

	// A second run with fewer objects removes the stale file it wrote, keeps the user's files.
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ops", "extra.yaml"), []byte("mine too"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, objs[1:]); err != nil {
		t.Fatal(err)
	}
	tree2 := readTree(t, dir)
	if _, ok := tree2["_cluster/customresourcedefinition-etcdclusters.etcd.database.coreos.com.yaml"]; ok {
		t.Error("stale file kept")
	}
	if tree2["README.md"] != "mine" || tree2["ops/extra.yaml"] != "mine too" {
		t.Error("user files not kept")
	}
	if st, _ := os.Stat(filepath.Join(dir, "README.md")); st.Mode().Perm() != 0o600 {
		t.Errorf("user file mode %v", st.Mode().Perm())
	}
	if len(tree2) != len(tree)-1+2 {
		t.Errorf("files: %d, want %d", len(tree2), len(tree)+1)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary directories left: %v", entries)
	}
}

func TestWriteDirDeterministic(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	objs := objects()
	Sort(objs)
	if err := WriteDir(a, objs); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(objs)
	Sort(objs)
	if err := WriteDir(b, objs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTree(t, a), readTree(t, b)); diff != "" {
		t.Error(diff)
	}
}

func TestWriteDirFailureLeavesDirUntouched(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rendered")
	objs := objects()
	if err := WriteDir(dir, objs); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir)
	bad := obj("v1", "ConfigMap", "ops", "bad")
	bad.Object["data"] = map[string]any{"f": func() {}}
	if err := WriteDir(dir, append(objs[:2:2], bad)); err == nil {
		t.Fatal("no error")
	}
	if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
		t.Errorf("directory changed by a failed write:\n%s", diff)
	}
	// A user file where olm-render wants to write is an error, and changes nothing.
	if err := os.WriteFile(filepath.Join(dir, "ops", "configmap-new.yaml"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = readTree(t, dir)
	err := WriteDir(dir, append(objs[:2:2], obj("v1", "ConfigMap", "ops", "new")))
	if err == nil || !strings.Contains(err.Error(), "not written by olm-render") {
		t.Fatalf("error %v", err)
	}
	if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
		t.Errorf("directory changed by a failed write:\n%s", diff)
	}
}

func TestPrepareDirCommitsWithLockFile(t *testing.T) {
	parent := t.TempDir()
	dir, lock := filepath.Join(parent, "rendered"), filepath.Join(parent, "olm-render.lock")
	objs := objects()
	Sort(objs)
	p, err := PrepareDir(dir, objs)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Also(lock, []byte("locked")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("directory visible before Commit")
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "rendered")
	if err := WriteDir(want, objs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTree(t, want), readTree(t, dir)); diff != "" {
		t.Errorf("PrepareDir and WriteDir differ:\n%s", diff)
	}
	if data, _ := os.ReadFile(lock); string(data) != "locked" {
		t.Errorf("lock file %q", data)
	}
}

func TestFileNamesCollisions(t *testing.T) {
	names, err := FileNames([]*unstructured.Unstructured{
		obj("operators.coreos.com/v1", "Operator", "", "x"),
		obj("example.com/v1", "Operator", "", "x"),
		obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "", "svc-system:auth-delegator"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"_cluster/operator.operators.coreos.com-x.yaml", "_cluster/operator.example.com-x.yaml", "_cluster/clusterrolebinding-svc-system_auth-delegator.yaml"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Error(diff)
	}
	if _, err := FileNames([]*unstructured.Unstructured{obj("v1", "ConfigMap", "a", "x"), obj("v1", "ConfigMap", "a", "x")}); err == nil {
		t.Error("duplicate objects accepted")
	}
}

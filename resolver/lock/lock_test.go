package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

func subscription(ns, name, pkg, channel string) *inputs.Subscription {
	s := &inputs.Subscription{}
	s.Namespace, s.Name = ns, name
	s.Spec = &v1alpha1.SubscriptionSpec{Package: pkg, Channel: channel, CatalogSource: "cat", CatalogSourceNamespace: "olm"}
	return s
}

func bundle(pkg, name, version string, objs ...map[string]any) *catalog.Bundle {
	b := &catalog.Bundle{Package: pkg, Name: name, Version: semver.MustParse(version),
		Properties: []catalog.Property{{Type: catalog.TypePackage, Value: json.RawMessage(`{"packageName":"` + pkg + `","version":"` + version + `"}`)}}}
	b.SetManifests(func() (*catalog.Manifests, error) {
		m := &catalog.Manifests{CSV: &v1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: name}}}
		for _, o := range objs {
			m.Objects = append(m.Objects, catalog.Object{Unstructured: &unstructured.Unstructured{Object: o}})
		}
		return m, nil
	})
	return b
}

func crd(name string) map[string]any {
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": name}}
}

func result() *resolver.Result {
	cat := &inputs.Catalog{Name: "cat", Namespace: "olm"}
	return &resolver.Result{Namespaces: []*resolver.NamespaceResult{{
		Namespace: "ops",
		Selections: []*resolver.Selection{
			{Subscription: subscription("ops", "etcd", "etcd", "alpha"), Catalog: cat, Channel: "alpha", Bundle: bundle("etcd", "etcdoperator.v0.9.4", "0.9.4", crd("b.example.com"), crd("a.example.com"))},
			{Subscription: subscription("ops", "dep-alpha-cat-olm", "dep", "alpha"), Generated: true, Catalog: cat, Channel: "alpha", Bundle: bundle("dep", "dep.v1.0.0", "1.0.0"), RequiredBy: []string{"etcd"}},
		},
	}}}
}

func TestRoundTrip(t *testing.T) {
	l, err := FromResult(result())
	if err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal("lock", data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Origin != "lock" {
		t.Errorf("Origin = %q, want the name it was read as", back.Origin)
	}
	back.Origin = ""
	if diff := cmp.Diff(l, back); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	if got := back.Namespaces[0].Subscriptions[0].Subscription; got != "dep-alpha-cat-olm" {
		t.Errorf("entries not sorted: first is %s", got)
	}
	again, _ := Marshal(back)
	if string(again) != string(data) {
		t.Error("marshal is not stable")
	}
	if e := back.Entry("ops", "etcd"); e == nil || e.DigestOf != DigestOfManifests || !strings.HasPrefix(e.Digest, "sha256:") {
		t.Errorf("entry: %+v", e)
	}
}

func TestDigest(t *testing.T) {
	a, _, err := Digest(bundle("p", "p.v1", "1.0.0", crd("a"), crd("b")))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := Digest(bundle("p", "p.v1", "1.0.0", crd("b"), crd("a")))
	if a != b {
		t.Error("digest depends on manifest order")
	}
	c, _, _ := Digest(bundle("p", "p.v1", "1.0.0", crd("a"), crd("c")))
	if a == c {
		t.Error("digest ignores content")
	}
	meta := &catalog.Bundle{Package: "p", Name: "p.v1", Version: semver.MustParse("1.0.0")}
	d, of, err := Digest(meta)
	if err != nil || of != DigestOfMetadata || !strings.HasPrefix(d, "sha256:") {
		t.Errorf("metadata digest: %q %q %v", d, of, err)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"kind", "apiVersion: v1\nkind: ConfigMap\nnamespaces: []\n", "apiVersion/kind"},
		{"unknown field", "apiVersion: olm-render.dev/v1alpha1\nkind: Lock\nnamespaces: []\nextra: 1\n", "f.yaml: Lock: extra: unknown field"},
		{"misspelt field", "apiVersion: olm-render.dev/v1alpha1\nkind: Lock\nnamespaces:\n- namespace: a\n  subscriptions:\n  - {subscription: s, package: p, bundel: b}\n",
			"f.yaml: Lock: namespaces[0].subscriptions[0].bundel: unknown field: did you mean namespaces[0].subscriptions[0].bundle?"},
		{"bad yaml", "apiVersion: [\n", "did not find expected node content"},
		{"duplicate", "apiVersion: olm-render.dev/v1alpha1\nkind: Lock\nnamespaces:\n- namespace: a\n  subscriptions:\n  - {subscription: s, package: p, bundle: b}\n  - {subscription: s, package: p, bundle: b}\n", "locked twice"},
		{"missing bundle", "apiVersion: olm-render.dev/v1alpha1\nkind: Lock\nnamespaces:\n- namespace: a\n  subscriptions:\n  - {subscription: s, package: p}\n", "must be set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal("f.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error %v, want one naming f.yaml and containing %q", err, tt.want)
			}
		})
	}
}

func TestReadWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	root, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := Read(root, FileName); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing lock: %v", err)
	}
	l, _ := FromResult(result())
	if err := Write(path, l); err != nil {
		t.Fatal(err)
	}
	got, err := Read(root, FileName)
	if err != nil {
		t.Fatal(err)
	}
	got.Origin = ""
	if diff := cmp.Diff(l, got); diff != "" {
		t.Fatal(diff)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestReadConfined: a lock that is a symbolic link out of the root is not read, and its target's
// content is not shown.
func TestReadConfined(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("token: CANARY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	root, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = Read(root, FileName)
	if err == nil || !errors.Is(err, rootfs.ErrOutside) || strings.Contains(err.Error(), "CANARY") {
		t.Fatalf("read through a link out of the root: %v", err)
	}
}

func TestDiffAndStale(t *testing.T) {
	old, _ := FromResult(result())
	res := result()
	res.Namespaces[0].Selections[0].Bundle = bundle("etcd", "etcdoperator.v0.9.6", "0.9.6")
	res.Namespaces[0].Selections = res.Namespaces[0].Selections[:1]
	newLock, _ := FromResult(res)
	var got []string
	for _, c := range Diff(old, newLock) {
		got = append(got, c.String())
	}
	want := []string{"ops/dep-alpha-cat-olm: removed dep.v1.0.0", "ops/etcd: etcdoperator.v0.9.4 → etcdoperator.v0.9.6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	if len(Diff(old, old)) != 0 {
		t.Error("a lock differs from itself")
	}

	set := &inputs.Set{Subscriptions: []*inputs.Subscription{subscription("ops", "etcd", "etcd", "beta"), subscription("ops", "new", "new", "")}}
	wantStale := []string{
		`Subscription ops/etcd changed since it was locked (spec.channel "alpha" → "beta")`,
		"Subscription ops/new is not in the lock",
	}
	if diff := cmp.Diff(wantStale, Stale(old, set)); diff != "" {
		t.Errorf("Stale (-want +got):\n%s", diff)
	}
	if s := Stale(old, &inputs.Set{}); len(s) != 1 || !strings.Contains(s[0], "no longer declared") {
		t.Errorf("Stale with no declarations: %v", s)
	}
}

// TestUnmarshalStrict: a lock with a repeated key or a second document is refused, naming the
// file, as inputs are: which value was meant, or which lock, cannot be told.
func TestUnmarshalStrict(t *testing.T) {
	l, _ := FromResult(result())
	data, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Unmarshal("lock.yaml", append([]byte("# a comment\n---\n"), data...)); err != nil {
		t.Errorf("a lock opening with a comment and a separator: %v", err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"repeated key", bytes.Replace(data, []byte("kind: Lock\n"), []byte("kind: Lock\nkind: Lock\n"), 1), "lock.yaml: Lock: kind: repeated key (line 3 and line 4)"},
		{"second document", append(append(slices.Clone(data), "---\n"...), data...), "lock.yaml: a lock is one YAML document; this file holds 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal("lock.yaml", tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

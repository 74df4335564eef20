package catalog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/olm-render/olm-render/schemas/rootfs"
	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// treeCSV is checkCSV at another version, replacing the one before it.
func treeCSV(version, replaces string) string {
	csv := strings.Replace(checkCSV, "name: widget.v1.0.0", "name: widget.v"+version, 1)
	csv = strings.Replace(csv, "  version: 1.0.0\n", "  version: "+version+"\n", 1)
	if replaces != "" {
		csv = strings.Replace(csv, "  version: "+version+"\n", "  version: "+version+"\n  replaces: widget.v"+replaces+"\n", 1)
	}
	return csv
}

const treeAnnotations = "annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: stable\n"

// widgetTree is a package of three bundles in one channel, 1.0.0 ← 1.1.0 ← 1.2.0.
func widgetTree() map[string]string {
	files := map[string]string{}
	for _, v := range [][2]string{{"1.0.0", ""}, {"1.1.0", "1.0.0"}, {"1.2.0", "1.1.0"}} {
		files["widget/"+v[0]+"/manifests/widget.csv.yaml"] = treeCSV(v[0], v[1])
		files["widget/"+v[0]+"/metadata/annotations.yaml"] = treeAnnotations
	}
	files["other/1.0.0/manifests/other.csv.yaml"] = strings.ReplaceAll(checkCSV, "widget", "other")
	files["other/1.0.0/metadata/annotations.yaml"] = strings.ReplaceAll(treeAnnotations, "widget", "other")
	return files
}

func loadTree(t *testing.T, files map[string]string) (*Catalog, error) {
	t.Helper()
	data := map[string][]byte{}
	for name, s := range files {
		data[name] = []byte(s)
	}
	fsys, err := rootfs.NewMap("repo", data)
	if err != nil {
		t.Fatal(err)
	}
	return LoadFS(fsys, ".")
}

func hasWarning(c *Catalog, parts ...string) bool {
	for _, w := range c.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w.Error(), p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestUnrenderableBundleInTree: a bundle of a tree whose CSV is known but whose other content is
// broken keeps its place in its channel, with a load warning; only rendering it fails. The rest
// of the package and of the catalog is served.
func TestUnrenderableBundleInTree(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(files map[string]string)
		field string // a part of the problem
	}{
		{name: "a manifest that is not a Kubernetes object", field: "widget/1.1.0/manifests/notes.yaml",
			edit: func(f map[string]string) { f["widget/1.1.0/manifests/notes.yaml"] = "just: [a, list\n" }},
		{name: "a dependencies.yaml that does not parse", field: "widget/1.1.0/metadata/dependencies.yaml",
			edit: func(f map[string]string) {
				f["widget/1.1.0/metadata/dependencies.yaml"] = "dependencies: {not: a list}\n"
			}},
		{name: "a CRD the API server refuses", field: "spec.group",
			edit: func(f map[string]string) {
				f["widget/1.1.0/manifests/crd.yaml"] = strings.Replace(checkCRDv1, "group: example.com", "group: ''", 1)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := widgetTree()
			tt.edit(files)
			c, err := loadTree(t, files)
			if err != nil {
				t.Fatalf("the tree did not load: %v", err)
			}
			p := c.Package("widget")
			bad := p.Bundle("widget.v1.1.0")
			if bad == nil || len(bad.Invalid) == 0 {
				t.Fatalf("widget.v1.1.0 should be in the package and invalid: %+v", bad)
			}
			if _, err := bad.Manifests(); err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("Manifests() = %v, want an error naming %q", err, tt.field)
			}
			if e := p.Channel("stable").Entry("widget.v1.2.0"); e == nil || e.Replaces != "widget.v1.1.0" {
				t.Errorf("the channel lost its graph: %+v", p.Channel("stable"))
			}
			for _, name := range []string{"widget.v1.0.0", "widget.v1.2.0"} {
				if _, err := p.Bundle(name).Manifests(); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if !hasWarning(c, "bundle widget.v1.1.0 cannot be rendered", tt.field) {
				t.Errorf("no warning naming widget.v1.1.0 and %q in %v", tt.field, c.Warnings)
			}
			if len(c.Broken) != 0 {
				t.Errorf("Broken = %v, want none", c.Broken)
			}
		})
	}
}

// TestDuplicateBundleInTree: two bundle directories of a package with the same CSV name make
// that package's resolution fail (Broken), not the whole catalog.
func TestDuplicateBundleInTree(t *testing.T) {
	files := widgetTree()
	files["widget/1.3.0/manifests/widget.csv.yaml"] = strings.Replace(treeCSV("1.3.0", "1.2.0"), "name: widget.v1.3.0", "name: widget.v1.2.0", 1)
	files["widget/1.3.0/metadata/annotations.yaml"] = treeAnnotations
	c, err := loadTree(t, files)
	if err != nil {
		t.Fatalf("the tree did not load: %v", err)
	}
	if len(c.Broken) != 1 || c.Broken[0].Package != "widget" || !strings.Contains(c.Broken[0].Dir, "widget/1.3.0") {
		t.Fatalf("Broken = %+v, want widget/1.3.0 of package widget", c.Broken)
	}
	if msg := c.Broken[0].Problems.Error(); !strings.Contains(msg, `duplicate bundle "widget.v1.2.0"`) || !strings.Contains(msg, "widget/1.2.0/manifests/widget.csv.yaml") {
		t.Errorf("problem %q should name the duplicate and the other file", msg)
	}
	if b := c.Package("widget").Bundle("widget.v1.2.0"); b == nil || b.Version.String() != "1.2.0" {
		t.Errorf("the lower version should stay in the package: %+v", b)
	}
	if c.Package("other") == nil {
		t.Error("the other package was lost")
	}
}

// TestTreeManifestsReadAgain: a tree's manifests are read again when needed, and must be the
// files validated at load.
func TestTreeManifestsReadAgain(t *testing.T) {
	dir := t.TempDir()
	for name, data := range widgetTree() {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c, err := LoadFS(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Package("widget").Bundle("widget.v1.0.0").Manifests()
	if err != nil || m.CSV.Name != "widget.v1.0.0" {
		t.Fatalf("Manifests() = %v, %v", m, err)
	}
	csv := filepath.Join(dir, "widget/1.1.0/manifests/widget.csv.yaml")
	if err := os.WriteFile(csv, []byte(strings.Replace(treeCSV("1.1.0", "1.0.0"), "quay.io/example/widget", "quay.io/evil/widget", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.Package("widget").Bundle("widget.v1.1.0").Manifests()
	if err == nil || !strings.Contains(err.Error(), "changed while olm-render was running") || !strings.Contains(err.Error(), "widget/1.1.0/manifests") {
		t.Errorf("Manifests() after a change = %v, want an error naming the directory", err)
	}
}

// TestBundleMetadataFiles: the files of metadata/ are found as opm's bundle parser finds them:
// whatever their names, the first (by name) holding annotations, dependencies or properties.
func TestBundleMetadataFiles(t *testing.T) {
	const deps = "dependencies:\n- type: olm.package\n  value: {packageName: gadget, version: '>=1.0.0'}\n"
	const props = "properties:\n- type: olm.maxOpenShiftVersion\n  value: '4.18'\n"
	tests := []struct {
		name  string
		files map[string]string // under widget/1.0.0/metadata/
		want  []string          // property types besides olm.package and olm.gvk
		err   string
	}{
		{name: "the usual names", files: map[string]string{"annotations.yaml": treeAnnotations, "dependencies.yaml": deps, "properties.yaml": props},
			want: []string{"olm.maxOpenShiftVersion", TypePackageRequired}},
		{name: "dependency.yaml, singular", files: map[string]string{"annotations.yaml": treeAnnotations, "dependency.yaml": deps},
			want: []string{TypePackageRequired}},
		{name: "one file for everything", files: map[string]string{"bundle.yaml": treeAnnotations + deps + props},
			want: []string{"olm.maxOpenShiftVersion", TypePackageRequired}},
		{name: "other files are passed over", files: map[string]string{"annotations.yaml": treeAnnotations, "README.md": "# {not yaml", "notes.yaml": "just: text\n"}},
		{name: "other annotations and keys are not read", files: map[string]string{
			"annotations.yaml": treeAnnotations + "  operators.operatorframework.io.test.retries: 3\nextra: {any: thing}\n"}},
		{name: "an annotation of the wrong type", files: map[string]string{"annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: [stable]\n"},
			err: "operators.operatorframework.io.bundle.channels.v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"widget/1.0.0/manifests/widget.csv.yaml": checkCSV}
			for name, data := range tt.files {
				files["widget/1.0.0/metadata/"+name] = data
			}
			c, err := loadTree(t, files)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range c.Package("widget").Bundle("widget.v1.0.0").Properties {
				if p.Type != TypePackage && p.Type != TypeGVK {
					got = append(got, p.Type)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("properties %v, want %v", got, tt.want)
			}
		})
	}
}

// mapCache is a DerivedCache in memory that counts what it served.
type mapCache struct {
	mu   sync.Mutex
	data map[string][]byte
	hits int
}

func (c *mapCache) Derived(key string, limit int64) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.data[key]
	if !ok || int64(len(d)) > limit {
		return nil, errors.New("missing")
	}
	c.hits++
	return d, nil
}

func (c *mapCache) SetDerived(key string, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data == nil {
		c.data = map[string][]byte{}
	}
	c.data[key] = data
	return nil
}

// TestTreeCache: the real bundle tree loads the same without a cache, into a cold one and from
// the warm one (every bundle without a problem served from it), and the bundles' manifests are
// the same.
func TestTreeCache(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "operators")
	root, err := rootfs.OpenDir(dir, rootfs.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := &mapCache{}
	var encoded [][]byte
	var loaded []*Catalog
	for _, c := range []DerivedCache{nil, cache, cache} {
		cat, err := LoadFSCached(root, ".", c)
		if err != nil {
			t.Fatal(err)
		}
		data, err := Marshal(cat)
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, data)
		loaded = append(loaded, cat)
	}
	// A cold load reads each file once: it fits a budget of one and a half times the tree.
	var size int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	tight, err := rootfs.OpenDir(dir, rootfs.Limits{MaxTotalSize: size + size/2})
	if err != nil {
		t.Fatal(err)
	}
	defer tight.Close()
	if _, err := LoadFSCached(tight, ".", &mapCache{}); err != nil {
		t.Errorf("a cold cache read the tree twice: %v", err)
	}
	if !bytes.Equal(encoded[0], encoded[1]) || !bytes.Equal(encoded[0], encoded[2]) {
		t.Error("the catalogs loaded without a cache, into a cold one and from a warm one differ")
	}
	_, _, bundles := loaded[0].Counts()
	if cache.hits == 0 || cache.hits != len(cache.data) || len(cache.data) < bundles-len(loaded[0].Broken)-20 {
		t.Errorf("%d hits, %d cached, %d bundles: the warm load should serve every cached bundle", cache.hits, len(cache.data), bundles)
	}
	for i, p := range loaded[2].Packages {
		for j, b := range p.Bundles {
			warm, errWarm := b.Manifests()
			cold, errCold := loaded[0].Packages[i].Bundles[j].Manifests()
			if (errWarm == nil) != (errCold == nil) {
				t.Fatalf("%s: manifests %v, without a cache %v", b.Name, errWarm, errCold)
			}
			if errWarm != nil {
				continue
			}
			w, _ := MarshalManifests(warm)
			c, _ := MarshalManifests(cold)
			if !bytes.Equal(w, c) {
				t.Errorf("%s: the manifests differ", b.Name)
			}
		}
	}
}

// FuzzLoadTree feeds arbitrary bytes to a bundle tree as one bundle's CSV and as a metadata file
// of another name: no panic, and a warm tree cache gives what a cold one gave.
func FuzzLoadTree(f *testing.F) {
	f.Add([]byte(treeCSV("1.1.0", "1.0.0")), []byte("dependencies:\n- type: olm.package\n  value: {packageName: other, version: '>=1.0.0'}\n"))
	f.Add([]byte("kind: ClusterServiceVersion\napiVersion: v1\n"), []byte("annotations: 3\n"))
	f.Add([]byte(treeCSV("1.1.0", "1.0.0")+"kind: ClusterServiceVersion\n"), []byte("properties: [{type: x, value: 1}]\nproperties: []\n"))
	f.Fuzz(func(t *testing.T, csv, meta []byte) {
		files := map[string][]byte{}
		for name, data := range widgetTree() {
			files[name] = []byte(data)
		}
		files["widget/1.1.0/manifests/widget.csv.yaml"] = csv
		files["widget/1.1.0/metadata/a-extra.yaml"] = meta
		fsys, err := rootfs.NewMap("repo", files)
		if err != nil {
			t.Fatal(err)
		}
		cache := &mapCache{}
		var encoded [][]byte
		for range 2 {
			c, err := LoadFSCached(fsys, ".", cache)
			if err != nil {
				encoded = append(encoded, []byte(err.Error()))
				continue
			}
			data, err := Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			encoded = append(encoded, data)
		}
		if !bytes.Equal(encoded[0], encoded[1]) {
			t.Error("the warm load differs from the cold one")
		}
	})
}

// TestRefusedBundleInTree: a bundle whose annotations name another package than its package
// directory, or a bundle format OLM v0 does not install, is left out of its package (Broken,
// resolving the directory's package fails unless it chooses a newer bundle), never silently
// moved to another package or rendered as registry+v1; catalog validate reports it.
func TestRefusedBundleInTree(t *testing.T) {
	tests := []struct {
		name, annotations, want string
	}{
		{"another package", strings.ReplaceAll(treeAnnotations, "package.v1: widget", "package.v1: gadget"),
			`the bundle says it is of package "gadget" but sits in the package directory "widget"`},
		{"a helm bundle", treeAnnotations + "  operators.operatorframework.io.bundle.mediatype.v1: helm\n",
			`bundle format "helm": OLM v0 installs registry+v1 bundles only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := widgetTree()
			files["widget/1.2.0/metadata/annotations.yaml"] = tt.annotations
			c, err := loadTree(t, files)
			if err != nil {
				t.Fatalf("the tree did not load: %v", err)
			}
			if len(c.Broken) != 1 || c.Broken[0].Package != "widget" || c.Broken[0].Version.String() != "1.2.0" {
				t.Fatalf("Broken = %+v, want widget/1.2.0 of package widget", c.Broken)
			}
			if !hasWarning(c, "widget/1.2.0/metadata/annotations.yaml", tt.want) {
				t.Errorf("no warning %q in %v", tt.want, c.Warnings)
			}
			if c.Package("gadget") != nil || c.Package("widget").Bundle("widget.v1.2.0") != nil {
				t.Error("the refused bundle is still served")
			}
			if bad := c.Uninstallable(); len(bad) != 1 || !strings.Contains(bad.Error(), tt.want) {
				t.Errorf("Uninstallable = %v", bad)
			}
		})
	}
	// Registry+v1 said explicitly is what every community bundle says.
	files := widgetTree()
	files["widget/1.2.0/metadata/annotations.yaml"] = treeAnnotations + "  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n"
	if c, err := loadTree(t, files); err != nil || len(c.Broken) != 0 || len(c.Uninstallable()) != 0 {
		t.Errorf("a registry+v1 bundle was refused: %v %+v", err, c.Broken)
	}
}

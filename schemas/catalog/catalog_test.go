package catalog

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/fixture/corpus"
)

var update = flag.Bool("update", false, "update golden files")

// summary is a stable rendering of a catalog for golden files.
func summary(c *Catalog) map[string]any {
	var pkgs []any
	for _, p := range c.Packages {
		var channels, bundles []any
		for _, ch := range p.Channels {
			channels = append(channels, map[string]any{"name": ch.Name, "entries": ch.Entries, "deprecation": ch.Deprecation})
		}
		for _, b := range p.Bundles {
			var props []string
			for _, pr := range b.Properties {
				props = append(props, pr.Type+" "+string(pr.Value))
			}
			manifests := "none"
			if m, err := b.Manifests(); err == nil {
				manifests = fmt.Sprintf("csv %s + %d objects", m.CSV.Name, len(m.Objects))
			}
			bundles = append(bundles, map[string]any{"name": b.Name, "version": b.Version.String(), "image": b.Image,
				"channels": b.Channels, "properties": props, "manifests": manifests, "deprecation": b.Deprecation,
				"csvMetadata": string(b.CSVMetadata)})
		}
		pkgs = append(pkgs, map[string]any{"name": p.Name, "defaultChannel": p.DefaultChannel, "channels": channels, "bundles": bundles})
	}
	return map[string]any{"format": c.Format, "packages": pkgs, "others": len(c.Others)}
}

// TestGolden loads a small hand-written catalog in each format.
func TestGolden(t *testing.T) {
	for _, tt := range []struct{ name, path string }{
		{"fbc", "testdata/fbc"},
		{"packagemanifest", "testdata/packagemanifest"},
		{"bundles", "../../examples/quickstart/catalog"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := yaml.Marshal(summary(c))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".golden.yaml")
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
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs; rerun with -update and review:\n%s", path, got)
			}
		})
	}
}

// TestSamePackageTwoFormats: kube-green as registry+v1 bundles and as the FBC the community
// pipeline rendered from them give the same bundles, versions, graph and properties.
func TestSamePackageTwoFormats(t *testing.T) {
	shared := corpus.Dir(t)
	bundles, err := Load(filepath.Join(shared, "operators", "kube-green"))
	if err != nil {
		t.Fatal(err)
	}
	fbc, err := Load(filepath.Join(shared, "fbc", "community-operators-prod", "catalogs", "v4.16", "kube-green"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := bundles.Package("kube-green"), fbc.Package("kube-green")
	if a.DefaultChannel != b.DefaultChannel {
		t.Errorf("default channel %q vs %q", a.DefaultChannel, b.DefaultChannel)
	}
	compared := 0
	for _, fb := range b.Bundles {
		db := a.Bundle(fb.Name)
		if db == nil {
			continue
		}
		compared++
		if !db.Version.Equals(fb.Version) || !slices.Equal(db.Channels, fb.Channels) {
			t.Errorf("%s: version/channels %s %v vs %s %v", fb.Name, db.Version, db.Channels, fb.Version, fb.Channels)
		}
		if got, want := propertySet(db), propertySet(fb); !slices.Equal(got, want) {
			t.Errorf("%s: properties differ:\nbundle dir: %v\nFBC:        %v", fb.Name, got, want)
		}
		dm, err1 := db.Manifests()
		fm, err2 := fb.Manifests()
		if err1 != nil || err2 != nil || dm.CSV.Name != fm.CSV.Name || len(dm.Objects) != len(fm.Objects) {
			t.Errorf("%s: manifests differ (%v, %v)", fb.Name, err1, err2)
		}
	}
	for _, ch := range b.Channels {
		if got := a.Channel(ch.Name); got == nil || !slices.EqualFunc(got.Entries, ch.Entries, entryEqual) {
			t.Errorf("channel %s differs", ch.Name)
		}
	}
	if compared < 5 {
		t.Fatalf("only %d bundles compared", compared)
	}
}

func entryEqual(a, b ChannelEntry) bool {
	return a.Name == b.Name && a.Replaces == b.Replaces && slices.Equal(a.Skips, b.Skips) && a.SkipRange == b.SkipRange
}

func propertySet(b *Bundle) []string {
	var out []string
	for _, p := range b.Properties {
		var v any
		_ = json.Unmarshal(p.Value, &v)
		norm, _ := json.Marshal(v)
		out = append(out, p.Type+" "+string(norm))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestBadInput: each problem names the file and object.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"truncated YAML", map[string]string{"c.yaml": "schema: olm.package\nname: [a\n"}, []string{"c.yaml: invalid catalog object"}},
		{"stray README", map[string]string{"c.yaml": "schema: olm.package\nname: a\ndefaultChannel: s\n", "README.md": "# readme\n"},
			[]string{"README.md: object '' is missing root schema field (is this a stray non-catalog file? list it in .indexignore)"}},
		{"missing schema", map[string]string{"c.json": `{"name":"a"}`}, []string{`c.json: object is missing root schema field`}},
		{"wrong field type", map[string]string{"c.yaml": "schema: olm.channel\npackage: a\nname: s\nentries: nope\n"}, []string{"c.yaml: olm.channel a/s: entries: want a list of objects, got a string"}},
		{"repeated key in a JSON package", map[string]string{"c.json": `{"schema":"olm.package","name":"a","defaultChannel":"s","defaultChannel":"t"}`},
			[]string{`c.json: olm.package a: defaultChannel: repeated key: keep one`}},
		{"repeated key in a JSON channel entry", map[string]string{"c.json": `{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1","replaces":"x","replaces":"y"}]}`},
			[]string{`c.json: olm.channel a/s: entries[0].replaces: repeated key: keep one`}},
		{"repeated key in a JSON bundle", map[string]string{"c.json": `{"schema":"olm.bundle","package":"a","name":"a.v1","image":"x","image":"y","properties":[]}`},
			[]string{`c.json: olm.bundle a/a.v1: image: repeated key: keep one`}},
		{"repeated key in a JSON bundle property", map[string]string{"c.json": `{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0","version":"2.0.0"}}]}`},
			[]string{`c.json: olm.bundle a/a.v1: properties[0].value.version: repeated key: keep one`}},
		{"NUL bytes", map[string]string{"c.json": "{\"schema\":\"olm.package\",\"name\":\"a\"}\x00"},
			[]string{"c.json: not a YAML or JSON text file"}},
		{"duplicate package", map[string]string{"c.yaml": "schema: olm.package\nname: a\n---\nschema: olm.package\nname: a\n"}, []string{`c.yaml#1: olm.package a: name: duplicate package "a"`}},
		{"unknown package", map[string]string{"c.yaml": "schema: olm.bundle\npackage: b\nname: b.v1\nproperties: []\n"}, []string{`unknown package "b" for bundle "b.v1"`}},
		{"replaces cycle", map[string]string{"c.yaml": `schema: olm.package
name: a
defaultChannel: s
---
schema: olm.channel
package: a
name: s
entries: [{name: a.v1, replaces: a.v3}, {name: a.v2, replaces: a.v1}, {name: a.v3, replaces: a.v2}, {name: a.v4, replaces: a.v3}]
---
{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}
---
{"schema":"olm.bundle","package":"a","name":"a.v2","properties":[{"type":"olm.package","value":{"packageName":"a","version":"2.0.0"}}]}
---
{"schema":"olm.bundle","package":"a","name":"a.v3","properties":[{"type":"olm.package","value":{"packageName":"a","version":"3.0.0"}}]}
---
{"schema":"olm.bundle","package":"a","name":"a.v4","properties":[{"type":"olm.package","value":{"packageName":"a","version":"4.0.0"}}]}
`}, []string{"detected cycle in replaces chain of upgrade graph: a.v4 -> a.v3 -> a.v2 -> a.v1 -> a.v3"}},
		{"missing default channel", map[string]string{"c.yaml": "schema: olm.package\nname: a\ndefaultChannel: nope\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1}]\n---\n{\"schema\":\"olm.bundle\",\"package\":\"a\",\"name\":\"a.v1\",\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"1.0.0\"}}]}\n"},
			[]string{`default channel "nope" not found in channels list`}},
		{"entry without bundle", map[string]string{"c.yaml": "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v9}]\n"},
			[]string{`c.yaml#1: olm.channel a/s: entries[0].name: no olm.bundle blob "a.v9" in package "a"`}},
		{"bad version", map[string]string{"c.yaml": "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1}]\n---\n{\"schema\":\"olm.bundle\",\"package\":\"a\",\"name\":\"a.v1\",\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"0.1\"}}]}\n"},
			[]string{`error parsing bundle "a.v1" version "0.1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil {
				t.Fatal("loaded")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error\n%s\ndoes not contain\n%s", msg, w)
				}
			}
		})
	}
	if _, err := Load("does-not-exist"); err == nil || !strings.Contains(err.Error(), "does-not-exist: cannot read catalog snapshot") {
		t.Errorf("missing path: %v", err)
	}
}

// FuzzLoadFBC feeds arbitrary bytes to the FBC loader: it must not panic.
func FuzzLoadFBC(f *testing.F) {
	seed, _ := os.ReadFile("testdata/fbc/catalog.yaml")
	f.Add(seed)
	f.Add([]byte(`{"schema":"olm.package","name":"a"}{"schema":"olm.bundle"}`))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "catalog.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if c, err := Load(dir); err == nil {
			Validate(c)
			for _, p := range c.Packages {
				for _, b := range p.Bundles {
					_, _ = b.Manifests()
				}
			}
		}
	})
}

// FuzzLoadBundle feeds arbitrary bytes to the registry+v1 bundle loader as a CSV and as
// annotations.yaml.
func FuzzLoadBundle(f *testing.F) {
	csv, _ := os.ReadFile("testdata/packagemanifest/widget/0.2.0/widget.v0.2.0.clusterserviceversion.yaml")
	ann := []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: widget\n  operators.operatorframework.io.bundle.channels.v1: stable\n")
	f.Add(csv, ann)
	f.Add([]byte("kind: ClusterServiceVersion\napiVersion: v1\n"), []byte("annotations: 3\n"))
	f.Fuzz(func(t *testing.T, csv, ann []byte) {
		dir := t.TempDir()
		_ = os.MkdirAll(filepath.Join(dir, "manifests"), 0o755)
		_ = os.MkdirAll(filepath.Join(dir, "metadata"), 0o755)
		_ = os.WriteFile(filepath.Join(dir, "manifests", "csv.yaml"), csv, 0o644)
		_ = os.WriteFile(filepath.Join(dir, "metadata", "annotations.yaml"), ann, 0o644)
		_, _ = Load(dir)
	})
}

// TestUninstallableInlineManifests: an FBC bundle whose olm.bundle.object does not decode loads
// (a render that does not choose it is fine) and is reported by Uninstallable, naming the file.
func TestUninstallableInlineManifests(t *testing.T) {
	dir := t.TempDir()
	fbc := "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1}]\n---\n" +
		`{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.bundle.object","value":{"data":"!!!"}}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(fbc), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	bad := c.Uninstallable()
	if len(bad) != 1 || !strings.Contains(bad.Error(), "c.yaml#2") || !strings.Contains(bad.Error(), "c.yaml#2: olm.bundle a/a.v1: properties[1].value.data: not base64 (illegal data at byte 0)") {
		t.Errorf("Uninstallable = %v", bad)
	}
	if !c.Package("a").Bundle("a.v1").HasManifests() {
		t.Error("the bundle lost its manifests")
	}
}

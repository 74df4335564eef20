package catalog

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/rootfs"
)

// denied is a file system in which one directory cannot be read: every access below it fails
// with permission denied, as for a directory of mode 000 read by another user.
type denied struct {
	*rootfs.Map
	dir string
}

func (d denied) check(op, name string) error {
	if name == d.dir || strings.HasPrefix(name, d.dir+"/") {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrPermission}
	}
	return nil
}

func (d denied) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := d.check("readdir", name); err != nil {
		return nil, err
	}
	return d.Map.ReadDir(name)
}

func (d denied) Stat(name string) (fs.FileInfo, error) {
	if name != d.dir {
		if err := d.check("stat", name); err != nil {
			return nil, err
		}
	}
	return d.Map.Stat(name)
}

func (d denied) ReadFile(name string) ([]byte, error) {
	if err := d.check("open", name); err != nil {
		return nil, err
	}
	return d.Map.ReadFile(name)
}

// TestUnreadableBundleDirectory: a bundle directory that cannot be read is never skipped (an
// older bundle would then be chosen in silence): it is a broken bundle of its package, which
// fails the package's resolution and catalog validate, naming the directory.
func TestUnreadableBundleDirectory(t *testing.T) {
	data := map[string][]byte{}
	for name, s := range widgetTree() {
		data[name] = []byte(s)
	}
	m, err := rootfs.NewMap("repo", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, pkg, version string }{
		{"widget/1.2.0", "widget", "1.2.0"},
		{"other", "other", ""},
	} {
		c, err := LoadFS(denied{Map: m, dir: tt.dir}, ".")
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Broken) != 1 || c.Broken[0].Package != tt.pkg || c.Broken[0].Dir != "repo/"+tt.dir {
			t.Fatalf("%s: broken %+v", tt.dir, c.Broken)
		}
		if v := c.Broken[0].Version; (v == nil) != (tt.version == "") || v != nil && v.String() != tt.version {
			t.Errorf("%s: version %v, want %q", tt.dir, v, tt.version)
		}
		errs := c.Uninstallable().Errors()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "repo/"+tt.dir+": cannot read bundle directory: permission denied") {
			t.Errorf("%s: uninstallable %v", tt.dir, errs)
		}
	}
}

// TestPropertyValueTypes: a property whose value opm cannot parse into its type (olm.gvk not an
// object of strings, olm.csv.metadata not an object) makes opm refuse the catalog: it is an
// error naming the file, the bundle and the property.
func TestPropertyValueTypes(t *testing.T) {
	const fbc = `{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}
{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},PROPERTY]}
`
	tests := []struct{ property, want string }{
		{`{"type":"olm.gvk","value":"example.com/v1/Widget"}`, `c.json#2: olm.bundle a/a.v1: properties[1].value: olm.gvk value: want an object {group, version, kind} of strings, got a string`},
		{`{"type":"olm.gvk","value":{"group":"example.com","version":1,"kind":"Widget"}}`, "properties[1].value: olm.gvk value: want an object {group, version, kind} of strings: version: want a string, got a number"},
		{`{"type":"olm.gvk.required","value":["example.com"]}`, "properties[1].value: olm.gvk.required value: want an object {group, version, kind} of strings, got an array"},
		{`{"type":"olm.csv.metadata","value":"a CSV"}`, "properties[1].value: olm.csv.metadata value: want an object holding the CSV's metadata"},
		{`{"type":"olm.csv.metadata","value":{"annotations":"x"}}`, `properties[1].value: olm.csv.metadata value: want an object holding the CSV's metadata (annotations, displayName, installModes, ...): field "annotations" is a string`},
		{`{"type":"olm.bundle.object","value":{"data":1}}`, "properties[1].value: olm.bundle.object value"},
		{`{"type":"olm.maxOpenShiftVersion","value":"4.18"}`, ""},
		{`{"type":"olm.csv.metadata","value":{"displayName":"A","installModes":[]}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.property, func(t *testing.T) {
			m, err := rootfs.NewMap("repo", map[string][]byte{"c.json": []byte(strings.Replace(fbc, "PROPERTY", tt.property, 1))})
			if err != nil {
				t.Fatal(err)
			}
			_, err = LoadFS(m, ".")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
			case err == nil || !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestPropertiesFileValueTypes: properties.yaml of a bundle directory is checked alike; the
// bundle is left unrenderable, naming the file and the property.
func TestPropertiesFileValueTypes(t *testing.T) {
	files := widgetTree()
	files["widget/1.2.0/metadata/properties.yaml"] = "properties:\n- type: olm.gvk\n  value: example.com/v1/Widget\n"
	c, err := loadTree(t, files)
	if err != nil {
		t.Fatal(err)
	}
	invalid := c.Package("widget").Bundle("widget.v1.2.0").Invalid
	want := `repo/widget/1.2.0/metadata/properties.yaml: bundle "widget.v1.2.0": properties[0].value: olm.gvk value: want an object {group, version, kind} of strings, got a string`
	if len(invalid) != 1 || !strings.HasPrefix(invalid[0].Error(), want) {
		t.Fatalf("invalid %v, want %s", invalid, want)
	}
}

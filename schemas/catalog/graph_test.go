package catalog

import (
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/diag"
)

// TestUnorderableChannel: a channel OLM's sortChannel cannot order (several heads, none, a
// cycle) loads with a warning in a bundle tree and fails Uninstallable, which catalog validate
// reports; both name the file that holds the edge to fix, with the bundle it most likely meant.
func TestUnorderableChannel(t *testing.T) {
	const v11 = "widget/1.1.0/manifests/widget.csv.yaml"
	tests := []struct {
		name  string
		edit  func(files map[string]string)
		want  []string
		valid bool
	}{
		{name: "one chain", valid: true},
		{name: "a replaces naming no bundle: a typo", edit: func(f map[string]string) {
			f[v11] = treeCSV("1.1.0", "1.0.1")
		}, want: []string{v11, `package "widget" channel "stable"`, "spec.replaces", `"widget.v1.0.1" names no bundle of channel "stable": did you mean "widget.v1.0.0"?`,
			"multiple channel heads found in graph: widget.v1.0.0, widget.v1.2.0"}},
		{name: "a replaces left out", edit: func(f map[string]string) {
			f[v11] = treeCSV("1.1.0", "")
		}, want: []string{v11, "spec.replaces", "nothing replaces or skips widget.v1.0.0", "make widget.v1.1.0, the next version, replace or skip it"}},
		{name: "a cycle through every bundle", edit: func(f map[string]string) {
			f["widget/1.0.0/manifests/widget.csv.yaml"] = treeCSV("1.0.0", "1.2.0")
		}, want: []string{"widget/1.0.0/manifests/widget.csv.yaml", "spec.replaces", "no channel head found in graph", "widget.v1.0.0 leads back to widget.v1.2.0"}},
		{name: "a dangling replaces of the oldest bundle: a truncated channel", valid: true, edit: func(f map[string]string) {
			f["widget/1.0.0/manifests/widget.csv.yaml"] = treeCSV("1.0.0", "0.9.0")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := widgetTree()
			if tt.edit != nil {
				tt.edit(files)
			}
			c, err := loadTree(t, files)
			if err != nil {
				t.Fatal(err)
			}
			errs := c.Uninstallable().Errors()
			if tt.valid {
				if len(errs) > 0 {
					t.Fatalf("a channel OLM orders: %v", errs)
				}
				return
			}
			if len(errs) != 1 || !hasWarning(c, errs[0].Message) {
				t.Fatalf("want one error, also a load warning: errors %v, warnings %v", errs, c.Warnings)
			}
			for _, w := range tt.want {
				if !strings.Contains(errs[0].Error(), w) {
					t.Errorf("%s\ndoes not contain %q", errs[0].Error(), w)
				}
			}
		})
	}
}

// TestUnorderableFBCChannel: in a file-based catalog the edges are the channel's entries: a
// problem names the channel's file and the entry's field.
func TestUnorderableFBCChannel(t *testing.T) {
	p := &Package{Name: "a"}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		b := &Bundle{Package: "a", Name: "a.v" + v}
		b.Version.Major = uint64(v[0] - '0')
		p.Bundles = append(p.Bundles, b)
	}
	ch := &Channel{Package: "a", Name: "s", Origin: diag.Origin{File: "c.yaml", Index: 1},
		Entries: []ChannelEntry{{Name: "a.v1.0.0"}, {Name: "a.v2.0.0", Replaces: "a.v1.0.1"}}}
	ps := graphProblems(p, ch, diag.Error)
	want := `c.yaml#1: package "a" channel "s": entries[1].replaces: "a.v1.0.1" names no bundle of channel "s": did you mean "a.v1.0.0"?`
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Error(), want) {
		t.Fatalf("problems %v, want %s", ps, want)
	}
}

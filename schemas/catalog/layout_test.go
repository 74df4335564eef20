package catalog

import (
	"github.com/olm-render/olm-render/schemas/diag"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestTreeLayouts: every directory of a community tree is read as the community pipeline reads
// it, and none is skipped without a word: a bundle below <version>/ (bundle/, certification/) is
// never built, so it is left out of the package with a warning naming it; a directory holding no
// bundle is a catalog validate failure naming it.
func TestTreeLayouts(t *testing.T) {
	nested := func(dir, version, replaces string) map[string]string {
		return map[string]string{
			"widget/" + dir + "/manifests/widget.csv.yaml":                  treeCSV(version, replaces),
			"widget/" + dir + "/metadata/annotations.yaml":                  treeAnnotations,
			"widget/" + strings.Split(dir, "/")[0] + "/release-config.yaml": "catalog_templates: []\n",
		}
	}
	tests := []struct {
		name    string
		files   map[string]string
		bundles []string // the package's bundles
		leftOut string   // the directory left out
		want    string   // in its warning
		unknown bool     // catalog validate fails on it
	}{
		{name: "bundle/ below the version", files: nested("1.3.0/bundle", "1.3.0", "1.2.0"),
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}, leftOut: "repo/widget/1.3.0/bundle",
			want: `repo/widget/1.3.0/bundle: package "widget": a bundle in 1.3.0/bundle/ is never built: the community pipeline reads a bundle only from <package>/<version>/`},
		{name: "certification/ below the version", files: nested("1.3.0/certification", "1.3.0", "1.2.0"),
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}, leftOut: "repo/widget/1.3.0/certification",
			want: "a bundle in 1.3.0/certification/ is never built"},
		{name: "a copy below a bundle directory", files: nested("1.2.0/bundle", "1.2.1", ""),
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}, leftOut: "repo/widget/1.2.0/bundle",
			want: "a bundle below the bundle directory 1.2.0 is not read"},
		{name: "a version directory holding no bundle", files: map[string]string{"widget/1.3.0/widget.csv.yaml": treeCSV("1.3.0", "1.2.0")},
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}, leftOut: "repo/widget/1.3.0", unknown: true,
			want: `repo/widget/1.3.0: package "widget": is not a bundle directory, and holds none`},
		{name: "a directory of the tree holding no bundle", files: map[string]string{"docs/README.md": "# notes\n"},
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}, leftOut: "repo/docs", unknown: true,
			want: `repo/docs: package "docs": holds no bundle directory`},
		{name: "a bundle the catalog template lists in no channel", files: map[string]string{
			"widget/ci.yaml": "fbc:\n  enabled: true\n",
			"widget/catalog-templates/v4.18.yaml": "schema: olm.template.basic\nentries:\n- {schema: olm.package, name: widget, defaultChannel: stable}\n" +
				"- {schema: olm.channel, package: widget, name: stable, entries: [{name: widget.v1.0.0}, {name: widget.v1.1.0, replaces: widget.v1.0.0}]}\n"},
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0"}, leftOut: "repo/widget/1.2.0",
			want: `repo/widget/1.2.0: bundle "widget.v1.2.0": left out, as the published catalog leaves it out: the catalog template repo/widget/catalog-templates/v4.18.yaml`},
		{name: "catalog templates are the pipeline's", files: map[string]string{"widget/catalog-templates/v4.18.yaml": "schema: olm.template.basic\n"},
			bundles: []string{"widget.v1.0.0", "widget.v1.1.0", "widget.v1.2.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := widgetTree()
			maps.Copy(files, tt.files)
			c, err := loadTree(t, files)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range c.Package("widget").Bundles {
				got = append(got, b.Name)
			}
			if !slices.Equal(got, tt.bundles) {
				t.Errorf("bundles %v, want %v", got, tt.bundles)
			}
			checkLeftOut(t, c, tt.leftOut, tt.want, tt.unknown)
		})
	}
}

// checkLeftOut checks that dir is the one directory left out, with a warning holding want, and
// that catalog validate fails on it when it is unknown.
func checkLeftOut(t *testing.T, c *Catalog, dir, want string, unknown bool) {
	t.Helper()
	if dir == "" {
		if len(c.LeftOut) > 0 {
			t.Errorf("left out %v", c.LeftOut)
		}
		return
	}
	if len(c.LeftOut) != 1 || c.LeftOut[0].Dir != dir || c.LeftOut[0].Unknown != unknown {
		t.Fatalf("left out %+v, want %s", c.LeftOut, dir)
	}
	if !hasWarning(c, want) {
		t.Errorf("no warning %q in %v", want, c.Warnings)
	}
	failed := slices.ContainsFunc(c.Uninstallable(), func(p diag.Problem) bool { return strings.Contains(p.Error(), dir) })
	if failed != unknown {
		t.Errorf("catalog validate fails on it: %v, want %v", failed, unknown)
	}
}

// rabbitmq is a copy of the community catalog's rabbitmq-messaging-topology-operator, with its
// published catalog (testdata/rabbitmq/README.md).
const (
	rabbitmqTree      = "testdata/rabbitmq/operators/rabbitmq-messaging-topology-operator"
	rabbitmqPublished = "testdata/rabbitmq/catalogs/v4.22/rabbitmq-messaging-topology-operator/catalog.yaml"
)

// TestCommunityLayoutOfRabbitmq: rabbitmq-messaging-topology-operator as the community tree keeps
// it (three bundles in <version>/bundle/, beside a release-config.yaml; a catalog template) loads
// as the published catalog: the same bundles and channel heads; each of its 23 bundle directories
// is a bundle of the package or left out with a warning naming it.
func TestCommunityLayoutOfRabbitmq(t *testing.T) {
	tree, err := Load(rabbitmqTree)
	if err != nil {
		t.Fatal(err)
	}
	published, err := Load(rabbitmqPublished)
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "rabbitmq-messaging-topology-operator"
	names := func(c *Catalog) []string {
		var out []string
		for _, b := range c.Package(pkg).Bundles {
			out = append(out, b.Name)
		}
		return out
	}
	if got, want := names(tree), names(published); !slices.Equal(got, want) {
		t.Errorf("bundles %v, published %v", got, want)
	}
	for _, ch := range published.Package(pkg).Channels {
		want, _ := ch.Head()
		got, err := tree.Package(pkg).Channel(ch.Name).Head()
		if err != nil || got != want {
			t.Errorf("channel %s: head %s (%v), published %s", ch.Name, got, err, want)
		}
	}
	var leftOut []string
	for _, l := range tree.LeftOut {
		leftOut = append(leftOut, strings.TrimPrefix(l.Dir, rabbitmqTree+"/"))
		if l.Unknown || !hasWarning(tree, l.Dir+": ") {
			t.Errorf("%s: unknown %v, or no warning naming it", l.Dir, l.Unknown)
		}
	}
	want := []string{"1.10.0", "1.10.1", "1.10.2", "1.10.3", "1.11.0", "1.12.0", "1.18.3/bundle", "1.19.0/bundle", "1.19.1/bundle", "1.8.0", "1.9.0"}
	if slices.Sort(leftOut); !slices.Equal(leftOut, want) {
		t.Errorf("left out %v, want %v", leftOut, want)
	}
	if n := len(names(tree)) + len(tree.LeftOut); n != 23 {
		t.Errorf("%d bundle directories counted, want 23", n)
	}
}

package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/test/fixture/corpus"
)

// templatePackage copies three kube-green bundle directories into a package directory with the
// given ci.yaml and catalog templates.
func templatePackage(t *testing.T, ci string, templates map[string]string) string {
	t.Helper()
	shared := corpus.Dir(t)
	dir := filepath.Join(t.TempDir(), "kube-green")
	for _, v := range []string{"0.6.0", "0.7.0", "0.7.1"} {
		if err := os.CopyFS(filepath.Join(dir, v), os.DirFS(filepath.Join(shared, "operators", "kube-green", v))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ci.yaml"), []byte(ci), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "catalog-templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range templates {
		if err := os.WriteFile(filepath.Join(dir, "catalog-templates", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const stableTemplate = `schema: olm.template.basic
entries:
- {schema: olm.package, name: kube-green, defaultChannel: stable}
- schema: olm.channel
  package: kube-green
  name: stable
  entries:
  - {name: kube-green.v0.6.0}
  - {name: kube-green.v0.7.1, replaces: kube-green.v0.6.0, skips: [kube-green.v0.7.0]}
- {schema: olm.bundle, image: quay.io/example/kube-green@sha256:0000000000000000000000000000000000000000000000000000000000000000}
`

// TestCatalogTemplate: a package whose ci.yaml enables FBC takes its channels from the basic
// catalog template the pipeline renders (for the newest catalog it maps), not from the bundles'
// annotations; a semver template, which names bundles only by image, is reported and the
// annotations used.
func TestCatalogTemplate(t *testing.T) {
	tests := []struct {
		name, ci     string
		templates    map[string]string
		channels     []string
		defaultCh    string
		bundles      []string
		warning      string
		errorMessage string
	}{{
		name:      "basic template",
		ci:        "fbc: {enabled: true, catalog_mapping: [{template_name: basic.yaml, type: olm.template.basic, catalog_names: [v4.16]}]}\n",
		templates: map[string]string{"basic.yaml": stableTemplate},
		channels:  []string{"stable"}, defaultCh: "stable",
		bundles: []string{"kube-green.v0.6.0", "kube-green.v0.7.1"},
	}, {
		name: "the template of the newest catalog, by version",
		ci: "fbc:\n  enabled: true\n  catalog_mapping:\n  - {template_name: new.yaml, type: olm.template.basic, catalog_names: [v4.10, v4.16]}\n" +
			"  - {template_name: old.yaml, type: olm.template.basic, catalog_names: [v4.9]}\n",
		templates: map[string]string{"new.yaml": stableTemplate, "old.yaml": "entries: [{schema: olm.channel, package: kube-green, name: old, entries: [{name: kube-green.v0.7.0}]}]\n"},
		channels:  []string{"stable"}, defaultCh: "stable",
		bundles: []string{"kube-green.v0.6.0", "kube-green.v0.7.1"},
	}, {
		name:      "no mapping: the first template file",
		ci:        "fbc: {enabled: true}\n",
		templates: map[string]string{"a.yaml": stableTemplate},
		channels:  []string{"stable"}, defaultCh: "stable",
		bundles: []string{"kube-green.v0.6.0", "kube-green.v0.7.1"},
	}, {
		name:      "FBC not enabled: the annotations",
		ci:        "updateGraph: replaces-mode\n",
		templates: map[string]string{"basic.yaml": stableTemplate},
		channels:  []string{"alpha"}, defaultCh: "alpha",
		bundles: []string{"kube-green.v0.6.0", "kube-green.v0.7.0", "kube-green.v0.7.1"},
	}, {
		name:      "semver template: the annotations, with a warning",
		ci:        "fbc: {enabled: true, catalog_mapping: [{template_name: semver.yaml, type: olm.semver, catalog_names: [v4.16]}]}\n",
		templates: map[string]string{"semver.yaml": "schema: olm.semver\nStable: {Bundles: [{Image: quay.io/example/kube-green@sha256:00}]}\n"},
		channels:  []string{"alpha"}, defaultCh: "alpha",
		bundles: []string{"kube-green.v0.6.0", "kube-green.v0.7.0", "kube-green.v0.7.1"},
		warning: "olm.semver template \"semver.yaml\" lists bundles only by image",
	}, {
		name:         "a template name that leaves the folder",
		ci:           "fbc: {enabled: true, catalog_mapping: [{template_name: ../../secret.yaml, catalog_names: [v4.16]}]}\n",
		errorMessage: "fbc.catalog_mapping[0].template_name",
	}, {
		name:         "a template that is not there",
		ci:           "fbc: {enabled: true, catalog_mapping: [{template_name: missing.yaml, catalog_names: [v4.16]}]}\n",
		errorMessage: "cannot read catalog template",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(templatePackage(t, tt.ci, tt.templates))
			if tt.errorMessage != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorMessage) {
					t.Fatalf("error %v, want one containing %q", err, tt.errorMessage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := c.Package("kube-green")
			var channels, bundles []string
			for _, ch := range p.Channels {
				channels = append(channels, ch.Name)
			}
			for _, b := range p.Bundles {
				bundles = append(bundles, b.Name)
			}
			slices.Sort(channels)
			slices.Sort(bundles)
			if !slices.Equal(channels, tt.channels) || p.DefaultChannel != tt.defaultCh || !slices.Equal(bundles, tt.bundles) {
				t.Errorf("channels %v (default %s), bundles %v; want %v (default %s), %v", channels, p.DefaultChannel, bundles, tt.channels, tt.defaultCh, tt.bundles)
			}
			warned := tt.warning == ""
			for _, w := range c.Warnings {
				warned = warned || strings.Contains(w.Error(), tt.warning)
			}
			if !warned {
				t.Errorf("no warning %q in %v", tt.warning, c.Warnings)
			}
		})
	}
}

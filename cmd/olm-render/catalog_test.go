package main

import (
	"strings"
	"testing"
)

// TestCatalogValidate: a catalog is valid only when a render could install every bundle in it.
// A bundle a render leaves out or cannot render, inline manifests that do not decode and
// dependencies no resolution can read are errors (exit 1) naming the file, the bundle and the
// field, never "valid"; warnings that fail nothing keep the catalog valid.
func TestCatalogValidate(t *testing.T) {
	const v020 = "../catalog/widget-operator/0.2.0/"
	tests := []struct {
		name  string
		edits []edit
		code  int
		want  []string
	}{
		{name: "valid", code: 0, want: []string{"catalog: registry+v1, 2 packages, 2 channels, 3 bundles: valid\n"}},
		{name: "no package annotation", edits: []edit{{v020 + "metadata/annotations.yaml", "  operators.operatorframework.io.bundle.package.v1: widget-operator\n", ""}}, code: 1,
			want: []string{"not valid (1 problem that would fail a render)",
				"error: catalog/widget-operator/0.2.0/metadata/annotations.yaml: annotations[operators.operatorframework.io.bundle.package.v1]: required"}},
		{name: "bundle of another package", edits: []edit{{v020 + "metadata/annotations.yaml", "package.v1: widget-operator", "package.v1: gadget-operator"}}, code: 1,
			want: []string{`error: catalog/widget-operator/0.2.0/metadata/annotations.yaml: annotations[operators.operatorframework.io.bundle.package.v1]: the bundle says it is of package "gadget-operator"`}},
		{name: "deployment without containers", edits: []edit{{v020 + "manifests/widget-operator.clusterserviceversion.yaml", "containers:", "initContainers:"}}, code: 1,
			want: []string{"error: catalog/widget-operator/0.2.0/manifests/widget-operator.clusterserviceversion.yaml", "containers"}},
		{name: "unreadable version range", edits: []edit{{v020 + "metadata/dependencies.yaml", "", "dependencies:\n- type: olm.package\n  value: {packageName: gadget-operator, version: banana}\n"}}, code: 1,
			want: []string{`error: catalog/widget-operator/0.2.0/metadata/dependencies.yaml: bundle "widget-operator.v0.2.0": dependencies[0].value.version: invalid version range "banana"`}},
		{name: "CEL rule that does not compile", edits: []edit{{v020 + "metadata/dependencies.yaml", "", "dependencies:\n- type: olm.constraint\n  value:\n    cel: {rule: 'properties.exists(p, p.type == '}\n"}}, code: 1,
			want: []string{`error: catalog/widget-operator/0.2.0/metadata/dependencies.yaml: bundle "widget-operator.v0.2.0": dependencies[0]: its dependencies: convert olm.constraint to resolver predicate: ERROR: <input>:1:32: Syntax error`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quickstartWith(t, tt.edits...)
			code, out, errOut := runCLI(t, "catalog", "validate", "catalog")
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output does not contain %q:\n%s%s", w, out, errOut)
				}
			}
			if tt.code != 0 && strings.Contains(out, ": valid") {
				t.Errorf("a catalog that fails a render was called valid:\n%s", out)
			}
			if strings.Contains(errOut, "invalid catalog") {
				t.Errorf("a generic line stands before the reasons:\n%s", errOut)
			}
		})
	}
}

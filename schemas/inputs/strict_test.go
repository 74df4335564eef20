package inputs

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/diag"
)

// TestUnknownFields: an unknown field of a kind a render interprets is an error naming the
// file, the object and the field, with the field meant first; AllowUnknownFields (--strict=false)
// makes it a warning, unless Strict. Kinds passed through are not checked; a Namespace's unknown
// field stays a warning.
func TestUnknownFields(t *testing.T) {
	const sub = "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: s, namespace: ops}\nspec: {name: p, source: c, sourceNamespace: olm, installPlanAproval: Manual}\n"
	tests := []struct {
		name, doc string
		opts      LoadOptions
		severity  diag.Severity // "" for no problem
		want      string
	}{
		{name: "Subscription", doc: sub, severity: diag.Error,
			want: "a.yaml: Subscription/ops/s: spec.installPlanAproval: unknown field: did you mean spec.installPlanApproval?"},
		{name: "Subscription, --strict=false", doc: sub, opts: LoadOptions{AllowUnknownFields: true}, severity: diag.Warning,
			want: "a.yaml: Subscription/ops/s: spec.installPlanAproval: unknown field: did you mean spec.installPlanApproval? (the API server would drop it)"},
		{name: "Subscription, --strict=false and Strict", doc: sub, opts: LoadOptions{AllowUnknownFields: true, Strict: true}, severity: diag.Error,
			want: "spec.installPlanAproval: unknown field"},
		{name: "Subscription config", doc: strings.Replace(sub, "installPlanAproval: Manual", "config: {env: [{name: A, valu: b}]}", 1), severity: diag.Error,
			want: "spec.config.env[0].valu: unknown field: did you mean spec.config.env[0].value?"},
		{name: "OperatorGroup", doc: "apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: og, namespace: ops}\nspec: {targetNamespace: [ops]}\n", severity: diag.Error,
			want: "a.yaml: OperatorGroup/ops/og: spec.targetNamespace: unknown field: did you mean spec.targetNamespaces?"},
		{name: "CatalogSource", doc: "apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: c, namespace: olm}\nspec: {sourceType: grpc, priorty: 3}\n", severity: diag.Error,
			want: "a.yaml: CatalogSource/olm/c: spec.priorty: unknown field: did you mean spec.priority?"},
		{name: "OLMConfig", doc: "apiVersion: operators.coreos.com/v1\nkind: OLMConfig\nmetadata: {name: cluster}\nspec: {features: {disableCopiedCSV: true}}\n", severity: diag.Error,
			want: "a.yaml: OLMConfig/cluster: spec.features.disableCopiedCSV: unknown field: did you mean spec.features.disableCopiedCSVs?"},
		{name: "OperatorCondition", doc: "apiVersion: operators.coreos.com/v2\nkind: OperatorCondition\nmetadata: {name: w, namespace: ops}\nspec: {overides: []}\n", severity: diag.Error,
			want: "a.yaml: OperatorCondition/ops/w: spec.overides: unknown field: did you mean spec.overrides?"},
		{name: "Namespace", doc: "apiVersion: v1\nkind: Namespace\nmetadata: {name: ops, labelz: {}}\n", severity: diag.Warning,
			want: "a.yaml: Namespace/ops: metadata.labelz: unknown field: did you mean metadata.labels?"},
		{name: "a kind passed through", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ops}\ndat: {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, map[string]string{"a.yaml": tt.doc})
			tt.opts.Root = openRoot(t, dir)
			items, problems := readInput(tt.opts.Root, "a.yaml", nil)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			s := &Set{}
			var got diag.Problems
			for _, it := range items {
				s.add(it, tt.opts.unknownFields(), &got)
			}
			if tt.opts.Strict {
				got = promote(got)
			}
			if tt.severity == "" {
				if len(got) > 0 {
					t.Fatalf("problems %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != tt.severity || !strings.Contains(got[0].Error(), tt.want) {
				t.Fatalf("problems %v, want one %s containing %q", got, tt.severity, tt.want)
			}
		})
	}
}

// TestUnmatchedBinding: a binding for a CatalogSource no input declares and no Subscription
// names would be ignored: it is an error naming the flag as given and the CatalogSource meant.
func TestUnmatchedBinding(t *testing.T) {
	dir := write(t, map[string]string{"in/all.yaml": good})
	b, err := ParseBinding("olm/cta=" + filepath.Join(dir, "elsewhere"))
	if err != nil {
		t.Fatal(err)
	}
	var loaded []string
	_, err = Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir), Catalogs: []Binding{b}, LoadCatalog: fakeCatalogs(&loaded)})
	want := "CatalogSource/olm/cta: --catalog olm/cta=" + filepath.Join(dir, "elsewhere") + ": no CatalogSource olm/cta: did you mean olm/cat?"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "CatalogSources declared: olm/cat") {
		t.Fatalf("error %v, want %q", err, want)
	}
	// A binding a Subscription names stands for a CatalogSource the cluster has.
	sub := strings.Replace(good, "source: cat,", "source: other,", 1)
	dir = write(t, map[string]string{"in/all.yaml": sub})
	if b, err = ParseBinding("olm/other=" + filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir), Catalogs: []Binding{b}, LoadCatalog: fakeCatalogs(&loaded)}); err != nil {
		t.Fatal(err)
	}
}

// TestMissingCatalogPath: an annotation naming a path that does not exist is reported at the
// CatalogSource's annotation, with the snapshot path and the directory it most likely meant.
func TestMissingCatalogPath(t *testing.T) {
	dir := write(t, map[string]string{"in/all.yaml": strings.Replace(good, "../catalog", "../catalogs", 1), "catalog/.keep": ""})
	_, err := Load([]string{filepath.Join(dir, "in")}, LoadOptions{Root: openRoot(t, dir)})
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{
		"in/all.yaml#2: CatalogSource/olm/cat: metadata.annotations[olm-render.dev/catalog]: ",
		"/catalogs: cannot read catalog snapshot: no such file or directory: did you mean ",
		"/catalog? (the annotation's \"../catalogs\" is relative to the directory of the file declaring the CatalogSource)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%s\ndoes not contain\n%s", err, want)
		}
	}
}

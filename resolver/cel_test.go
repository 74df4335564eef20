package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/rootfs"
)

// bombCatalog is a catalog where bundle a.v1 carries a CEL constraint whose cost grows with the
// fourth power of a candidate's properties, and 200 bundles with 20 properties each.
func bombCatalog() *catalog.Catalog {
	const rule = `properties.exists(p, properties.exists(q, properties.exists(r, properties.exists(s, p.type + q.type + r.type + s.type == "none"))))`
	specs := []bundleSpec{bnd("a.v1", "1.0.0", "a", "stable", prop(catalog.TypeConstraint, fmt.Sprintf(`{"cel":{"rule":%q}}`, rule)))}
	for i := range 200 {
		pkg := fmt.Sprintf("p%03d", i)
		var opts []func(*bundleSpec)
		for j := range 20 {
			opts = append(opts, prop("x.label", fmt.Sprintf("v%d", j)))
		}
		specs = append(specs, bnd(pkg+".v1", "1.0.0", pkg, "stable", opts...))
	}
	c := buildCatalog(map[string]string{"a": "stable"}, specs...)
	c.Package("a").Bundles[0].Origin = diag.Origin{File: "catalog/a.yaml"}
	return c
}

// TestCELCostBomb: a constraint over the cost limit fails the resolution naming the bundle, its
// file and the rule; it does not quietly match nothing.
func TestCELCostBomb(t *testing.T) {
	set := scenarioSet(map[string]*catalog.Catalog{"cat": bombCatalog()}, nil, subSpec{name: "a", pkg: "a", channel: "stable"})
	_, err := Resolve(context.Background(), set, Options{})
	if err == nil {
		t.Fatal("the cost bomb resolved")
	}
	for _, want := range []string{`catalog/a.yaml: bundle "a.v1": properties.value.cel.rule: olm.constraint CEL rule`, "properties.exists(p, properties.exists(q", "costs more than the limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// BenchmarkCELCostBomb measures how fast the cost bomb against 200 bundles is refused.
func BenchmarkCELCostBomb(b *testing.B) {
	set := scenarioSet(map[string]*catalog.Catalog{"cat": bombCatalog()}, nil, subSpec{name: "a", pkg: "a", channel: "stable"})
	for b.Loop() {
		if _, err := Resolve(context.Background(), set, Options{}); err == nil {
			b.Fatal("the cost bomb resolved")
		}
	}
}

// FuzzCELConstraint resolves a Subscription whose bundle carries an arbitrary CEL constraint
// against bundles with arbitrary property values: no panic, and a result or an error in bounded
// time (the cost limits), never a hang.
func FuzzCELConstraint(f *testing.F) {
	f.Add(`properties.exists(p, p.type == "olm.package")`, `"v1"`)
	f.Add(`semverCompare(properties.filter(p, p.type == "olm.package")[0].value.version, "1.0.0") >= 0`, `{"a":[1,2,3]}`)
	f.Add(`properties.exists(p, properties.exists(q, p.type + q.type == "x"))`, `"x"`)
	f.Add(`size(properties) > 1 && properties[0].value.packageName.startsWith("p")`, `null`)
	f.Add(`1/0 == 1`, `1e400`)
	f.Fuzz(func(t *testing.T, rule, value string) {
		if !json.Valid([]byte(value)) {
			value = fmt.Sprintf("%q", value)
		}
		specs := []bundleSpec{bnd("a.v1", "1.0.0", "a", "stable", prop(catalog.TypeConstraint, map[string]any{"cel": map[string]string{"rule": rule}}))}
		for i := range 5 {
			pkg := fmt.Sprintf("p%d", i)
			specs = append(specs, bnd(pkg+".v1", "1.0.0", pkg, "stable", prop("x.label", json.RawMessage(value)), prop("x.other", i)))
		}
		set := scenarioSet(map[string]*catalog.Catalog{"cat": buildCatalog(map[string]string{"a": "stable"}, specs...)}, nil,
			subSpec{name: "a", pkg: "a", channel: "stable"})
		res, err := Resolve(context.Background(), set, Options{})
		if err == nil && res == nil {
			t.Fatal("no result and no error")
		}
	})
}

// TestLintSemverLiterals: a CEL rule calling semver_compare on a constant that is no version
// fails on every bundle, which OLM takes as no match; catalog validate reports it, naming the
// bundle, the dependencies file and the rule's field, and passes the rules that can match.
func TestLintSemverLiterals(t *testing.T) {
	tests := []struct {
		constraint, field string
	}{
		{`{cel: {rule: 'properties.exists(p, semver_compare(p.value.version, "v1.x.garbage") >= 0)'}}`, "dependencies[0].value.cel.rule"},
		{`{all: {constraints: [{gvk: {group: g, version: v1, kind: K}}, {cel: {rule: 'semver_compare("1.0.0", "latest") == 0'}}]}}`, "dependencies[0].value.all.constraints[1].cel.rule"},
		{`{cel: {rule: 'properties.exists(p, semver_compare(p.value.version, "1.2.0") >= 0)'}}`, ""},
		{`{cel: {rule: 'properties.exists(p, semver_compare(p.value.version, "v1.2") >= 0)'}}`, ""},
	}
	for _, tt := range tests {
		files := map[string][]byte{}
		err := fs.WalkDir(os.DirFS("../examples/quickstart/catalog"), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files[p], err = os.ReadFile(filepath.Join("../examples/quickstart/catalog", p))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		files["widget-operator/0.2.0/metadata/dependencies.yaml"] = []byte("dependencies:\n- type: olm.constraint\n  value: " + tt.constraint + "\n")
		fsys, err := rootfs.NewMap("catalog", files)
		if err != nil {
			t.Fatal(err)
		}
		c, err := catalog.LoadFS(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		got, err := CheckDependencies(c)
		if err != nil {
			t.Fatal(err)
		}
		if tt.field == "" {
			if len(got) > 0 {
				t.Errorf("%s: %v", tt.constraint, got)
			}
			continue
		}
		want := `catalog/widget-operator/0.2.0/metadata/dependencies.yaml: bundle "widget-operator.v0.2.0": ` + tt.field + `: semver_compare's argument`
		if len(got) != 1 || !got[0].IsError() || !strings.HasPrefix(got[0].Error(), want) {
			t.Errorf("%s: %v, want %s", tt.constraint, got, want)
		}
	}
}

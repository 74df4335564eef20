package resolver

import (
	"context"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
)

// TestInvalidBundle: a bundle its catalog read but cannot render (catalog.Bundle.Invalid) fails
// only the resolutions that choose it, declared or as a dependency.
func TestInvalidBundle(t *testing.T) {
	cat := buildCatalog(map[string]string{"a": "stable", "b": "stable"},
		bnd("a.v1", "1.0.0", "a", "stable"),
		bnd("a.v2", "2.0.0", "a", "stable", replaces("a.v1")),
		bnd("a.v3", "3.0.0", "a", "stable", replaces("a.v2"), requires(g, v, k)),
		bnd("b.v1", "1.0.0", "b", "stable", provides(g, v, k)),
	)
	for _, name := range [][2]string{{"a", "a.v1"}, {"b", "b.v1"}} {
		b := cat.Package(name[0]).Bundle(name[1])
		b.Invalid = diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: "catalog/" + b.Name + "/manifests/notes.yaml"}, Message: "invalid YAML"}}
	}
	tests := []struct {
		name string
		sub  subSpec
		err  []string // parts of the error; none: resolves
	}{
		{name: "not chosen", sub: subSpec{name: "a", pkg: "a", channel: "stable", start: "a.v2"}},
		{name: "chosen", sub: subSpec{name: "a", pkg: "a", channel: "stable", start: "a.v1"},
			err: []string{"Subscription/ns/a", "spec.name", "bundle a.v1", "cannot be rendered", "catalog/a.v1/manifests/notes.yaml: invalid YAML"}},
		{name: "a dependency chosen", sub: subSpec{name: "a", pkg: "a"},
			err: []string{"Subscription/a", "dependency", "bundle b.v1", "catalog/b.v1/manifests/notes.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := scenarioSet(map[string]*catalog.Catalog{"cat": cat}, nil, tt.sub)
			_, err := Resolve(context.Background(), set, Options{})
			if len(tt.err) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("resolved, want an error")
			}
			for _, part := range tt.err {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q lacks %q", err, part)
				}
			}
		})
	}
}

// TestBrokenBundle: a bundle directory its catalog could not load fails the Subscriptions of
// its package, unless its directory names a version older than the bundle chosen (a warning).
func TestBrokenBundle(t *testing.T) {
	version := func(s string) *semver.Version {
		v := semver.MustParse(s)
		return &v
	}
	tests := []struct {
		name    string
		broken  catalog.Broken
		err     string
		warning string
	}{
		{name: "older than the head", broken: catalog.Broken{Package: "a", Dir: "catalog/a/1.5.0", Version: version("1.5.0")},
			warning: "left out: its directory names version 1.5.0, older than the chosen a.v3"},
		{name: "newer than the head", broken: catalog.Broken{Package: "a", Dir: "catalog/a/4.0.0", Version: version("4.0.0")},
			err: "catalog/a/4.0.0: no manifests); OLM could choose it"},
		{name: "no version", broken: catalog.Broken{Package: "a", Dir: "catalog/a/latest"},
			err: "OLM could choose it"},
		{name: "another package", broken: catalog.Broken{Package: "z", Dir: "catalog/z/9.0.0", Version: version("9.0.0")}},
		{name: "a dependency's package", broken: catalog.Broken{Package: "b", Dir: "catalog/b/2.0.0", Version: version("2.0.0")},
			err: "dependency b-stable-cat-olm: package \"b\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := buildCatalog(map[string]string{"a": "stable", "b": "stable"},
				bnd("a.v1", "1.0.0", "a", "stable"),
				bnd("a.v2", "2.0.0", "a", "stable", replaces("a.v1")),
				bnd("a.v3", "3.0.0", "a", "stable", replaces("a.v2"), requires(g, v, k)),
				bnd("b.v1", "1.0.0", "b", "stable", provides(g, v, k)),
			)
			tt.broken.Problems = diag.Problems{{Severity: diag.Error, Origin: diag.Origin{File: tt.broken.Dir}, Message: "no manifests"}}
			cat.Broken = []catalog.Broken{tt.broken}
			set := scenarioSet(map[string]*catalog.Catalog{"cat": cat}, nil, subSpec{name: "a", pkg: "a"})
			res, err := Resolve(context.Background(), set, Options{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			found := tt.warning == ""
			for _, w := range res.Warnings {
				found = found || strings.Contains(w.Error(), tt.warning)
			}
			if !found {
				t.Errorf("no warning %q in %v", tt.warning, res.Warnings)
			}
		})
	}
}

package crdcompat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ruleCase compares two CRDs and lists the breaking changes expected (none for a pass case).
type ruleCase struct {
	name     string
	old, new *unstructured.Unstructured
	want     []Change
}

// brk builds an expected breaking change.
func brk(rule, version, path, msg string) Change {
	return Change{Rule: rule, Version: version, Path: path, Breaking: true, Message: msg}
}

func TestCompareRules(t *testing.T) {
	var cases []ruleCase
	for _, group := range [][]ruleCase{
		crdWideCases(), versionCases(), fieldCases(), enumCases(),
		upperBoundCases(), lowerBoundCases(), defaultCases(), legacyCases(), pathCases(),
	} {
		cases = append(cases, group...)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compare(tc.old, tc.new)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if diff := cmp.Diff(tc.want, Breaking(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("breaking changes (-want +got):\n%s", diff)
			}
		})
	}
}

func crdWideCases() []ruleCase {
	size := specOf("size", integer())
	return []ruleCase{
		{name: "scope/pass", old: newCRD(withVersion("v1", true, true, size), withScope("")),
			new: newCRD(withVersion("v1", true, true, size), withScope("Namespaced"))},
		{name: "scope/fail", old: single(size),
			new:  newCRD(withVersion("v1", true, true, size), withScope("Cluster")),
			want: []Change{brk("scope", "", "", `scope changed from "Namespaced" to "Cluster"`)}},
		{name: "stored-version-removed/pass",
			old: newCRD(withVersion("v1alpha1", true, true, size), withVersion("v1", true, false, size)),
			new: newCRD(withVersion("v1alpha1", true, false, size), withVersion("v1", true, true, size))},
		{name: "stored-version-removed/fail/storage",
			old:  newCRD(withVersion("v1alpha1", false, true, size), withVersion("v1", true, false, size)),
			new:  newCRD(withVersion("v1", true, true, size)),
			want: []Change{brk("stored-version-removed", "v1alpha1", "", `version "v1alpha1": stored version removed`)}},
		{name: "stored-version-removed/fail/status",
			old: newCRD(withVersion("v1alpha1", false, false, size), withVersion("v1", true, true, size),
				withStoredVersions("v1alpha1", "v1")),
			new:  newCRD(withVersion("v1", true, true, size)),
			want: []Change{brk("stored-version-removed", "v1alpha1", "", `version "v1alpha1": stored version removed`)}},
		// A stored version old itself does not define was not removed (found by FuzzCompare).
		{name: "stored-version-removed/pass/undefined",
			old: newCRD(withVersion("v1", true, true, size), withStoredVersions("v1", "v")),
			new: newCRD(withVersion("v1", true, true, size), withStoredVersions("v1", "v"))},
	}
}

func versionCases() []ruleCase {
	size := specOf("size", integer())
	return []ruleCase{
		{name: "served-version-removed/pass",
			old: newCRD(withVersion("v1alpha1", false, false, size), withVersion("v1", true, true, size)),
			new: newCRD(withVersion("v1", true, true, size), withVersion("v2", true, false, size))},
		{name: "served-version-removed/fail/removed",
			old:  newCRD(withVersion("v1beta1", true, false, size), withVersion("v1", true, true, size)),
			new:  newCRD(withVersion("v1", true, true, size)),
			want: []Change{brk("served-version-removed", "v1beta1", "", `version "v1beta1": served version removed`)}},
		{name: "served-version-removed/fail/unserved",
			old:  newCRD(withVersion("v1beta1", true, false, size), withVersion("v1", true, true, size)),
			new:  newCRD(withVersion("v1beta1", false, false, size), withVersion("v1", true, true, size)),
			want: []Change{brk("served-version-removed", "v1beta1", "", `version "v1beta1": no longer served`)}},
		{name: "served-and-stored-version-removed/fail",
			old: newCRD(withVersion("v1alpha1", true, true, size)),
			new: newCRD(withVersion("v1", true, true, size)),
			want: []Change{
				brk("served-version-removed", "v1alpha1", "", `version "v1alpha1": served version removed`),
				brk("stored-version-removed", "v1alpha1", "", `version "v1alpha1": stored version removed`),
			}},
	}
}

func fieldCases() []ruleCase {
	return []ruleCase{
		{name: "field-removed/pass", old: single(specOf("size", integer())),
			new: single(specOf("size", integer(), "name", str()))},
		{name: "field-removed/fail", old: single(specOf("size", integer(), "name", str())),
			new:  single(specOf("name", str())),
			want: []Change{brk("field-removed", "v1", "spec.size", "field spec.size: removed")}},
		{name: "type/pass", old: single(specOf("size", integer())),
			new: single(specOf("size", integer("description", "how many")))},
		{name: "type/fail", old: single(specOf("size", integer())), new: single(specOf("size", str())),
			want: []Change{brk("type", "v1", "spec.size", `field spec.size: type changed from "integer" to "string"`)}},
		{name: "required/pass",
			old: single(object(props("spec", object(props("size", integer()), "required", []string{"size"})))),
			new: single(specOf("size", integer()))},
		{name: "required/fail", old: single(specOf("size", integer())),
			new:  single(object(props("spec", object(props("size", integer()), "required", []string{"size"})))),
			want: []Change{brk("required", "v1", "spec.size", "field spec.size: newly required")}},
		{name: "preserve-unknown-fields/pass",
			old: single(specOf("extra", object(nil))),
			new: single(specOf("extra", object(nil, preserveUnknownFields, true)))},
		{name: "preserve-unknown-fields/fail",
			old: single(specOf("extra", object(nil, preserveUnknownFields, true))),
			new: single(specOf("extra", object(nil, preserveUnknownFields, false))),
			want: []Change{brk("preserve-unknown-fields", "v1", "spec.extra",
				"field spec.extra: x-kubernetes-preserve-unknown-fields changed from true to false")}},
	}
}

func enumCases() []ruleCase {
	mode := func(values ...string) *unstructured.Unstructured {
		if len(values) == 0 {
			return single(specOf("mode", str()))
		}
		return single(specOf("mode", str("enum", enum(values...))))
	}
	return []ruleCase{
		{name: "enum/pass/values-added", old: mode("a"), new: mode("a", "b")},
		{name: "enum/pass/enum-dropped", old: mode("a"), new: mode()},
		{name: "enum/fail/values-removed", old: mode("a", "b"), new: mode("a"),
			want: []Change{brk("enum", "v1", "spec.mode", `field spec.mode: enum values ["b"] removed`)}},
		{name: "enum/fail/enum-added", old: mode(), new: mode("b", "a"),
			want: []Change{brk("enum", "v1", "spec.mode", `field spec.mode: enum ["a", "b"] added where there was none`)}},
	}
}

// boundCase builds a pass and a fail case for a numeric keyword on the field spec.f.
func boundCase(rule, keyword string, newSchema func(kv ...any) map[string]any, ok, bad [2]int, msg string) []ruleCase {
	crd := func(v int) *unstructured.Unstructured { return single(specOf("f", newSchema(keyword, v))) }
	return []ruleCase{
		{name: rule + "/pass", old: crd(ok[0]), new: crd(ok[1])},
		{name: rule + "/fail", old: crd(bad[0]), new: crd(bad[1]),
			want: []Change{brk(rule, "v1", "spec.f", "field spec.f: "+msg)}},
	}
}

// arrayOf builds an array of strings with extra keywords.
func arrayOf(kv ...any) map[string]any { return array(str(), kv...) }

// objectOf builds an object with extra keywords.
func objectOf(kv ...any) map[string]any { return object(nil, kv...) }

func upperBoundCases() []ruleCase {
	var out []ruleCase
	out = append(out, boundCase("maximum", "maximum", integer, [2]int{5, 10}, [2]int{10, 5}, "maximum decreased from 10 to 5")...)
	out = append(out, boundCase("max-length", "maxLength", str, [2]int{5, 6}, [2]int{6, 5}, "maxLength decreased from 6 to 5")...)
	out = append(out, boundCase("max-items", "maxItems", arrayOf, [2]int{1, 3}, [2]int{3, 1}, "maxItems decreased from 3 to 1")...)
	out = append(out, boundCase("max-properties", "maxProperties", objectOf, [2]int{2, 9}, [2]int{9, 2}, "maxProperties decreased from 9 to 2")...)
	out = append(out, ruleCase{name: "maximum/fail/newly-set",
		old: single(specOf("f", integer())), new: single(specOf("f", integer("maximum", 100))),
		want: []Change{brk("maximum", "v1", "spec.f", "field spec.f: maximum 100 set where there was no limit")}})
	return append(out, ruleCase{name: "maximum/pass/dropped",
		old: single(specOf("f", integer("maximum", 100))), new: single(specOf("f", integer()))})
}

func lowerBoundCases() []ruleCase {
	var out []ruleCase
	out = append(out, boundCase("minimum", "minimum", integer, [2]int{5, 1}, [2]int{1, 5}, "minimum increased from 1 to 5")...)
	out = append(out, boundCase("min-length", "minLength", str, [2]int{2, 0}, [2]int{0, 2}, "minLength increased from 0 to 2")...)
	out = append(out, boundCase("min-items", "minItems", arrayOf, [2]int{3, 1}, [2]int{1, 3}, "minItems increased from 1 to 3")...)
	out = append(out, boundCase("min-properties", "minProperties", objectOf, [2]int{4, 2}, [2]int{2, 4}, "minProperties increased from 2 to 4")...)
	return append(out, ruleCase{name: "min-length/fail/newly-set",
		old: single(specOf("f", str())), new: single(specOf("f", str("minLength", 1))),
		want: []Change{brk("min-length", "v1", "spec.f", "field spec.f: minLength 1 set where there was no limit")}})
}

func defaultCases() []ruleCase {
	withDefault := func(v any) *unstructured.Unstructured {
		if v == nil {
			return single(specOf("size", integer()))
		}
		return single(specOf("size", integer("default", v)))
	}
	return []ruleCase{
		{name: "default/pass", old: withDefault(3),
			new: single(specOf("size", integer("default", 3, "description", "replicas")))},
		{name: "default/fail/changed", old: withDefault(3), new: withDefault(4),
			want: []Change{brk("default", "v1", "spec.size", "field spec.size: default changed from 3 to 4")}},
		{name: "default/fail/added", old: withDefault(nil), new: withDefault(3),
			want: []Change{brk("default", "v1", "spec.size", "field spec.size: default 3 added")}},
		{name: "default/fail/removed", old: withDefault(3), new: withDefault(nil),
			want: []Change{brk("default", "v1", "spec.size", "field spec.size: default 3 removed")}},
	}
}

func legacyCases() []ruleCase {
	legacy := func(root map[string]any) *unstructured.Unstructured {
		return newCRD(withLegacy("v1beta1", root))
	}
	return []ruleCase{
		{name: "v1beta1/pass", old: legacy(specOf("size", integer())),
			new: legacy(specOf("size", integer(), "name", str()))},
		{name: "v1beta1/pass/to-v1", old: legacy(specOf("size", integer())),
			new: newCRD(withVersion("v1beta1", true, true, specOf("size", integer())))},
		{name: "v1beta1/fail", old: legacy(specOf("size", integer())), new: legacy(specOf("size", str())),
			want: []Change{brk("type", "v1beta1", "spec.size", `field spec.size: type changed from "integer" to "string"`)}},
		{name: "v1beta1/fail/versions-share-top-level-schema",
			old: newCRD(withLegacy("v1", specOf("size", integer())),
				withVersion("v1", true, true, nil), withVersion("v2", true, false, nil)),
			new: newCRD(withLegacy("v1", specOf("size", str())),
				withVersion("v1", true, true, nil), withVersion("v2", true, false, nil)),
			want: []Change{
				brk("type", "v1", "spec.size", `field spec.size: type changed from "integer" to "string"`),
				brk("type", "v2", "spec.size", `field spec.size: type changed from "integer" to "string"`),
			}},
	}
}

func pathCases() []ruleCase {
	items := func(fields ...any) *unstructured.Unstructured {
		return single(specOf("items", array(object(props(fields...)))))
	}
	labels := func(values map[string]any) *unstructured.Unstructured {
		return single(specOf("labels", mapOf(values)))
	}
	return []ruleCase{
		{name: "path/items", old: items("name", str(), "port", integer()), new: items("port", integer()),
			want: []Change{brk("field-removed", "v1", "spec.items[*].name", "field spec.items[*].name: removed")}},
		{name: "path/additional-properties", old: labels(str()), new: labels(integer()),
			want: []Change{brk("type", "v1", "spec.labels[key]", `field spec.labels[key]: type changed from "string" to "integer"`)}},
		{name: "path/quoted-name", old: single(specOf("a.b", str())), new: single(specOf()),
			want: []Change{brk("field-removed", "v1", `spec["a.b"]`, `field spec["a.b"]: removed`)}},
		{name: "path/root", old: single(specOf()), new: single(object(props("spec", object(props())), "required", []string{"spec"})),
			want: []Change{brk("required", "v1", "spec", "field spec: newly required")}},
		{name: "path/root-type", old: single(specOf()), new: single(node("", "properties", props("spec", object(props())))),
			want: []Change{brk("type", "v1", "", `schema root: type changed from "object" to ""`)}},
	}
}

func TestCompareReportsCompatibleChanges(t *testing.T) {
	before := newCRD(withVersion("v1", true, true, specOf("mode", str("enum", enum("a")), "size", integer("maximum", 5))))
	after := newCRD(
		withVersion("v1", true, true, specOf("mode", str("enum", enum("a", "b"), "pattern", "^[ab]$"),
			"name", str(), "size", integer("maximum", 10))),
		withVersion("v2", true, false, nil),
	)
	want := []Change{
		{Rule: "enum", Version: "v1", Path: "spec.mode", Message: `field spec.mode: enum values ["b"] added`},
		{Rule: "unhandled", Version: "v1", Path: "spec.mode", Message: `field spec.mode: keyword "pattern" changed (not checked for compatibility)`},
		{Rule: "field-added", Version: "v1", Path: "spec.name", Message: "field spec.name: added"},
		{Rule: "maximum", Version: "v1", Path: "spec.size", Message: "field spec.size: maximum increased from 5 to 10"},
		{Rule: "version-added", Version: "v2", Message: `version "v2": version added`},
	}
	got, err := Compare(before, after)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestCompareIdentical(t *testing.T) {
	crd := single(specOf("size", integer("maximum", 3, "default", 1), "mode", str("enum", enum("a"))))
	got, err := Compare(crd, crd)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	if len(got) != 0 {
		t.Errorf("Compare(x, x) = %v, want no changes", got)
	}
}

func TestBreaking(t *testing.T) {
	in := []Change{{Rule: "a", Breaking: true}, {Rule: "b"}, {Rule: "c", Breaking: true}}
	want := []Change{{Rule: "a", Breaking: true}, {Rule: "c", Breaking: true}}
	if diff := cmp.Diff(want, Breaking(in)); diff != "" {
		t.Errorf("Breaking (-want +got):\n%s", diff)
	}
	if got := Breaking([]Change{{Rule: "b"}}); got != nil {
		t.Errorf("Breaking(no breaking) = %v, want nil", got)
	}
}

// errorCase is a broken CRD pair and a substring the error must hold.
type errorCase struct {
	name     string
	old, new *unstructured.Unstructured
	want     string
}

func TestCompareErrors(t *testing.T) {
	for _, tc := range append(crdErrorCases(), schemaErrorCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compare(tc.old, tc.new)
			if err == nil {
				t.Fatalf("Compare = %v, want an error holding %q", got, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not hold %q", err, tc.want)
			}
		})
	}
}

func crdErrorCases() []errorCase {
	ok := single(specOf("size", integer()))
	broken := func(opts ...crdOption) *unstructured.Unstructured { return newCRD(opts...) }
	return []errorCase{
		{name: "nil", old: nil, new: ok, want: "old crd: crd is nil"},
		{name: "no spec", old: ok, new: &unstructured.Unstructured{Object: map[string]any{"kind": crdKind}}, want: "new crd: spec: missing"},
		{name: "spec not a map", old: &unstructured.Unstructured{Object: map[string]any{"spec": "x"}}, new: ok, want: "old crd: spec: expected a map, got string"},
		{name: "wrong kind", old: ok, new: &unstructured.Unstructured{Object: map[string]any{"kind": "ConfigMap"}}, want: `kind: "ConfigMap" is not a CustomResourceDefinition`},
		{name: "versions not a list", old: ok, new: broken(withSpec("versions", "v1")), want: "new crd: spec.versions: expected a list, got string"},
		{name: "no versions", old: ok, new: broken(), want: "spec.versions: missing or empty, and no spec.version"},
		{name: "version not a map", old: ok, new: broken(withSpec("versions", []any{"v1"})), want: "spec.versions[0]: expected a map, got string"},
		{name: "version without name", old: ok, new: broken(withSpec("versions", []any{map[string]any{"served": true}})), want: "spec.versions[0].name: missing"},
		{name: "served not a bool", old: ok, new: broken(withSpec("versions", []any{map[string]any{"name": "v1", "served": "yes"}})), want: "spec.versions[0].served: expected a boolean, got string"},
		{name: "duplicate version", old: ok, new: broken(withVersion("v1", true, true, nil), withVersion("v1", true, false, nil)), want: `spec.versions[1].name: duplicate version "v1"`},
		{name: "scope not a string", old: ok, new: newCRD(withVersion("v1", true, true, nil), withSpec("scope", int64(1))), want: "spec.scope: expected a string, got int64"},
		{name: "schema not a map", old: ok, new: broken(withSpec("versions", []any{map[string]any{"name": "v1", "schema": map[string]any{"openAPIV3Schema": []any{}}}})), want: "spec.versions[0].schema.openAPIV3Schema: expected a map, got []interface {}"},
		{name: "stored versions not strings", old: newCRD(withVersion("v1", true, true, nil), func(obj, _ map[string]any) { obj["status"] = map[string]any{"storedVersions": []any{int64(1)}} }), new: ok, want: "status.storedVersions[0]: expected a string, got int64"},
	}
}

func schemaErrorCases() []errorCase {
	ok := single(specOf("size", integer()))
	return []errorCase{
		{name: "properties not a map", old: ok, new: single(object(props("spec", node("object", "properties", "x")))), want: `version "v1": field spec: properties: expected a map, got string`},
		{name: "property not a map", old: ok, new: single(specOf("size", "integer")), want: `version "v1": field spec: properties.size: expected a map, got string`},
		{name: "maximum not a number", old: ok, new: single(specOf("size", integer("maximum", "ten"))), want: `version "v1": field spec.size: maximum: expected a number, got string`},
		{name: "type not a string", old: single(specOf("size", node("", "type", int64(1)))), new: ok, want: "field spec.size: type: expected a string, got int64"},
		{name: "enum not a list", old: ok, new: single(specOf("size", integer("enum", "a"))), want: "field spec.size: enum: expected a list, got string"},
		{name: "required not strings", old: ok, new: single(object(props("spec", object(nil, "required", []any{int64(1)})))), want: "field spec: required[0]: expected a string, got int64"},
		{name: "items wrong type", old: single(specOf("l", array(str()))), new: single(specOf("l", node("array", "items", "x"))), want: "field spec.l: items: expected a map or a list, got string"},
		{name: "additionalProperties wrong type", old: single(specOf("m", mapOf(str()))), new: single(specOf("m", mapOf("x"))), want: "field spec.m: additionalProperties: expected a map or a boolean, got string"},
		{name: "too deep", old: single(nested(70)), new: single(nested(70)), want: "nested deeper than 64 levels"},
	}
}

func TestCompareDepthLimit(t *testing.T) {
	crd := single(nested(maxDepth))
	if _, err := Compare(crd, crd); err != nil {
		t.Errorf("Compare at depth %d: %v", maxDepth, err)
	}
}

// crdOption edits a CRD under construction.
type crdOption func(obj, spec map[string]any)

// newCRD builds a namespaced v1 CRD with no versions, then applies opts.
func newCRD(opts ...crdOption) *unstructured.Unstructured {
	spec := map[string]any{
		"group": "example.com",
		"scope": "Namespaced",
		"names": map[string]any{"kind": "Widget", "plural": "widgets"},
	}
	obj := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.example.com"},
		"spec":       spec,
	}
	for _, opt := range opts {
		opt(obj, spec)
	}
	return &unstructured.Unstructured{Object: obj}
}

// withVersion appends a version; a nil root leaves it without a schema.
func withVersion(name string, served, storage bool, root map[string]any) crdOption {
	return func(_, spec map[string]any) {
		v := map[string]any{"name": name, "served": served, "storage": storage}
		if root != nil {
			v["schema"] = map[string]any{"openAPIV3Schema": root}
		}
		list, _ := spec["versions"].([]any)
		spec["versions"] = append(list, v)
	}
}

// withScope sets spec.scope; "" removes it.
func withScope(scope string) crdOption {
	return func(_, spec map[string]any) {
		if scope == "" {
			delete(spec, "scope")
			return
		}
		spec["scope"] = scope
	}
}

// withStoredVersions sets status.storedVersions.
func withStoredVersions(names ...string) crdOption {
	return func(obj, _ map[string]any) {
		list := make([]any, 0, len(names))
		for _, n := range names {
			list = append(list, n)
		}
		obj["status"] = map[string]any{"storedVersions": list}
	}
}

// withLegacy makes a v1beta1 CRD with a single spec.version and a top-level schema.
func withLegacy(version string, root map[string]any) crdOption {
	return func(obj, spec map[string]any) {
		obj["apiVersion"] = "apiextensions.k8s.io/v1beta1"
		spec["version"] = version
		spec["validation"] = map[string]any{"openAPIV3Schema": root}
	}
}

// withSpec sets a top-level spec field to v (for malformed-input tests).
func withSpec(key string, v any) crdOption {
	return func(_, spec map[string]any) { spec[key] = v }
}

// single builds a CRD whose only version, v1, is served and stored with this root schema.
func single(root map[string]any) *unstructured.Unstructured {
	return newCRD(withVersion("v1", true, true, root))
}

// specOf builds a root schema whose spec object has the given name/schema pairs.
func specOf(fields ...any) map[string]any {
	return object(props("spec", object(props(fields...))))
}

// node builds a schema of the given type ("" for none) with extra keyword/value pairs.
func node(typ string, kv ...any) map[string]any {
	m := map[string]any{}
	if typ != "" {
		m["type"] = typ
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = jsonValue(kv[i+1])
	}
	return m
}

// jsonValue turns Go ints into int64, as JSON decoding into unstructured does.
func jsonValue(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []string:
		out := make([]any, 0, len(x))
		for _, s := range x {
			out = append(out, s)
		}
		return out
	default:
		return v
	}
}

// object builds an object schema with these properties.
func object(properties map[string]any, kv ...any) map[string]any {
	m := node("object", kv...)
	if properties != nil {
		m["properties"] = properties
	}
	return m
}

// props builds a properties map from name/schema pairs.
func props(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// str builds a string schema.
func str(kv ...any) map[string]any { return node("string", kv...) }

// integer builds an integer schema.
func integer(kv ...any) map[string]any { return node("integer", kv...) }

// array builds an array schema of items.
func array(items map[string]any, kv ...any) map[string]any {
	m := node("array", kv...)
	m["items"] = items
	return m
}

// mapOf builds an object schema whose values follow the given schema.
func mapOf(values any, kv ...any) map[string]any {
	m := node("object", kv...)
	m["additionalProperties"] = values
	return m
}

// enum builds the enum keyword value from strings.
func enum(values ...string) []any {
	out := make([]any, 0, len(values))
	for _, v := range values {
		out = append(out, v)
	}
	return out
}

// nested builds a root schema with depth levels of objects named "a".
func nested(depth int) map[string]any {
	root := str()
	for range depth {
		root = object(props("a", root))
	}
	return root
}

package yamlkeys

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestInspect: only a key written twice in one mapping is a repeat; a key overriding a merged
// one after << is none; a key written before a merge that sets it too is reported apart.
func TestInspect(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []Finding
	}{
		{name: "explicit key after a merge overrides it", doc: "base: &b {a: 1, d: m}\nx:\n  <<: *b\n  a: 2\n"},
		{name: "tagged merge key, as clickhouse writes it", doc: "stop: &TypeStringBool\n  description: stop\n  type: string\nsuspend:\n  !!merge <<: *TypeStringBool\n  description: suspend\n"},
		{name: "merges of a sequence overlap", doc: "b1: &b1 {a: 1}\nb2: &b2 {a: 2, c: 3}\nx:\n  <<: [*b1, *b2]\n"},
		{name: "quoted << is a plain key", doc: "x:\n  '<<': {a: 1}\n  a: 2\n"},
		{name: "repeated key", doc: "spec:\n  channel: stable\n  channel: fast\n",
			want: []Finding{{Path: "spec.channel", Line: 3, Other: 2}}},
		{name: "repeated key with the same value", doc: "spec:\n  channel: stable\n  channel: stable\n",
			want: []Finding{{Path: "spec.channel", Line: 3, Other: 2, Same: true}}},
		{name: "repeated key after a merge", doc: "base: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n  a: 3\n",
			want: []Finding{{Path: "x.a", Line: 5, Other: 4}}},
		{name: "key before the merge that sets it", doc: "base: &b {a: 1, d: m}\nx:\n  a: 2\n  <<: *b\n",
			want: []Finding{{Path: "x.a", Line: 3, Other: 4, MergedOver: true}}},
		{name: "key before a merge that sets it to the same value", doc: "base: &b {a: 1, d: m}\nx:\n  a: 1\n  <<: *b\n"},
		{name: "key before a nested merge", doc: "base: &b {a: 1}\nmid: &m {<<: *b, c: 2}\nx:\n  a: 2\n  <<: *m\n",
			want: []Finding{{Path: "x.a", Line: 4, Other: 5, MergedOver: true}}},
		{name: "two merge keys", doc: "base: &b {a: 1}\nx:\n  <<: *b\n  <<: {a: 5}\n",
			want: []Finding{{Path: "x[<<]", Line: 4, Other: 3}}},
		{name: "repeat in an anchored mapping is reported once", doc: "base: &b\n  a: 1\n  a: 2\nx: *b\ny: {<<: *b}\n",
			want: []Finding{{Path: "base.a", Line: 3, Other: 2}}},
		{name: "annotation key", doc: "metadata:\n  annotations:\n    olm.skipRange: '<1.0.0'\n    olm.skipRange: '<2.0.0'\n",
			want: []Finding{{Path: "metadata.annotations[olm.skipRange]", Line: 4, Other: 3}}},
		{name: "in a list", doc: "items:\n- a: 1\n  a: 2\n",
			want: []Finding{{Path: "items[0].a", Line: 3, Other: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Inspect([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Findings); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInspectAgreesWithDecoders: where Inspect finds nothing, go-yaml v2's strict mode (which
// reports merge overrides as repeats) may still fail, but the non-strict decoding OLM uses holds
// the explicit key's value, as YAML 1.1 says.
func TestInspectAgreesWithDecoders(t *testing.T) {
	doc := "stop: &s\n  description: stop\n  type: string\nsuspend:\n  !!merge <<: *s\n  description: suspend\n"
	if r, err := Inspect([]byte(doc)); err != nil || len(r.Findings) != 0 {
		t.Fatalf("Inspect = %v, %v", r, err)
	}
	if err := yaml.UnmarshalStrict([]byte(doc), new(map[string]any)); err == nil {
		t.Fatal("the strict decoder accepts the override; this test no longer shows why Inspect is needed")
	}
	var got struct {
		Suspend struct{ Description, Type string }
	}
	if err := yaml.Unmarshal([]byte(doc), &got); err != nil {
		t.Fatal(err)
	}
	if got.Suspend.Description != "suspend" || got.Suspend.Type != "string" {
		t.Errorf("suspend = %+v, want its own description and the merged type", got.Suspend)
	}
}

// TestInspectObject: the object's identity is read for messages.
func TestInspectObject(t *testing.T) {
	r, err := Inspect([]byte("apiVersion: v1\nkind: Subscription\nmetadata:\n  name: etcd\n  namespace: ops\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != "Subscription" || r.Namespace != "ops" || r.Name != "etcd" {
		t.Errorf("object %s/%s/%s", r.Kind, r.Namespace, r.Name)
	}
}

func TestJoin(t *testing.T) {
	for _, tt := range []struct{ at, key, want string }{
		{"", "spec", "spec"},
		{"spec", "channel", "spec.channel"},
		{"metadata.annotations", "olm-render.dev/catalog", "metadata.annotations[olm-render.dev/catalog]"},
		{"x", "<<", "x[<<]"},
	} {
		if got := Join(tt.at, tt.key); got != tt.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tt.at, tt.key, got, tt.want)
		}
	}
}

package emit

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestContentKeyDistinguishes: values that differ in type, nesting, order of list elements or
// the split between key and value have different keys; the same map built in another order has
// the same key.
func TestContentKeyDistinguishes(t *testing.T) {
	values := []map[string]any{
		{"a": int64(1)}, {"a": 1.0}, {"a": "1"}, {"a": true}, {"a": false}, {"a": nil},
		{"a": []any{"1"}}, {"a": map[string]any{"1": nil}},
		{"ab": "c"}, {"a": "bc"}, {"a": "b", "c": ""}, {"a": "b\x00c"},
		{"a": []any{"x", "y"}}, {"a": []any{"y", "x"}}, {"a": []any{[]any{"x"}, "y"}}, {"a": []any{}},
		{"a": map[string]any{}}, {}, {"a": ""}, {"": "a"},
	}
	seen := map[[32]byte]int{}
	for i, v := range values {
		key, ok := contentKey(v)
		if !ok {
			t.Fatalf("%#v: no key", v)
		}
		if j, dup := seen[key]; dup {
			t.Errorf("%#v and %#v share a key", values[j], v)
		}
		seen[key] = i
	}
	a := map[string]any{}
	b := map[string]any{}
	for _, k := range []string{"x", "y", "z", "w"} {
		a[k] = k
	}
	for _, k := range []string{"w", "z", "y", "x"} {
		b[k] = k
	}
	ka, _ := contentKey(a)
	kb, _ := contentKey(b)
	if ka != kb {
		t.Error("the same map has two keys")
	}
	if _, ok := contentKey(map[string]any{"a": []string{"not unstructured"}}); ok {
		t.Error("a []string got a key")
	}
}

// TestMemoMarshal: the memo returns what Marshal returns, for objects seen before or not, of
// types it knows or not.
func TestMemoMarshal(t *testing.T) {
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"n": "1"}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"n": int64(1)}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"n": 1.5}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "b"}, "data": map[string]any{"n": []string{"x"}}}},
	}
	memo := &Memo{}
	for round := range 2 {
		for _, u := range objs {
			got, err := memo.Marshal(u)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Marshal(u)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("round %d, %v: memo wrote\n%s\nwant\n%s", round, u.Object, got, want)
			}
		}
	}
}

package crdcompat

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// FuzzCompare decodes two YAML documents into CRDs and compares them: Compare must never
// panic, and when it succeeds its output must be sorted, a CRD compared with itself must show
// no change, and Breaking must keep only breaking changes.
func FuzzCompare(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, okOld := decodeFuzz(a)
		new, okNew := decodeFuzz(b)
		if !okOld || !okNew {
			return
		}
		changes, err := Compare(old, new)
		if err != nil {
			return
		}
		checkFuzzOutput(t, changes)
		if same, err := Compare(old, old); err == nil && len(same) != 0 {
			t.Errorf("Compare(old, old) = %v, want no changes", same)
		}
	})
}

// checkFuzzOutput checks the invariants of a successful Compare.
func checkFuzzOutput(t *testing.T, changes []Change) {
	t.Helper()
	if !slices.IsSortedFunc(changes, changeOrder) {
		t.Errorf("output not sorted: %v", changes)
	}
	for _, c := range Breaking(changes) {
		if !c.Breaking {
			t.Errorf("Breaking kept a compatible change: %v", c)
		}
	}
}

// decodeFuzz decodes YAML into an unstructured object; ok is false when it is not YAML.
func decodeFuzz(data []byte) (*unstructured.Unstructured, bool) {
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, false
	}
	return &unstructured.Unstructured{Object: obj}, true
}

// fuzzSeeds returns pairs of YAML documents: the rule test cases, and a few malformed ones.
func fuzzSeeds(f *testing.F) [][2][]byte {
	var seeds [][2][]byte
	for _, group := range [][]ruleCase{crdWideCases(), fieldCases(), enumCases(), legacyCases(), pathCases()} {
		for _, tc := range group {
			seeds = append(seeds, [2][]byte{marshalSeed(f, tc.old), marshalSeed(f, tc.new)})
		}
	}
	crd := marshalSeed(f, single(specOf("size", integer("maximum", 3), "labels", mapOf(true))))
	for _, broken := range []string{
		"", "null", "[]", "spec: 1", "spec:\n  versions: v1", "kind: x\nspec: {}",
		"spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties: 3",
		"spec:\n  version: v1\n  validation:\n    openAPIV3Schema:\n      items: [1]",
	} {
		seeds = append(seeds, [2][]byte{crd, []byte(broken)}, [2][]byte{[]byte(broken), crd})
	}
	return seeds
}

// marshalSeed renders a CRD as YAML.
func marshalSeed(f *testing.F, crd *unstructured.Unstructured) []byte {
	f.Helper()
	data, err := yaml.Marshal(crd.Object)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

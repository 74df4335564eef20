package permissions

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Seeds are kept small, since the fuzzer minimizes every new interesting input at a cost
// quadratic in its length; fuzzObjects defaults apiVersion so that seeds can leave it out.
const (
	// seedRole is a Role and its RoleBinding, with a sensitive rule.
	seedRole = `{kind: Role, metadata: {name: r, namespace: n}, rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]}
---
{kind: RoleBinding, metadata: {name: b, namespace: n}, roleRef: {kind: Role, name: r}, subjects: [{kind: ServiceAccount, name: s}]}`
	// seedCluster is seedRole made cluster-wide with wildcards.
	seedCluster = `{kind: ClusterRole, metadata: {name: c}, rules: [{apiGroups: ["*"], resources: ["*/x"], resourceNames: [a], verbs: ["*"]}]}
---
{kind: ClusterRoleBinding, metadata: {name: b}, roleRef: {kind: ClusterRole, name: c}, subjects: [{kind: ServiceAccount, name: s, namespace: n}]}`
	// seedAggregated is a bound aggregated ClusterRole with a non-resource rule, and a binding
	// to a missing role.
	seedAggregated = `{kind: ClusterRole, metadata: {name: a, labels: {l: x}}, aggregationRule: {clusterRoleSelectors: [{matchLabels: {l: x}}]}, rules: [{nonResourceURLs: [/a*], verbs: [get]}]}
---
{kind: ClusterRoleBinding, metadata: {name: b}, roleRef: {kind: ClusterRole, name: a}, subjects: [{kind: Group, name: g}]}
---
{kind: RoleBinding, metadata: {name: m, namespace: n}, roleRef: {kind: ClusterRole, name: v}, subjects: [{kind: User, name: u}]}`
)

// fuzzObjects decodes data, giving objects without an apiVersion the RBAC one.
func fuzzObjects(data []byte) ([]*unstructured.Unstructured, error) {
	objs, err := decodeYAML(data)
	for _, u := range objs {
		if _, ok := u.Object["apiVersion"]; !ok {
			u.Object["apiVersion"] = rbacAPIVersion
		}
	}
	return objs, err
}

func FuzzCompare(f *testing.F) {
	f.Add([]byte(seedRole), []byte(seedCluster))
	f.Add([]byte(seedCluster), []byte(seedAggregated))
	f.Add([]byte(""), []byte("{kind: Role, rules: 3}"))
	f.Fuzz(func(t *testing.T, before, after []byte) {
		if len(before)+len(after) > 1<<14 {
			t.Skip("input too large")
		}
		b, errB := fuzzObjects(before)
		a, errA := fuzzObjects(after)
		if errB != nil || errA != nil {
			t.Skip("not YAML objects")
		}
		changes, err := Compare(b, a)
		if err != nil {
			return
		}
		checkChanges(t, changes)
		_ = Grew(changes)
		if lines := Summary(changes); len(lines) != len(changes) {
			t.Fatalf("Summary returned %d lines for %d changes", len(lines), len(changes))
		}
		if same, err := Compare(a, a); err != nil || len(same) != 0 {
			t.Fatalf("Compare(after, after) = %v, %v; want no change", same, err)
		}
	})
}

// checkChanges checks the invariants of Compare's result.
func checkChanges(t *testing.T, changes []Change) {
	t.Helper()
	for _, c := range changes {
		if len(c.Grants) == 0 {
			t.Fatalf("change without grants: %+v", c)
		}
		if !slices.IsSortedFunc(c.Grants, compareGrants) {
			t.Fatalf("grants not sorted: %+v", c)
		}
		if c.Kind != Added && c.Kind != Removed && c.Kind != Widened {
			t.Fatalf("unknown kind: %+v", c)
		}
	}
}

package rbac

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type perms = []v1alpha1.StrategyDeploymentPermissions

// TestCoverage exercises the offline permission check both ways: the CSV's namespaced rules are
// met (nothing lifted or copied) only when its clusterPermissions grant them to the same
// ServiceAccount.
func TestCoverage(t *testing.T) {
	named := rbacv1.PolicyRule{Verbs: strs("get"), APIGroups: strs(""), Resources: strs("configmaps"), ResourceNames: strs("lock")}
	urls := func(u ...string) rbacv1.PolicyRule { return rbacv1.PolicyRule{Verbs: strs("get"), NonResourceURLs: u} }
	tests := []struct {
		name     string
		perms    perms
		cluster  perms
		wantLift bool
	}{
		{name: "no cluster permissions", perms: perms{perm("sa", getConfigMaps)}, wantLift: true},
		{
			name:    "identical cluster rule, same account",
			perms:   perms{perm("sa", getConfigMaps)},
			cluster: perms{perm("sa", getConfigMaps)},
		},
		{
			name:     "identical cluster rule, other account",
			perms:    perms{perm("sa", getConfigMaps)},
			cluster:  perms{perm("other", getConfigMaps)},
			wantLift: true,
		},
		{
			name:    "wildcards everywhere",
			perms:   perms{perm("sa", getConfigMaps, rule(strs("list", "watch"), strs("apps"), strs("deployments", "pods/log")))},
			cluster: perms{perm("sa", rule(strs("*"), strs("*"), strs("*")))},
		},
		{
			name:     "wildcard verb but other group",
			perms:    perms{perm("sa", rule(strs("get"), strs("apps"), strs("deployments")))},
			cluster:  perms{perm("sa", rule(strs("*"), strs(""), strs("*")))},
			wantLift: true,
		},
		{
			name:     "one verb missing",
			perms:    perms{perm("sa", rule(strs("get", "delete"), strs(""), strs("configmaps")))},
			cluster:  perms{perm("sa", rule(strs("get", "list"), strs(""), strs("configmaps")))},
			wantLift: true,
		},
		{
			name:    "rule split across two cluster entries",
			perms:   perms{perm("sa", rule(strs("get", "delete"), strs("", "apps"), strs("configmaps")))},
			cluster: perms{perm("sa", rule(strs("get", "delete"), strs(""), strs("configmaps"))), perm("sa", rule(strs("*"), strs("apps"), strs("*")))},
		},
		{
			name:    "named request covered by unnamed rule",
			perms:   perms{perm("sa", named)},
			cluster: perms{perm("sa", getConfigMaps)},
		},
		{
			name:     "unnamed request not covered by named rule",
			perms:    perms{perm("sa", getConfigMaps)},
			cluster:  perms{perm("sa", named)},
			wantLift: true,
		},
		{
			name:     "*/status does not cover a subresource",
			perms:    perms{perm("sa", rule(strs("get"), strs(""), strs("pods/status")))},
			cluster:  perms{perm("sa", rule(strs("get"), strs(""), strs("*/status")))},
			wantLift: true,
		},
		{
			name:    "non-resource URL by prefix",
			perms:   perms{perm("sa", urls("/metrics", "/healthz/ready"))},
			cluster: perms{perm("sa", urls("/metrics"), urls("/healthz/*"))},
		},
		{
			name:     "non-resource URL not covered by resource rule",
			perms:    perms{perm("sa", urls("/metrics"))},
			cluster:  perms{perm("sa", rule(strs("*"), strs("*"), strs("*")))},
			wantLift: true,
		},
		{
			name:     "rule without apiGroups covers nothing, not even itself",
			perms:    perms{perm("sa", rule(strs("get"), nil, strs("configmaps")))},
			cluster:  perms{perm("sa", rule(strs("get"), nil, strs("configmaps")))},
			wantLift: true,
		},
		{
			name:     "invalid rule without verbs: OLM errors, nothing lifted",
			perms:    perms{perm("sa", rule(nil, strs(""), strs("configmaps")))},
			wantLift: false,
		},
		{
			name:     "invalid rule mixing resources and URLs: nothing lifted",
			perms:    perms{perm("sa", rbacv1.PolicyRule{Verbs: strs("get"), Resources: strs("pods"), NonResourceURLs: strs("/x")})},
			wantLift: false,
		},
		{
			name:     "no namespaced permissions: nothing to lift",
			cluster:  perms{perm("sa", getConfigMaps)},
			wantLift: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := ForCSV(testCSV("op.v1", "ops", tt.perms, tt.cluster))
			if err != nil {
				t.Fatal(err)
			}
			roles, bindings := Lift(objs)
			if lifted := roles != nil; lifted != tt.wantLift || (bindings != nil) != tt.wantLift {
				t.Errorf("Lift: %d roles, %d bindings; want lifted = %v", len(roles), len(bindings), tt.wantLift)
			}
			copies, copiedBindings := CopyToNamespace(objs, "op.v1", "ops", "tenant")
			if copied := copies != nil; copied != tt.wantLift || (copiedBindings != nil) != tt.wantLift {
				t.Errorf("CopyToNamespace: %d roles, %d bindings; want copied = %v", len(copies), len(copiedBindings), tt.wantLift)
			}
		})
	}
}

func TestLiftShape(t *testing.T) {
	objs, err := ForCSV(testCSV("demo.v1.0.0", "ops", perms{perm("demo-sa", getConfigMaps)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	const name = "demo.v1.0.0-demo-sa-8w2obSZZNya5Rc0Yry0mI3qHtfFQjWcVr3pMxX"
	roles, bindings := Lift(objs)
	wantRoles := []*rbacv1.ClusterRole{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: objs.Roles[0].Labels},
		Rules: []rbacv1.PolicyRule{
			getConfigMaps,
			{Verbs: strs("get", "list", "watch"), APIGroups: strs(""), Resources: strs("namespaces")},
		},
	}}
	wantBindings := []*rbacv1.ClusterRoleBinding{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: objs.RoleBindings[0].Labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "demo-sa", Namespace: "ops"}},
	}}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("lifted roles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantBindings, bindings); diff != "" {
		t.Errorf("lifted bindings (-want +got):\n%s", diff)
	}
	// The lift must not touch its input.
	roles[0].Labels["x"] = "y"
	roles[0].Rules[0].Verbs[0] = "mutated"
	if _, ok := objs.Roles[0].Labels["x"]; ok || len(objs.Roles[0].Rules) != 1 || objs.Roles[0].Rules[0].Verbs[0] != "get" {
		t.Error("Lift aliases its input")
	}
}

func TestCopyToNamespace(t *testing.T) {
	objs, err := ForCSV(testCSV("demo.v1.0.0", "ops", perms{perm("demo-sa", getConfigMaps)}, nil))
	if err != nil {
		t.Fatal(err)
	}
	const name = "demo.v1.0.0-demo-sa-8w2obSZZNya5Rc0Yry0mI3qHtfFQjWcVr3pMxX"
	labels := func(hash string) map[string]string {
		return map[string]string{
			"olm.owner":            "demo.v1.0.0",
			"olm.owner.namespace":  "tenant",
			"olm.owner.kind":       "ClusterServiceVersion",
			"olm.permissions.hash": hash,
			"olm.copiedFrom":       "ops",
			"olm.managed":          "true",
		}
	}
	roles, bindings := CopyToNamespace(objs, "demo.v1.0.0", "ops", "tenant")
	wantRoles := []*rbacv1.Role{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tenant", Labels: labels("9b1l66XdBkgGyRsF8UTT7cJseCinXJQF3swGUU")},
		Rules:      []rbacv1.PolicyRule{getConfigMaps},
	}}
	wantBindings := []*rbacv1.RoleBinding{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tenant", Labels: labels(objs.RoleBindings[0].Labels["olm.permissions.hash"])},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "demo-sa", Namespace: "ops"}},
	}}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("copied roles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantBindings, bindings); diff != "" {
		t.Errorf("copied bindings (-want +got):\n%s", diff)
	}
	if objs.Roles[0].Labels["olm.owner.namespace"] != "ops" {
		t.Error("CopyToNamespace changed its input")
	}
	if r, b := CopyToNamespace(objs, "demo.v1.0.0", "ops", "ops"); r != nil || b != nil {
		t.Error("copied into the operator namespace")
	}
}

// FuzzSelfCoverage: permissions repeated verbatim as clusterPermissions for the same
// ServiceAccount are always met, so nothing is lifted or copied.
func FuzzSelfCoverage(f *testing.F) {
	f.Add("get,list", ",apps", "pods,pods/log", "", "")
	f.Add("*", "*", "*", "a,b", "")
	f.Add("get", "", "", "", "/metrics,/healthz/*")
	f.Fuzz(func(t *testing.T, verbs, groups, resources, names, urls string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		r := rbacv1.PolicyRule{Verbs: split(verbs), APIGroups: split(groups), Resources: split(resources), ResourceNames: split(names), NonResourceURLs: split(urls)}
		resourceRule := len(r.APIGroups) > 0 && len(r.Resources) > 0
		if !ruleValid(r) || (!resourceRule && len(r.NonResourceURLs) == 0) || slices.Contains(r.NonResourceURLs, "") {
			t.Skip("a rule without apiGroups, resources or URLs covers nothing, not even itself")
		}
		objs, err := ForCSV(testCSV("op.v1", "ops", perms{perm("sa", r)}, perms{perm("sa", r)}))
		if err != nil {
			t.Fatal(err)
		}
		if roles, _ := Lift(objs); roles != nil {
			t.Errorf("lifted a self-covered rule %+v", r)
		}
	})
}

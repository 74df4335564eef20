package permissions

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const op = "operators/etcd-operator"

// etcdRBAC returns an OLM-style namespaced Role and RoleBinding named after version.
func etcdRBAC(version string, rules ...map[string]any) []*unstructured.Unstructured {
	name := "etcdoperator." + version
	return objs(
		role("operators", name, rules...),
		roleBinding("operators", name, "Role", name, sa("operators", "etcd-operator")),
	)
}

// etcdClusterRBAC returns an OLM-style ClusterRole and ClusterRoleBinding named after version.
func etcdClusterRBAC(version string, rules ...map[string]any) []*unstructured.Unstructured {
	name := "etcdoperator." + version
	return objs(
		clusterRole(name, rules...),
		clusterRoleBinding(name, name, sa("operators", "etcd-operator")),
	)
}

// with returns a followed by b.
func with(a []*unstructured.Unstructured, b ...*unstructured.Unstructured) []*unstructured.Unstructured {
	return append(append([]*unstructured.Unstructured{}, a...), b...)
}

// compareCase is one case of TestCompare.
type compareCase struct {
	name     string
	before   []*unstructured.Unstructured
	after    []*unstructured.Unstructured
	want     []Change
	wantGrew bool
}

// podsRule reads pods.
func podsRule() map[string]any { return rule([]string{""}, []string{"pods"}, "get", "list") }

// widgetsRule reads widgets.
func widgetsRule() map[string]any {
	return rule([]string{"example.com"}, []string{"widgets"}, "get", "list")
}

// allRule allows everything.
func allRule() map[string]any { return rule([]string{"*"}, []string{"*"}, "*") }

// changeCases returns TestCompare's cases about rules added, removed or renamed.
func changeCases() []compareCase {
	return []compareCase{
		{
			name:   "renamed role with same rules",
			before: etcdRBAC("v0.9.2-4fg5hd8s1m", podsRule()),
			after:  etcdRBAC("v0.9.4-7bhms0aunrepbgjou8jyb3p9f43edgvgrq6tmg", podsRule()),
		},
		{
			name: "unrelated objects are ignored",
			before: with(etcdRBAC("v1", podsRule()),
				&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}),
			after: with(etcdRBAC("v1", podsRule()),
				&unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Role", "rules": "x"}}),
		},
		{
			name:   "rule added",
			before: etcdRBAC("v1", podsRule()),
			after:  etcdRBAC("v2", podsRule(), rule([]string{""}, []string{"configmaps"}, "get")),
			want: []Change{{Subject: op, Kind: Added, Grants: []Grant{
				g(op, "operators", "", "configmaps", "get"),
			}}},
			wantGrew: true,
		},
		{
			name:   "rule removed",
			before: etcdRBAC("v1", podsRule(), rule([]string{""}, []string{"configmaps"}, "get")),
			after:  etcdRBAC("v2", podsRule()),
			want: []Change{{Subject: op, Kind: Removed, Grants: []Grant{
				g(op, "operators", "", "configmaps", "get"),
			}}},
		},
	}
}

// coverageCases returns TestCompare's cases about scopes, wildcards and coverage.
func coverageCases() []compareCase {
	return []compareCase{
		{
			name:   "role and binding replaced by cluster role and binding",
			before: etcdRBAC("v1", widgetsRule()),
			after:  etcdClusterRBAC("v2", widgetsRule()),
			want: []Change{{Subject: op, Kind: Widened, Grants: []Grant{
				g(op, "", "example.com", "widgets", "get"),
				g(op, "", "example.com", "widgets", "list"),
			}, Sensitive: []string{"cluster-wide"}}},
			wantGrew: true,
		},
		{
			name:   "cluster role narrowed to a namespace",
			before: etcdClusterRBAC("v1", widgetsRule()),
			after:  etcdRBAC("v2", widgetsRule()),
			want: []Change{{Subject: op, Kind: Removed, Grants: []Grant{
				g(op, "", "example.com", "widgets", "get"),
				g(op, "", "example.com", "widgets", "list"),
			}}},
		},
		{
			name:   "secrets verb added",
			before: etcdRBAC("v1", rule([]string{""}, []string{"secrets"}, "get")),
			after:  etcdRBAC("v2", rule([]string{""}, []string{"secrets"}, "get", "list", "watch")),
			want: []Change{{Subject: op, Kind: Added, Grants: []Grant{
				g(op, "operators", "", "secrets", "list"),
				g(op, "operators", "", "secrets", "watch"),
			}, Sensitive: []string{"secrets: list,watch"}}},
			wantGrew: true,
		},
		{
			name:   "wildcard already present",
			before: etcdRBAC("v1", allRule()),
			after:  etcdRBAC("v2", allRule(), rule([]string{""}, []string{"secrets"}, "get")),
		},
		{
			name:   "cluster-wide grant covers namespaced addition",
			before: with(etcdRBAC("v1", podsRule()), etcdClusterRBAC("v1", rule([]string{""}, []string{"secrets"}, "*"))...),
			after:  with(etcdRBAC("v2", podsRule(), rule([]string{""}, []string{"secrets"}, "get")), etcdClusterRBAC("v2", rule([]string{""}, []string{"secrets"}, "*"))...),
		},
		{
			name:   "subresource wildcard and resourceName",
			before: etcdRBAC("v1", rule([]string{"apps"}, []string{"*/scale"}, "update")),
			after: etcdRBAC("v2", rule([]string{"apps"}, []string{"*/scale"}, "update"),
				named(rule([]string{"apps"}, []string{"deployments/scale"}, "update"), "etcd")),
		},
	}
}

// reportCases returns TestCompare's cases about missing roles and grouping.
func reportCases() []compareCase {
	return []compareCase{
		{
			name: "binding to a missing role",
			before: objs(roleBinding("operators", "etcd-view", "ClusterRole", "view",
				sa("operators", "prometheus"))),
			after: with(objs(roleBinding("operators", "etcd-view", "ClusterRole", "view",
				sa("operators", "prometheus"))),
				clusterRoleBinding("etcd-admin", "cluster-admin", sa("operators", "etcd-operator"))),
			want: []Change{{Subject: op, Kind: Added, Grants: []Grant{
				{Subject: op, Resource: "<unknown ClusterRole/cluster-admin>"},
			}, Sensitive: []string{"unknown permissions"}}},
			wantGrew: true,
		},
		{
			name:   "resources with the same verbs form one change",
			before: etcdRBAC("v1", podsRule()),
			after: etcdRBAC("v2", podsRule(), rule([]string{"apps"}, []string{"deployments", "replicasets"}, "get"),
				rule([]string{"apps"}, []string{"statefulsets"}, "list")),
			want: []Change{
				{Subject: op, Kind: Added, Grants: []Grant{
					g(op, "operators", "apps", "deployments", "get"),
					g(op, "operators", "apps", "replicasets", "get"),
				}},
				{Subject: op, Kind: Added, Grants: []Grant{
					g(op, "operators", "apps", "statefulsets", "list"),
				}},
			},
			wantGrew: true,
		},
	}
}

// sensitiveCases returns TestCompare's cases about sensitive grants and other subjects.
func sensitiveCases() []compareCase {
	return []compareCase{
		{
			name:   "sensitive writes and non-resource URLs",
			before: etcdClusterRBAC("v1"),
			after: etcdClusterRBAC("v2", rule([]string{""}, []string{"pods/exec"}, "create"),
				rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles"}, "bind", "escalate"),
				urlRule([]string{"/metrics"}, "get")),
			want: []Change{
				{Subject: op, Kind: Added, Grants: []Grant{
					{Subject: op, NonResourceURL: "/metrics", Verb: "get"},
				}},
				{Subject: op, Kind: Added, Grants: []Grant{
					g(op, "", "", "pods/exec", "create"),
				}, Sensitive: []string{"create pods/exec"}},
				{Subject: op, Kind: Added, Grants: []Grant{
					g(op, "", "rbac.authorization.k8s.io", "clusterroles", "bind"),
					g(op, "", "rbac.authorization.k8s.io", "clusterroles", "escalate"),
				}, Sensitive: []string{"bind", "escalate"}},
			},
			wantGrew: true,
		},
		{
			name:   "user subject",
			before: objs(clusterRole("r", podsRule()), clusterRoleBinding("b", "r")),
			after:  objs(clusterRole("r", podsRule()), clusterRoleBinding("b", "r", user("alice"))),
			want: []Change{{Subject: "User:alice", Kind: Added, Grants: []Grant{
				g("User:alice", "", "", "pods", "get"),
				g("User:alice", "", "", "pods", "list"),
			}}},
			wantGrew: true,
		},
	}
}

func TestCompare(t *testing.T) {
	var tests []compareCase
	for _, cases := range [][]compareCase{changeCases(), coverageCases(), reportCases(), sensitiveCases()} {
		tests = append(tests, cases...)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compare(tt.before, tt.after)
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
			if grew := Grew(got); grew != tt.wantGrew {
				t.Errorf("Grew = %v, want %v", grew, tt.wantGrew)
			}
		})
	}
}

func TestPermissionsAggregation(t *testing.T) {
	const sel = "olm.opgroup.permissions/aggregate-to-admin"
	admin := aggregating(clusterRole("olm.og.global.admin-5ud4u"), sel, "true")
	widgets := withLabels(clusterRole("widgets-admin", rule([]string{"example.com"}, []string{"widgets"}, "*")), sel, "true")
	other := clusterRole("gadgets-admin", rule([]string{"example.com"}, []string{"gadgets"}, "*"))
	subject := sa("team-a", "ci")

	t.Run("unbound aggregated role grants nothing", func(t *testing.T) {
		got, err := Permissions(objs(admin, widgets, other))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("Permissions = %v, want none", got)
		}
	})
	t.Run("bound aggregated role grants selected roles and a marker", func(t *testing.T) {
		got, err := Permissions(objs(admin, widgets, other, roleBinding("team-a", "ci-admin", "ClusterRole", admin.GetName(), subject)))
		if err != nil {
			t.Fatal(err)
		}
		want := []Grant{
			{Subject: "team-a/ci", Namespace: "team-a", Resource: "<aggregated ClusterRoles matching " + sel + "=true>"},
			g("team-a/ci", "team-a", "example.com", "widgets", "*"),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Permissions (-want +got):\n%s", diff)
		}
	})
}

func TestPermissionsDefaults(t *testing.T) {
	got, err := Permissions(objs(
		role("operators", "r", rule([]string{""}, []string{"configmaps"}, "get"), urlRule([]string{"/healthz"}, "get")),
		roleBinding("operators", "b", "Role", "r", sa("", "gadget-operator")),
	))
	if err == nil {
		t.Fatalf("Permissions = %v, want an error for nonResourceURLs in a Role", got)
	}
	got, err = Permissions(objs(
		clusterRole("r", rule([]string{""}, []string{"configmaps"}, "get"), urlRule([]string{"/healthz"}, "get")),
		roleBinding("operators", "b", "ClusterRole", "r", sa("", "gadget-operator")),
	))
	if err != nil {
		t.Fatal(err)
	}
	want := []Grant{g("operators/gadget-operator", "operators", "", "configmaps", "get")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Permissions (-want +got):\n%s", diff)
	}
}

// withBadLabel gives u a label whose value is a number.
func withBadLabel(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.Object["metadata"].(map[string]any)["labels"] = map[string]any{"a": int64(1)}
	return u
}

func TestMalformed(t *testing.T) {
	badVerbs := rule([]string{""}, []string{"pods"}, "get")
	badVerbs["verbs"] = []any{"get", int64(3)}
	tests := []struct {
		name       string
		objs       []*unstructured.Unstructured
		wantObject string
		wantField  string
	}{
		{"rules not a list", objs(obj("Role", "ops", "r", map[string]any{"rules": "all"})), "Role/ops/r", "rules"},
		{"verb not a string", objs(role("ops", "r", badVerbs)), "Role/ops/r", "rules[0].verbs[1]"},
		{"rule without verbs", objs(clusterRole("c", rule([]string{""}, []string{"pods"}))), "ClusterRole/c", "rules[0].verbs"},
		{"resource rule without apiGroups", objs(clusterRole("c", map[string]any{"resources": strs("pods"), "verbs": strs("get")})),
			"ClusterRole/c", "rules[0].apiGroups"},
		{"missing roleRef", objs(obj("RoleBinding", "ops", "b", nil)), "RoleBinding/ops/b", "roleRef"},
		{"roleRef not an object", objs(obj("ClusterRoleBinding", "", "b", map[string]any{"roleRef": []any{}})),
			"ClusterRoleBinding/b", "roleRef"},
		{"cluster binding to a Role", objs(obj("ClusterRoleBinding", "", "b", bindingFields("Role", "r", nil))),
			"ClusterRoleBinding/b", "roleRef.kind"},
		{"service account without namespace", objs(clusterRoleBinding("b", "r", sa("", "x"))),
			"ClusterRoleBinding/b", "subjects[0].namespace"},
		{"subjects not a list", objs(obj("RoleBinding", "ops", "b", map[string]any{
			"roleRef": map[string]any{"kind": "Role", "name": "r"}, "subjects": map[string]any{}})),
			"RoleBinding/ops/b", "subjects"},
		{"role binding without namespace", objs(roleBinding("", "b", "Role", "r")), "RoleBinding/b", "metadata.namespace"},
		{"bad selector", objs(obj("ClusterRole", "", "c", map[string]any{"aggregationRule": map[string]any{
			"clusterRoleSelectors": []any{map[string]any{"matchLabels": map[string]any{"a": true}}}}})),
			"ClusterRole/c", "aggregationRule.clusterRoleSelectors[0].matchLabels.a"},
		{"duplicate role", objs(clusterRole("c"), clusterRole("c")), "ClusterRole/c", "metadata.name"},
		{"label not a string", objs(withBadLabel(clusterRole("c"))), "ClusterRole/c", "metadata.labels.a"},
		{"name not a string", objs(&unstructured.Unstructured{Object: map[string]any{"apiVersion": rbacAPIVersion,
			"kind": "ClusterRoleBinding", "metadata": map[string]any{"name": 7}}}), "ClusterRoleBinding/", "metadata.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(nil, tt.objs)
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("Compare error = %v, want a *MalformedError", err)
			}
			if m.Object != tt.wantObject || m.Field != tt.wantField {
				t.Errorf("error names %s, %s; want %s, %s", m.Object, m.Field, tt.wantObject, tt.wantField)
			}
			for _, s := range []string{"after: ", tt.wantObject, tt.wantField} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestSummary(t *testing.T) {
	before := etcdRBAC("v1", rule([]string{"apps"}, []string{"deployments"}, "get"))
	after := with(etcdClusterRBAC("v2", rule([]string{""}, []string{"secrets"}, "get", "list", "watch")),
		roleBinding("operators", "v", "ClusterRole", "view", sa("operators", "etcd-operator")))
	changes, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"operators/etcd-operator gains cluster-wide get,list,watch on secrets (sensitive: secrets: get,list,watch)",
		"operators/etcd-operator gains unknown permissions <unknown ClusterRole/view> in namespace operators (sensitive: unknown permissions)",
		"operators/etcd-operator loses get on deployments in group apps in namespace operators",
	}
	if diff := cmp.Diff(want, Summary(changes)); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
}

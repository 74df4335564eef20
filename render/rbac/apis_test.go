package rbac

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	ghost  = schema.GroupVersionKind{Group: "ghouls", Version: "v1alpha1", Kind: "Ghost"}
	etcdCl = schema.GroupVersionKind{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"}
)

func TestGVKHash(t *testing.T) {
	// Expected values cross-checked with an independent FNV-1a implementation.
	tests := []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		{gvk: ghost, want: "6435ab0d7c6bda64"},                    // olm-render-spec §0
		{gvk: schema.GroupVersionKind{}, want: "7da1a07b4a03f2d"}, // "..": 15 digits, not zero-padded
		{gvk: etcdCl, want: "c571d720f17289d3"},
		{gvk: schema.GroupVersionKind{Kind: "K"}, want: "51201719d1c93bc6"}, // "K.."
	}
	for _, tt := range tests {
		if got := GVKHash(tt.gvk); got != tt.want {
			t.Errorf("GVKHash(%v) = %s, want %s", tt.gvk, got, tt.want)
		}
	}
}

func TestAPISetString(t *testing.T) {
	apis := []schema.GroupVersionKind{etcdCl, ghost, ghost, {Group: "a.b", Version: "v1", Kind: "Z"}}
	want := "EtcdCluster.v1beta2.etcd.database.coreos.com,Ghost.v1alpha1.ghouls,Z.v1.a.b"
	if got := APISetString(apis); got != want {
		t.Errorf("APISetString = %q, want %q", got, want)
	}
	if got := APISetString(nil); got != "" {
		t.Errorf("APISetString(nil) = %q", got)
	}
	if apis[0] != etcdCl {
		t.Error("APISetString reordered its input")
	}
}

// apiCSV owns the etcd CRD twice (duplicate entry), a CRD with a dot-less name (skipped) and an
// APIService.
func apiCSV() *v1alpha1.ClusterServiceVersion {
	csv := testCSV("op.v1", "ns", nil, nil)
	csv.Spec.CustomResourceDefinitions.Owned = []v1alpha1.CRDDescription{
		{Name: "etcdclusters.etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"},
		{Name: "broken", Version: "v1", Kind: "Broken"},
		{Name: "etcdclusters.etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"},
	}
	csv.Spec.APIServiceDefinitions.Owned = []v1alpha1.APIServiceDescription{
		{Name: "ghouls", Group: "ghouls", Version: "v1alpha1", Kind: "Ghost"},
	}
	return csv
}

func TestProvidedAPIs(t *testing.T) {
	want := []schema.GroupVersionKind{etcdCl, ghost}
	if diff := cmp.Diff(want, ProvidedAPIs(apiCSV())); diff != "" {
		t.Errorf("ProvidedAPIs (-want +got):\n%s", diff)
	}
	if got := ProvidedAPIs(testCSV("a", "ns", nil, nil)); len(got) != 0 {
		t.Errorf("ProvidedAPIs of no APIs = %v", got)
	}
}

func TestProvidedAPIClusterRoles(t *testing.T) {
	const (
		crd       = "etcdclusters.etcd.database.coreos.com"
		etcdGroup = "etcd.database.coreos.com"
	)
	role := func(name, suffix string, api schema.GroupVersionKind, rule rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{
			TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-" + suffix:                    "true",
				"olm.opgroup.permissions/aggregate-to-" + GVKHash(api) + "-" + suffix: "true",
				"olm.managed": "true",
			}},
			Rules: []rbacv1.PolicyRule{rule},
		}
	}
	admin, edit, view := strs("*"), strs("create", "update", "patch", "delete"), strs("get", "list", "watch")
	want := []*rbacv1.ClusterRole{
		role(crd+"-v1beta2-admin", "admin", etcdCl, rule(admin, strs(etcdGroup), strs("etcdclusters"))),
		role(crd+"-v1beta2-crdview", "view", etcdCl, rbacv1.PolicyRule{
			Verbs: strs("get"), APIGroups: strs("apiextensions.k8s.io"),
			Resources: strs("customresourcedefinitions"), ResourceNames: strs(crd),
		}),
		role(crd+"-v1beta2-edit", "edit", etcdCl, rule(edit, strs(etcdGroup), strs("etcdclusters"))),
		role(crd+"-v1beta2-view", "view", etcdCl, rule(view, strs(etcdGroup), strs("etcdclusters"))),
		role("ghouls-v1alpha1-admin", "admin", ghost, rule(admin, strs("ghouls"), strs("ghouls"))),
		role("ghouls-v1alpha1-edit", "edit", ghost, rule(edit, strs("ghouls"), strs("ghouls"))),
		role("ghouls-v1alpha1-view", "view", ghost, rule(view, strs("ghouls"), strs("ghouls"))),
	}
	got := ProvidedAPIClusterRoles(apiCSV())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProvidedAPIClusterRoles (-want +got):\n%s", diff)
	}
	// The Ghost vector of olm-render-spec §0 appears in the APIService roles' labels.
	if _, ok := got[4].Labels["olm.opgroup.permissions/aggregate-to-6435ab0d7c6bda64-admin"]; !ok {
		t.Errorf("ghouls admin labels = %v", got[4].Labels)
	}
	got[0].Rules[0].Verbs[0] = "mutated"
	if again := ProvidedAPIClusterRoles(apiCSV()); again[0].Rules[0].Verbs[0] != "*" {
		t.Error("roles share verb slices between calls")
	}
}

// TestOperatorGroupClusterRolesVectors checks the names computed by importing OLM v0.46.0.
func TestOperatorGroupClusterRolesVectors(t *testing.T) {
	og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: "ns"}}
	labels := map[string]string{
		"olm.owner": "og", "olm.owner.namespace": "ns", "olm.owner.kind": "OperatorGroup", "olm.managed": "true",
	}
	want := []*rbacv1.ClusterRole{
		{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: "olm.og.og.admin-7hdvs1pJiMS8ikuUkvThunsWUnvSLPNYPbr0ec", Labels: labels},
		},
		{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: "olm.og.og.edit-5RZt9bI4b7MaRoQRfSvU16qlDG9HDDCLxy7jK9", Labels: labels},
		},
		{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: "olm.og.og.view-8vAKjjAWQgj5N39d65nNyqAFAWxEyQiKvWnQ8J", Labels: labels},
		},
	}
	if diff := cmp.Diff(want, OperatorGroupClusterRoles(og, nil)); diff != "" {
		t.Errorf("OperatorGroupClusterRoles (-want +got):\n%s", diff)
	}
}

func TestAggregationRule(t *testing.T) {
	tests := []struct {
		name   string
		apis   []schema.GroupVersionKind
		suffix string
		want   *rbacv1.AggregationRule
	}{
		{name: "no apis", apis: nil, suffix: "admin", want: nil},
		{name: "empty apis", apis: []schema.GroupVersionKind{}, suffix: "view", want: nil},
		{
			name:   "sorted by label, duplicates merged",
			apis:   []schema.GroupVersionKind{etcdCl, ghost, ghost},
			suffix: "edit",
			want: &rbacv1.AggregationRule{ClusterRoleSelectors: selectors(
				"olm.opgroup.permissions/aggregate-to-6435ab0d7c6bda64-edit", // Ghost
				"olm.opgroup.permissions/aggregate-to-c571d720f17289d3-edit", // EtcdCluster
			)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: "ns"}}
			for _, r := range OperatorGroupClusterRoles(og, tt.apis) {
				if !strings.Contains(r.Name, "."+tt.suffix+"-") {
					continue
				}
				if diff := cmp.Diff(tt.want, r.AggregationRule); diff != "" {
					t.Errorf("aggregationRule (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// selectors builds one matchLabels selector per label, in the given order.
func selectors(labels ...string) []metav1.LabelSelector {
	out := make([]metav1.LabelSelector, 0, len(labels))
	for _, l := range labels {
		out = append(out, metav1.LabelSelector{MatchLabels: map[string]string{l: "true"}})
	}
	return out
}

// TestOperatorGroupClusterRoleNameLimit: the group name is cut to 253-9-len(suffix)-len(hash)
// characters (201 here: every hash below is 38 characters) so the name is at most 253 long; a name
// exactly at the limit is kept whole. The hash always covers the full group name.
func TestOperatorGroupClusterRoleNameLimit(t *testing.T) {
	tests := []struct {
		name     string
		ogLen    int
		wantKept int
	}{
		{name: "one under the limit", ogLen: 200, wantKept: 200},
		{name: "at the limit", ogLen: 201, wantKept: 201},
		{name: "one over the limit", ogLen: 202, wantKept: 201},
		{name: "far over", ogLen: 300, wantKept: 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			og := strings.Repeat("g", tt.ogLen)
			h := stringHash("ns/" + og + "/admin")
			if len(h) != 38 {
				t.Fatalf("test assumes a 38-character hash, got %d", len(h))
			}
			want := "olm.og." + og[:tt.wantKept] + ".admin-" + h
			if got := OperatorGroupClusterRoleName("ns", og, "admin"); got != want {
				t.Errorf("name = %s (%d), want %s (%d)", got, len(got), want, len(want))
			}
		})
	}
}

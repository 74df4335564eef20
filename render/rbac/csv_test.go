package rbac

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/render/hash"
)

// testCSV builds a deployment-strategy CSV with the given permissions.
func testCSV(name, namespace string, perms, clusterPerms []v1alpha1.StrategyDeploymentPermissions) *v1alpha1.ClusterServiceVersion {
	csv := &v1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	csv.Spec.InstallStrategy.StrategyName = v1alpha1.InstallStrategyNameDeployment
	csv.Spec.InstallStrategy.StrategySpec.Permissions = perms
	csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions = clusterPerms
	return csv
}

func perm(sa string, rules ...rbacv1.PolicyRule) v1alpha1.StrategyDeploymentPermissions {
	return v1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: rules}
}

func rule(verbs, groups, resources []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func strs(s ...string) []string { return s }

var getConfigMaps = rule(strs("get"), strs(""), strs("configmaps"))

// TestForCSVVerifiedVectors checks the names and labels computed by importing OLM v0.46.0
// (olm-render-spec §0).
func TestForCSVVerifiedVectors(t *testing.T) {
	csv := testCSV("demo.v1.0.0", "ops", nil, nil)
	csv.Spec.InstallStrategy.StrategySpec.Permissions = []v1alpha1.StrategyDeploymentPermissions{perm("demo-sa", getConfigMaps)}
	csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions = []v1alpha1.StrategyDeploymentPermissions{perm("demo-sa", getConfigMaps)}
	objs, err := ForCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	const (
		roleName    = "demo.v1.0.0-demo-sa-8w2obSZZNya5Rc0Yry0mI3qHtfFQjWcVr3pMxX"
		clusterName = "demo.v1.0.0-2yp0daMGer3obFlkzrD7tJoKKP4UJjW8pMoihi"
		rulesHash   = "9b1l66XdBkgGyRsF8UTT7cJseCinXJQF3swGUU"
	)
	owner := map[string]string{
		"olm.owner": "demo.v1.0.0", "olm.owner.namespace": "ops",
		"olm.owner.kind": "ClusterServiceVersion", "olm.managed": "true",
	}
	withHash := func(h string) map[string]string {
		m := map[string]string{"olm.permissions.hash": h}
		for k, v := range owner {
			m[k] = v
		}
		return m
	}
	roleRef := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: roleName}
	clusterRef := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: clusterName}
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "demo-sa", Namespace: "ops"}}
	want := &Objects{
		ServiceAccounts: []*corev1.ServiceAccount{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: "demo-sa", Namespace: "ops", Labels: map[string]string{"olm.managed": "true"}},
		}},
		Roles: []*rbacv1.Role{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Name: roleName, Namespace: "ops", Labels: withHash(rulesHash)},
			Rules:      []rbacv1.PolicyRule{getConfigMaps},
		}},
		RoleBindings: []*rbacv1.RoleBinding{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: roleName, Namespace: "ops", Labels: withHash(BindingHash(roleRef, subjects))},
			RoleRef:    roleRef,
			Subjects:   subjects,
		}},
		ClusterRoles: []*rbacv1.ClusterRole{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: clusterName, Labels: withHash(rulesHash)},
			Rules:      []rbacv1.PolicyRule{getConfigMaps},
		}},
		ClusterRoleBindings: []*rbacv1.ClusterRoleBinding{{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: clusterName, Labels: withHash(BindingHash(clusterRef, subjects))},
			RoleRef:    clusterRef,
			Subjects:   subjects,
		}},
	}
	if diff := cmp.Diff(want, objs); diff != "" {
		t.Errorf("ForCSV (-want +got):\n%s", diff)
	}
}

// TestHashLabels checks the rules hash vector and that the binding hash hashes the JSON keys
// "RoleRef" and "Subjects" literally.
func TestHashLabels(t *testing.T) {
	if got := RulesHash([]rbacv1.PolicyRule{getConfigMaps}); got != "9b1l66XdBkgGyRsF8UTT7cJseCinXJQF3swGUU" {
		t.Errorf("RulesHash = %s", got)
	}
	ref := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "r"}
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa", Namespace: "ns"}}
	raw := `{"RoleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"Subjects":[{"kind":"ServiceAccount","name":"sa","namespace":"ns"}]}`
	if got, want := BindingHash(ref, subjects), stringHash(raw); got != want {
		t.Errorf("BindingHash = %s, want %s", got, want)
	}
}

// TestNameTruncation drives generateName's 63-character rule through ForCSV. The Role base is
// "<csv>-sa"; the hash is 37 or 38 characters depending on the input.
func TestNameTruncation(t *testing.T) {
	tests := []struct {
		name    string
		csvName string
		want    string
	}{
		{
			name:    "base+hash 61: kept, 62 characters",
			csvName: strings.Repeat("x", 20),
			want:    "xxxxxxxxxxxxxxxxxxxx-sa-3hxLnezmy4jj01NNricV7sNIOR06tKYfpTVfEf",
		},
		{
			name:    "base+hash 63: kept, name is 64 characters (OLM off-by-one)",
			csvName: strings.Repeat("x", 22),
			want:    "xxxxxxxxxxxxxxxxxxxxxx-sa-1SE8cPWef1twaOWe2YoIeYzvm0cNwZrzlplYkf",
		},
		{
			name:    "base+hash 64: cut to 63, leaving a trailing dash in the base",
			csvName: strings.Repeat("x", 23),
			want:    "xxxxxxxxxxxxxxxxxxxxxxx--3kfVIVug2oy6hFlJUpJ1DxtP8NC7JFPiPZz5VE",
		},
		{
			name:    "37-character hash leaves 25 characters of base",
			csvName: strings.Repeat("x", 25),
			want:    "xxxxxxxxxxxxxxxxxxxxxxxxx-Zby3zEfz69EnnLKtHXSbEvRoiqWsAYt4ncsEq",
		},
		{
			name:    "long name cut",
			csvName: strings.Repeat("x", 40),
			want:    "xxxxxxxxxxxxxxxxxxxxxxxxx-tFa3qKblmPTuqY3bfyn3cas9AfWUCsvvE3GCO",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := testCSV(tt.csvName, "ns", []v1alpha1.StrategyDeploymentPermissions{perm("sa", getConfigMaps)}, nil)
			objs, err := ForCSV(csv)
			if err != nil {
				t.Fatal(err)
			}
			if got := objs.Roles[0].Name; got != tt.want {
				t.Errorf("role name = %s (%d), want %s (%d)", got, len(got), tt.want, len(tt.want))
			}
			if got := objs.RoleBindings[0].Name; got != tt.want {
				t.Errorf("binding name = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGenerateNameVector is OLM's resolver TestGenerateName vector.
func TestGenerateNameVector(t *testing.T) {
	if got, want := hash.GenerateName("myname", []string{"something"}), "myname-5L9sNXi3Y6mcOevFzYY3WOLIukKOeZwz1pfUlT"; got != want {
		t.Errorf("generateName = %s, want %s", got, want)
	}
}

func TestForCSVServiceAccountsAndRepeats(t *testing.T) {
	listPods := rule(strs("list"), strs(""), strs("pods"))
	csv := testCSV("op.v1", "ns",
		[]v1alpha1.StrategyDeploymentPermissions{
			perm("one", getConfigMaps),
			perm("one", listPods),
			perm("two", getConfigMaps),
			perm("one", getConfigMaps), // identical to the first: same name, one object
			perm("default", listPods),
		},
		[]v1alpha1.StrategyDeploymentPermissions{
			perm("three", listPods),
			perm("three", listPods),
			perm("default", getConfigMaps),
		})
	objs, err := ForCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, sa := range objs.ServiceAccounts {
		got["sa"] = append(got["sa"], sa.Namespace+"/"+sa.Name)
	}
	for _, b := range objs.RoleBindings {
		got["rb"] = append(got["rb"], b.Name+"->"+b.Subjects[0].Name)
	}
	for _, b := range objs.ClusterRoleBindings {
		got["crb"] = append(got["crb"], b.Name+"->"+b.Subjects[0].Name)
	}
	want := map[string][]string{
		"sa": {"ns/one", "ns/three", "ns/two"},
		"rb": {
			"op.v1-default-4SQ9wByC29pi6BadawzBUxYbQrNVtGpyVncNJE->default",
			"op.v1-one-2A91QTCzPR34NDTOeHBYk8t8ERBEt4wmhMHv82->one",
			"op.v1-one-iqSwklfp1hkcT5k9qf7IY2FwPTixZjj2PbPxT->one",
			"op.v1-two-McLb6HZVU56FepA2wTbhEB4vZuB7fxBF9HksL->two",
		},
		"crb": {
			"op.v1-1Wii2pIogKcKZucy38XdbkyiLVVX78AQUJapRp->default",
			"op.v1-8kKLawfaJts1uIrXblW1kOe2Vf5Isf2VA9g7k9->three",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ForCSV names (-want +got):\n%s", diff)
	}
	if len(objs.Roles) != 4 || len(objs.ClusterRoles) != 2 {
		t.Errorf("got %d roles, %d cluster roles; want 4, 2", len(objs.Roles), len(objs.ClusterRoles))
	}
}

func TestForCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		csv  *v1alpha1.ClusterServiceVersion
		want error
		msg  string
	}{
		{
			name: "no namespace",
			csv:  testCSV("a", "", nil, nil),
			want: errNoNamespace,
			msg:  `csv "a": csv has no namespace`,
		},
		{
			name: "empty service account",
			csv:  testCSV("a", "ns", nil, []v1alpha1.StrategyDeploymentPermissions{perm("", getConfigMaps)}),
			want: errNoServiceAccount,
			msg:  `csv "a": clusterPermissions[0]: empty serviceAccountName`,
		},
		{
			name: "unknown strategy",
			csv: func() *v1alpha1.ClusterServiceVersion {
				c := testCSV("a", "ns", nil, nil)
				c.Spec.InstallStrategy.StrategyName = "helm"
				return c
			}(),
			want: errUnknownInstallKind,
			msg:  `csv "a": unrecognized install strategy "helm"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ForCSV(tt.csv)
			if !errors.Is(err, tt.want) || err.Error() != tt.msg {
				t.Errorf("ForCSV error = %v, want %q", err, tt.msg)
			}
		})
	}
}

// TestForCSVEmptyRules keeps nil rules as null and empty rules as [] (they hash differently).
func TestForCSVEmptyRules(t *testing.T) {
	csv := testCSV("a", "ns", []v1alpha1.StrategyDeploymentPermissions{
		{ServiceAccountName: "nil"},
		{ServiceAccountName: "empty", Rules: []rbacv1.PolicyRule{}},
	}, nil)
	objs, err := ForCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range objs.Roles {
		isNil := r.Rules == nil
		if wantNil := strings.Contains(r.Name, "-nil-"); isNil != wantNil {
			t.Errorf("%s: rules nil = %v", r.Name, isNil)
		}
	}
	if RulesHash(nil) == RulesHash([]rbacv1.PolicyRule{}) {
		t.Error("nil and empty rules hash alike")
	}
}

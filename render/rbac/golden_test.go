package rbac

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/test/fixture"
)

var update = flag.Bool("update", false, "update golden files")

// goldenNamespace is the install namespace every golden case renders into.
const goldenNamespace = "operators"

// golden is everything this package renders for one CSV (sigs.k8s.io/yaml sorts its keys).
type golden struct {
	ServiceAccounts         []*corev1.ServiceAccount     `json:"serviceAccounts"`
	Roles                   []*rbacv1.Role               `json:"roles"`
	RoleBindings            []*rbacv1.RoleBinding        `json:"roleBindings"`
	ClusterRoles            []*rbacv1.ClusterRole        `json:"clusterRoles"`
	ClusterRoleBindings     []*rbacv1.ClusterRoleBinding `json:"clusterRoleBindings"`
	LiftedClusterRoles      []*rbacv1.ClusterRole        `json:"liftedClusterRoles"`
	LiftedBindings          []*rbacv1.ClusterRoleBinding `json:"liftedClusterRoleBindings"`
	TenantRoles             []*rbacv1.Role               `json:"tenantRoles"`
	TenantRoleBindings      []*rbacv1.RoleBinding        `json:"tenantRoleBindings"`
	ProvidedAPIs            string                       `json:"providedAPIs"`
	ProvidedAPIClusterRoles []*rbacv1.ClusterRole        `json:"providedAPIClusterRoles"`
	OperatorGroupRoles      []*rbacv1.ClusterRole        `json:"operatorGroupClusterRoles"`
}

var goldenCases = []struct {
	name string
	csv  string // under the corpus's operators (fixture.Corpus)
}{
	{name: "etcd-0.9.4", csv: "etcd/0.9.4/manifests/etcdoperator.v0.9.4.clusterserviceversion.yaml"},
	{name: "etcd-0.9.4-clusterwide", csv: "etcd/0.9.4-clusterwide/manifests/etcdoperator.v0.9.4-clusterwide.clusterserviceversion.yaml"},
	{name: "percona-server-mysql-operator-1.0.0", csv: "percona-server-mysql-operator/1.0.0/manifests/percona-server-mysql-operator.v1.0.0.clusterserviceversion.yaml"},
	{name: "oadp-operator-0.5.6", csv: "oadp-operator/0.5.6/manifests/oadp-operator.clusterserviceversion.yaml"},
}

// TestGolden renders testdata/<case>/csv.yaml (the RBAC-relevant part of a real CSV, extracted
// with -update) and compares with testdata/<case>/want.yaml; it also renders the full CSV from
// the real-catalog corpus and expects the same output.
func TestGolden(t *testing.T) {
	catalogs := filepath.Join(fixture.Corpus(t), "operators")
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.name)
			full := readCSV(t, filepath.Join(catalogs, tc.csv))
			if *update {
				writeYAML(t, filepath.Join(dir, "csv.yaml"), extract(full))
			}
			got := renderGolden(t, readCSV(t, filepath.Join(dir, "csv.yaml")))
			if *update {
				writeYAML(t, filepath.Join(dir, "want.yaml"), got)
			}
			want, err := os.ReadFile(filepath.Join(dir, "want.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(toYAML(t, got))); diff != "" {
				t.Errorf("render of csv.yaml differs from want.yaml (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(string(want), string(toYAML(t, renderGolden(t, full)))); diff != "" {
				t.Errorf("render of the full catalog CSV differs from want.yaml (-want +got):\n%s", diff)
			}
		})
	}
}

// renderGolden runs every renderer of the package on csv in goldenNamespace, lifting as for an
// AllNamespaces group, copying to namespace "tenant" and naming the OperatorGroup "og".
func renderGolden(t *testing.T, csv *v1alpha1.ClusterServiceVersion) *golden {
	t.Helper()
	csv.Namespace = goldenNamespace
	objs, err := ForCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	g := &golden{
		ServiceAccounts:         objs.ServiceAccounts,
		Roles:                   objs.Roles,
		RoleBindings:            objs.RoleBindings,
		ClusterRoles:            objs.ClusterRoles,
		ClusterRoleBindings:     objs.ClusterRoleBindings,
		ProvidedAPIs:            APISetString(ProvidedAPIs(csv)),
		ProvidedAPIClusterRoles: ProvidedAPIClusterRoles(csv),
	}
	g.LiftedClusterRoles, g.LiftedBindings = Lift(objs)
	g.TenantRoles, g.TenantRoleBindings = CopyToNamespace(objs, csv.Name, goldenNamespace, "tenant")
	og := &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: goldenNamespace}}
	g.OperatorGroupRoles = OperatorGroupClusterRoles(og, ProvidedAPIs(csv))
	return g
}

// extract keeps the parts of a CSV the renderers read.
func extract(full *v1alpha1.ClusterServiceVersion) *v1alpha1.ClusterServiceVersion {
	csv := &v1alpha1.ClusterServiceVersion{
		TypeMeta:   full.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{Name: full.Name},
	}
	for _, crd := range full.Spec.CustomResourceDefinitions.Owned {
		csv.Spec.CustomResourceDefinitions.Owned = append(csv.Spec.CustomResourceDefinitions.Owned,
			v1alpha1.CRDDescription{Name: crd.Name, Version: crd.Version, Kind: crd.Kind})
	}
	for _, svc := range full.Spec.APIServiceDefinitions.Owned {
		csv.Spec.APIServiceDefinitions.Owned = append(csv.Spec.APIServiceDefinitions.Owned,
			v1alpha1.APIServiceDescription{Name: svc.Name, Group: svc.Group, Version: svc.Version, Kind: svc.Kind})
	}
	csv.Spec.InstallStrategy.StrategyName = full.Spec.InstallStrategy.StrategyName
	csv.Spec.InstallStrategy.StrategySpec.Permissions = full.Spec.InstallStrategy.StrategySpec.Permissions
	csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions = full.Spec.InstallStrategy.StrategySpec.ClusterPermissions
	return csv
}

func readCSV(t *testing.T, path string) *v1alpha1.ClusterServiceVersion {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	csv := &v1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(raw, csv); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return csv
}

func toYAML(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func writeYAML(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, toYAML(t, v), 0o644); err != nil {
		t.Fatal(err)
	}
}

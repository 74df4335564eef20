package rbac_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/render/rbac"
)

func ExampleForCSV() {
	csv := &v1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: "demo.v1.0.0", Namespace: "ops"}}
	csv.Spec.InstallStrategy.StrategyName = v1alpha1.InstallStrategyNameDeployment
	perm := v1alpha1.StrategyDeploymentPermissions{
		ServiceAccountName: "demo-sa",
		Rules:              []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}},
	}
	csv.Spec.InstallStrategy.StrategySpec.Permissions = []v1alpha1.StrategyDeploymentPermissions{perm}
	csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions = []v1alpha1.StrategyDeploymentPermissions{perm}

	objs, err := rbac.ForCSV(csv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(objs.ServiceAccounts[0].Name)
	fmt.Println(objs.Roles[0].Name)
	fmt.Println(objs.ClusterRoles[0].Name)
	fmt.Println(objs.Roles[0].Labels[rbac.PermissionsHashLabel])
	// Output:
	// demo-sa
	// demo.v1.0.0-demo-sa-8w2obSZZNya5Rc0Yry0mI3qHtfFQjWcVr3pMxX
	// demo.v1.0.0-2yp0daMGer3obFlkzrD7tJoKKP4UJjW8pMoihi
	// 9b1l66XdBkgGyRsF8UTT7cJseCinXJQF3swGUU
}

// BenchmarkForCSV renders the RBAC of the largest golden CSV (oadp-operator 0.5.6).
func BenchmarkForCSV(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "oadp-operator-0.5.6", "csv.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	csv := &v1alpha1.ClusterServiceVersion{}
	if err := yaml.Unmarshal(raw, csv); err != nil {
		b.Fatal(err)
	}
	csv.Namespace = "operators"
	b.ReportAllocs()
	for b.Loop() {
		objs, err := rbac.ForCSV(csv)
		if err != nil {
			b.Fatal(err)
		}
		rbac.Lift(objs)
		rbac.ProvidedAPIClusterRoles(csv)
	}
}

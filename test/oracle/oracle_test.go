package oracle

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/operator-lifecycle-manager/pkg/controller/operators/olm/overrides/inject"
	olmresolver "github.com/operator-framework/operator-lifecycle-manager/pkg/controller/registry/resolver"
	olmhash "github.com/operator-framework/operator-lifecycle-manager/pkg/lib/kubernetes/pkg/util/hash"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/olm-render/olm-render/render/deployment"
	"github.com/olm-render/olm-render/render/rbac"
	"github.com/olm-render/olm-render/schemas/catalog"
)

var shared = filepath.Join("..", "..", "..", "shared", "catalogs")

// csvs loads every CSV of the real catalogs.
func csvs(t *testing.T) []*v1alpha1.ClusterServiceVersion {
	t.Helper()
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("the real catalogs must sit beside the checkout: %v", err)
	}
	var out []*v1alpha1.ClusterServiceVersion
	for _, p := range []string{"operators", "packagemanifests/enmasse", "bundles/etcd.0.9.0", "bundles/etcd.0.9.2"} {
		c, err := catalog.Load(filepath.Join(shared, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range c.Packages {
			for _, b := range pkg.Bundles {
				m, err := b.Manifests()
				if err != nil {
					t.Fatal(err)
				}
				csv := m.CSV.DeepCopy()
				csv.Namespace = "ops"
				out = append(out, csv)
			}
		}
	}
	return out
}

// ours strips what ExecutePlan and the adoption controller add after RBACForClusterServiceVersion.
func strip(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	delete(out, "olm.managed")
	return out
}

// TestRBACAgainstOLM compares every ServiceAccount, Role, RoleBinding, ClusterRole and
// ClusterRoleBinding with OLM's RBACForClusterServiceVersion.
func TestRBACAgainstOLM(t *testing.T) {
	var compared, equal int
	for _, csv := range csvs(t) {
		theirs, err := olmresolver.RBACForClusterServiceVersion(csv)
		if err != nil {
			t.Errorf("%s: OLM: %v", csv.Name, err)
			continue
		}
		ours, err := rbac.ForCSV(csv)
		if err != nil {
			t.Errorf("%s: olm-render: %v", csv.Name, err)
			continue
		}
		type obj struct {
			Labels   map[string]string
			Rules    []rbacv1.PolicyRule
			Subjects []rbacv1.Subject
			RoleRef  rbacv1.RoleRef
		}
		want, got := map[string]obj{}, map[string]obj{}
		for sa, p := range theirs {
			if sa != "default" {
				want["ServiceAccount/"+sa] = obj{}
			}
			for _, r := range p.Roles {
				want["Role/"+r.Name] = obj{Labels: r.Labels, Rules: r.Rules}
			}
			for _, b := range p.RoleBindings {
				want["RoleBinding/"+b.Name] = obj{Labels: b.Labels, Subjects: b.Subjects, RoleRef: b.RoleRef}
			}
			for _, r := range p.ClusterRoles {
				want["ClusterRole/"+r.Name] = obj{Labels: r.Labels, Rules: r.Rules}
			}
			for _, b := range p.ClusterRoleBindings {
				want["ClusterRoleBinding/"+b.Name] = obj{Labels: b.Labels, Subjects: b.Subjects, RoleRef: b.RoleRef}
			}
		}
		for _, sa := range ours.ServiceAccounts {
			got["ServiceAccount/"+sa.Name] = obj{}
		}
		for _, r := range ours.Roles {
			got["Role/"+r.Name] = obj{Labels: strip(r.Labels), Rules: r.Rules}
		}
		for _, b := range ours.RoleBindings {
			got["RoleBinding/"+b.Name] = obj{Labels: strip(b.Labels), Subjects: b.Subjects, RoleRef: b.RoleRef}
		}
		for _, r := range ours.ClusterRoles {
			got["ClusterRole/"+r.Name] = obj{Labels: strip(r.Labels), Rules: r.Rules}
		}
		for _, b := range ours.ClusterRoleBindings {
			got["ClusterRoleBinding/"+b.Name] = obj{Labels: strip(b.Labels), Subjects: b.Subjects, RoleRef: b.RoleRef}
		}
		for _, k := range slices.Sorted(maps.Keys(want)) {
			compared++
			if diff := cmp.Diff(want[k], got[k]); diff != "" {
				t.Errorf("%s %s (-OLM +olm-render):\n%s", csv.Name, k, diff)
				continue
			}
			equal++
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: %s is not created by OLM", csv.Name, k)
			}
		}
	}
	t.Logf("RBAC: %d of %d objects equal to OLM's", equal, compared)
	if compared < 500 {
		t.Errorf("only %d objects compared", compared)
	}
}

// config is a Subscription spec.config exercising every override.
func config() *v1alpha1.SubscriptionConfig {
	return &v1alpha1.SubscriptionConfig{
		Env:          []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "debug"}, {Name: "HTTP_PROXY", Value: "http://proxy:3128"}},
		EnvFrom:      []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "extra"}}}},
		Volumes:      []corev1.Volume{{Name: "extra", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "extra", MountPath: "/extra"}},
		Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "operators", Effect: corev1.TaintEffectNoSchedule}},
		Resources:    &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
		NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}},
		Annotations: map[string]string{"team": "platform"},
	}
}

// olmDeployment builds a Deployment as OLM's install strategy and overrides initializer do,
// with OLM's own functions (deploymentForSpec's steps, inject.*, HashDeploymentSpec).
func olmDeployment(t *testing.T, csv *v1alpha1.ClusterServiceVersion, d v1alpha1.StrategyDeploymentSpec, c *v1alpha1.SubscriptionConfig) *appsv1.Deployment {
	t.Helper()
	dep := &appsv1.Deployment{Spec: *d.Spec.DeepCopy()}
	dep.Name, dep.Namespace = d.Name, csv.Namespace
	annotations := maps.Clone(dep.Spec.Template.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	maps.Copy(annotations, csv.Annotations)
	if len(annotations) > 0 {
		dep.Spec.Template.Annotations = annotations
	}
	pod := &dep.Spec.Template.Spec
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if c != nil {
		must(inject.InjectEnvIntoDeployment(pod, c.Env))
		must(inject.InjectEnvFromIntoDeployment(pod, c.EnvFrom))
		must(inject.InjectVolumesIntoDeployment(pod, c.Volumes))
		must(inject.InjectVolumeMountsIntoDeployment(pod, c.VolumeMounts))
		must(inject.InjectTolerationsIntoDeployment(pod, c.Tolerations))
		must(inject.InjectResourcesIntoDeployment(pod, c.Resources))
		must(inject.InjectNodeSelectorIntoDeployment(pod, c.NodeSelector))
		must(inject.OverrideDeploymentAffinity(pod, c.Affinity))
		must(inject.InjectAnnotationsIntoDeployment(dep, c.Annotations))
	}
	must(inject.InjectEnvIntoDeployment(pod, []corev1.EnvVar{{Name: "OPERATOR_CONDITION_NAME", Value: csv.Name}}))
	limit := int32(1)
	dep.Spec.RevisionHistoryLimit = &limit
	h, err := olmhash.DeepHashObject(&dep.Spec)
	must(err)
	dep.Labels = map[string]string{"olm.deployment-spec-hash": h}
	return dep
}

// TestDeploymentsAgainstOLM compares every Deployment's spec and spec-hash label, without and
// with a Subscription config using every override, with OLM's functions.
func TestDeploymentsAgainstOLM(t *testing.T) {
	var compared, equal int
	for _, csv := range csvs(t) {
		for _, c := range []*v1alpha1.SubscriptionConfig{nil, config()} {
			ours, err := deployment.ForCSV(deployment.Input{CSV: csv, Config: c})
			if err != nil {
				t.Errorf("%s: %v", csv.Name, err)
				continue
			}
			for i, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
				theirs := olmDeployment(t, csv, d, c)
				compared++
				diff := cmp.Diff(theirs.Spec, ours[i].Spec)
				if h := ours[i].Labels["olm.deployment-spec-hash"]; diff == "" && h != theirs.Labels["olm.deployment-spec-hash"] {
					diff = "spec hash " + h + " != " + theirs.Labels["olm.deployment-spec-hash"]
				}
				if diff != "" {
					t.Errorf("%s deployment %s (config %v) (-OLM +olm-render):\n%s", csv.Name, d.Name, c != nil, diff)
					continue
				}
				equal++
			}
		}
	}
	t.Logf("Deployments: %d of %d equal to OLM's (spec and olm.deployment-spec-hash)", equal, compared)
}

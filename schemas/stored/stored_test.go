package stored

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCSVDefaults: the CSV CRD's defaults reach a bundle's CSV as the API server stores it.
func TestCSVDefaults(t *testing.T) {
	csv := &v1alpha1.ClusterServiceVersion{
		ObjectMeta: metav1.ObjectMeta{Name: "op.v1", Namespace: "ops"},
		Spec: v1alpha1.ClusterServiceVersionSpec{
			InstallStrategy: v1alpha1.NamedInstallStrategy{StrategyName: "deployment", StrategySpec: v1alpha1.StrategyDetailsDeployment{
				DeploymentSpecs: []v1alpha1.StrategyDeploymentSpec{{Name: "op", Spec: appsv1.DeploymentSpec{
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "op"}},
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "op", Image: "op:v1", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080}},
					}}}},
				}}},
			}},
			WebhookDefinitions: []v1alpha1.WebhookDescription{{GenerateName: "v.example.com", Type: v1alpha1.ValidatingAdmissionWebhook, DeploymentName: "op"}},
		},
	}
	got, err := CSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	ports := got.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Ports
	if want := []corev1.ContainerPort{{Name: "metrics", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}; !cmp.Equal(ports, want) {
		t.Errorf("ports: %s", cmp.Diff(want, ports))
	}
	if got.Spec.WebhookDefinitions[0].ContainerPort != 443 {
		t.Errorf("webhook containerPort %d, want the CRD's default 443", got.Spec.WebhookDefinitions[0].ContainerPort)
	}
	// The input is left alone.
	if csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Ports[0].Protocol != "" {
		t.Error("CSV changed its argument")
	}
}

// TestApply: nulls the schema does not allow are dropped, unknown fields pruned, other kinds
// left alone.
func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want map[string]any
		ours bool
	}{{
		name: "operator group: upgrade strategy defaulted, unknown field pruned",
		in:   map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "spec": map[string]any{"unknown": "x"}},
		// (The CRD's schema has upgradeStrategy as a string; the Go type encodes it as one.)
		want: map[string]any{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "spec": map[string]any{"upgradeStrategy": "Default"}},
		ours: true,
	}, {
		name: "subscription: a null the schema does not allow",
		in:   map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription", "spec": map[string]any{"name": "p", "source": "s", "sourceNamespace": "olm", "channel": nil}},
		want: map[string]any{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription", "spec": map[string]any{"name": "p", "source": "s", "sourceNamespace": "olm"}},
		ours: true,
	}, {
		name: "another kind",
		in:   map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": nil}},
		want: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"a": nil}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ours, err := Apply(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if ours != tc.ours {
				t.Errorf("Apply reports %v, want %v", ours, tc.ours)
			}
			if diff := cmp.Diff(tc.want, tc.in); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

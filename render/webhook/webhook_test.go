package webhook

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/test/fixture"
)

var update = flag.Bool("update", false, "update golden files")

// bundle loads a real bundle's manifests.
func bundle(t *testing.T, path, name string) *catalog.Manifests {
	t.Helper()
	c, err := catalog.Load(filepath.Join(fixture.Corpus(t), path))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Packages {
		if b := p.Bundle(name); b != nil {
			m, err := b.Manifests()
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("%s has no bundle %s", path, name)
	return nil
}

// TestGolden renders the webhook and APIService objects of the real webhook operators with
// each certificate provider, and with OLM's own certificates. The goldens hold only what this
// package adds: the objects, the CRD conversion settings and the Deployments' certificate
// volumes and mounts (with OLM's own certificates, also what is marked generated on them).
func TestGolden(t *testing.T) {
	tests := []struct {
		name, path, bundle string
		targets            []string
		provider           Provider
	}{
		{"kube-green", "operators/kube-green", "kube-green.v0.7.1", []string{""}, CertManager},
		{"kube-green-service-ca", "operators/kube-green", "kube-green.v0.7.1", []string{""}, ServiceCA},
		{"marin3r-own", "operators/marin3r", "marin3r.v0.13.1", []string{"ops"}, CertManager},
		{"self-node-remediation", "operators/self-node-remediation", "self-node-remediation.v0.13.0", []string{""}, CertManager},
		{"service-binding-operator", "operators/service-binding-operator", "service-binding-operator.v1.4.0", []string{""}, CertManager},
		{"eginnovations-conversion", "operators/eginnovations-operator", "eginnovations-operator.v0.0.11", []string{""}, CertManager},
		{"webhook-operator-fbc", "fbc/operator-registry/fbc-dir/file-based-catalog", "webhook-operator.v0.0.1", []string{""}, CertManager},
		{"enmasse-apiservices", "packagemanifests/enmasse", "enmasse.0.30.2", []string{""}, CertManager},
		{"enmasse-apiservices-service-ca", "packagemanifests/enmasse", "enmasse.0.30.2", []string{""}, ServiceCA},
		{"kube-green-olm", "operators/kube-green", "kube-green.v0.7.1", []string{""}, OLM},
		{"marin3r-own-olm", "operators/marin3r", "marin3r.v0.13.1", []string{"ops"}, OLM},
		{"eginnovations-conversion-olm", "operators/eginnovations-operator", "eginnovations-operator.v0.0.11", []string{""}, OLM},
		{"enmasse-apiservices-olm", "packagemanifests/enmasse", "enmasse.0.30.2", []string{""}, OLM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := bundle(t, tt.path, tt.bundle)
			csv := m.CSV.DeepCopy()
			csv.Namespace = "ops"
			if err := Validate(csv); err != nil {
				t.Fatalf("validate: %v", err)
			}
			res, err := Render(Input{CSV: csv, Targets: tt.targets, Provider: tt.provider})
			if err != nil {
				t.Fatal(err)
			}
			var docs []any
			for _, o := range res.Objects {
				docs = append(docs, o)
			}
			for _, o := range m.Objects {
				if o.GetKind() != "CustomResourceDefinition" {
					continue
				}
				crd := o.DeepCopy()
				if err := res.PatchCRD(crd); err != nil {
					t.Fatal(err)
				}
				if conv, ok, _ := unstructured.NestedMap(crd.Object, "spec", "conversion"); ok {
					docs = append(docs, map[string]any{"crd": crd.GetName(), "annotations": crd.GetAnnotations(), "conversion": conv})
				}
			}
			for _, d := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
				spec := d.Spec.DeepCopy()
				if err := res.MutateDeployment(d.Name, spec); err != nil {
					t.Fatal(err)
				}
				if !res.certDeployments[d.Name] {
					continue
				}
				doc := deploymentCerts(d.Name, spec)
				if tt.provider == OLM {
					dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: d.Name, Labels: map[string]string{"olm.deployment-spec-hash": "computed"}}, Spec: *spec}
					res.MarkDeployment(dep)
					doc["labels"], doc["annotations"], doc["templateAnnotations"] = dep.Labels, dep.Annotations, dep.Spec.Template.Annotations
				}
				docs = append(docs, doc)
			}
			var b bytes.Buffer
			for _, d := range docs {
				if o, ok := d.(runtime.Object); ok {
					m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
					if err != nil {
						t.Fatal(err)
					}
					if meta, ok := m["metadata"].(map[string]any); ok {
						delete(meta, "creationTimestamp")
					}
					delete(m, "status")
					d = m
				}
				out, err := yaml.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("---\n")
				b.Write(out)
			}
			path := filepath.Join("testdata", tt.name+".yaml")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s differs; rerun with -update and review", path)
			}
		})
	}
}

func deploymentCerts(name string, spec *appsv1.DeploymentSpec) map[string]any {
	var mounts []any
	for _, c := range spec.Template.Spec.Containers {
		mounts = append(mounts, map[string]any{"container": c.Name, "volumeMounts": c.VolumeMounts})
	}
	return map[string]any{"deployment": name, "serviceAccountName": spec.Template.Spec.ServiceAccountName,
		"volumes": spec.Template.Spec.Volumes, "containers": mounts}
}

func TestNoProvider(t *testing.T) {
	m := bundle(t, "operators/kube-green", "kube-green.v0.7.1")
	csv := m.CSV.DeepCopy()
	csv.Namespace = "ops"
	_, err := Render(Input{CSV: csv, Targets: []string{""}, Provider: None})
	if err == nil || !strings.Contains(err.Error(), "ClusterServiceVersion ops/kube-green.v0.7.1 needs serving certificates for deployments kube-green-controller-manager") {
		t.Fatalf("error %v", err)
	}
}

// TestParseProvider: a user chooses cert-manager, openshift-service-ca, none or nothing (empty);
// OLM's own certificates are no user's choice.
func TestParseProvider(t *testing.T) {
	for _, in := range []string{"", "cert-manager", "openshift-service-ca", "none"} {
		if got, err := ParseProvider(in); err != nil || string(got) != in {
			t.Errorf("ParseProvider(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"vault", "olm"} {
		if _, err := ParseProvider(in); err == nil || !strings.Contains(err.Error(), "use cert-manager, openshift-service-ca or none") {
			t.Errorf("ParseProvider(%q): error %v", in, err)
		}
	}
}

// TestValidate holds OLM's messages for invalid webhook descriptions.
func TestValidate(t *testing.T) {
	rule := func(groups, resources []string) []admissionRule {
		return []admissionRule{{APIGroups: groups, Resources: resources}}
	}
	tests := []struct {
		name  string
		descs []v1alpha1.WebhookDescription
		modes []v1alpha1.InstallMode
		owned []string
		want  string
	}{
		{"all groups", []v1alpha1.WebhookDescription{desc("a", v1alpha1.ValidatingAdmissionWebhook, rule([]string{"*"}, []string{"pods"}))}, nil, nil, "webhook rules cannot include all groups"},
		{"OLM group", []v1alpha1.WebhookDescription{desc("a", v1alpha1.ValidatingAdmissionWebhook, rule([]string{"operators.coreos.com"}, []string{"*"}))}, nil, nil, "webhook rules cannot include the OLM group"},
		{"webhook configurations", []v1alpha1.WebhookDescription{desc("a", v1alpha1.MutatingAdmissionWebhook, rule([]string{"admissionregistration.k8s.io"}, []string{"*"}))}, nil, nil,
			"webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources"},
		{"repeated names", []v1alpha1.WebhookDescription{desc("a", v1alpha1.ValidatingAdmissionWebhook, nil), desc("a", v1alpha1.MutatingAdmissionWebhook, nil)}, nil, nil, "CSV contains repeated WebhookDescription name"},
		{"conversion needs AllNamespaces only", []v1alpha1.WebhookDescription{conversion("c", "widgets.example.com")},
			[]v1alpha1.InstallMode{{Type: v1alpha1.InstallModeTypeAllNamespaces, Supported: true}, {Type: v1alpha1.InstallModeTypeOwnNamespace, Supported: true}}, []string{"widgets.example.com"},
			"unable to manage conversion webhook: CSVs with conversion webhooks must support only AllNamespaces"},
		{"conversion CRD not owned", []v1alpha1.WebhookDescription{conversion("c", "gadgets.example.com")}, nil, []string{"widgets.example.com"}, "csv x.v1 does not own CRD gadgets.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csv := &v1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: "x.v1"}}
			csv.Spec.WebhookDefinitions = tt.descs
			csv.Spec.InstallModes = tt.modes
			for _, o := range tt.owned {
				csv.Spec.CustomResourceDefinitions.Owned = append(csv.Spec.CustomResourceDefinitions.Owned, v1alpha1.CRDDescription{Name: o})
			}
			err := Validate(csv)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	if !slices.Contains([]string{Reason}, "InvalidWebhookDescription") {
		t.Error("reason")
	}
}

package olmv1

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/test/fixture"
)

// webhookOperator reads the corpus's webhook-operator v0.0.5 (olmv1-golden): AllNamespaces
// only, a validating, a mutating and a conversion webhook (in that order: conversion [0],
// mutating [1], validating [2]), one deployment, one CRD.
func webhookOperator(t *testing.T) *bundle {
	t.Helper()
	cat, err := catalog.Load(filepath.Join(fixture.Corpus(t), "olmv1-golden", "bundles", "webhook-operator.v0.0.5"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := readBundle(cat.Packages[0].Bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	if reasons := bundleRules(b, webhook.CertManager); len(reasons) > 0 {
		t.Fatalf("webhook-operator as shipped: %v", reasons)
	}
	return b
}

// TestBundleRules breaks webhook-operator, a real bundle v1 installs, one rule of
// operator-controller's at a time (the rules the corpus has no bundle for), and checks the
// reason: its code, the file, object and field it names, v1's rule and message.
func TestBundleRules(t *testing.T) {
	const csvFile, csvObject = "webhook-operator.clusterserviceversion.yaml", "ClusterServiceVersion/webhook-operator.v0.0.5"
	const crdFile = "webhook.operators.coreos.io_webhooktests.yaml"
	tests := []struct {
		name                               string
		break_                             func(b *bundle)
		provider                           webhook.Provider
		code                               Code
		file, object, field, rule, message string
	}{
		{name: "conversion webhook in a bundle that supports OwnNamespace", code: CodeConversionWebhook,
			break_: func(b *bundle) { b.csv.Spec.InstallModes[0].Supported = true },
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions[0]", rule: "CheckConversionWebhookSupport",
			message: `bundle contains conversion webhook "cwebhooktests.kb.io" and supports install modes [AllNamespaces OwnNamespace]`},
		{name: "rule on every API group", code: CodeWebhookRules,
			break_: func(b *bundle) { b.csv.Spec.WebhookDefinitions[2].Rules[0].APIGroups = []string{"*"} },
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions[2].rules[0].apiGroups", rule: "CheckWebhookRules",
			message: `admission webhook rules cannot reference API group "*"`},
		{name: "rule on OLM v1's API group", code: CodeWebhookRules,
			break_: func(b *bundle) {
				b.csv.Spec.WebhookDefinitions[1].Rules[0].APIGroups = []string{"olm.operatorframework.io"}
			},
			file: csvFile, object: csvObject, field: "spec.webhookdefinitions[1].rules[0].apiGroups", rule: "CheckWebhookRules",
			message: `cannot reference API group "olm.operatorframework.io"`},
		{name: "rule on webhook configurations", code: CodeWebhookRules,
			break_: func(b *bundle) {
				b.csv.Spec.WebhookDefinitions[2].Rules = []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{
					APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"ValidatingWebhookConfigurations"}}}}
			},
			file: csvFile, object: csvObject, field: "spec.webhookdefinitions[2].rules[0].resources", rule: "CheckWebhookRules",
			message: `cannot reference resource "ValidatingWebhookConfigurations" for API group "admissionregistration.k8s.io"`},
		{name: "webhook of a deployment the CSV does not define", code: CodeWebhookDeployment,
			break_: func(b *bundle) { b.csv.Spec.WebhookDefinitions[1].DeploymentName = "gone" },
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions[1].deploymentName", rule: "CheckWebhookDeploymentReferentialIntegrity",
			message: "webhook of type 'MutatingAdmissionWebhook' with name 'mwebhooktest-v1.kb.io' references non-existent deployment 'gone'"},
		{name: "two webhooks of a type with one name", code: CodeWebhookName,
			break_: func(b *bundle) {
				b.csv.Spec.WebhookDefinitions = append(b.csv.Spec.WebhookDefinitions, b.csv.Spec.WebhookDefinitions[2])
			},
			file: csvFile, object: csvObject, field: "spec.webhookdefinitions[3].generateName", rule: "CheckWebhookNameUniqueness",
			message: "duplicate webhook 'vwebhooktest-v1.kb.io' of type 'ValidatingAdmissionWebhook'"},
		{name: "webhook name that is no DNS-1123 subdomain", code: CodeWebhookName,
			break_: func(b *bundle) { b.csv.Spec.WebhookDefinitions[2].GenerateName = "Validate_Me" },
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions[2].generateName", rule: "CheckWebhookNameIsDNS1123SubDomain",
			message: "webhook of type 'ValidatingAdmissionWebhook' has invalid name 'Validate_Me'"},
		{name: "webhook without containerPort", code: CodeWebhookPort,
			break_: func(b *bundle) { b.csv.Spec.WebhookDefinitions[1].ContainerPort = 0 },
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions[1].containerPort", rule: "generators.go",
			message: "writes port 0 into the webhook's clientConfig"},
		{name: "two deployments with one name", code: CodeDeploymentName,
			break_: func(b *bundle) {
				s := &b.csv.Spec.InstallStrategy.StrategySpec
				s.DeploymentSpecs = append(s.DeploymentSpecs, s.DeploymentSpecs[0])
			},
			file: csvFile, object: csvObject, field: "spec.install.spec.deployments[1].name", rule: "CheckDeploymentSpecUniqueness",
			message: "cluster service version contains duplicate strategy deployment spec 'webhook-operator-controller-manager'"},
		{name: "deployment name that is no DNS-1123 subdomain", code: CodeDeploymentName,
			break_: func(b *bundle) {
				b.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Name = "Manager"
				for i := range b.csv.Spec.WebhookDefinitions {
					b.csv.Spec.WebhookDefinitions[i].DeploymentName = "Manager"
				}
			},
			file: csvFile, object: csvObject, field: "spec.install.spec.deployments[0].name", rule: "CheckDeploymentNameIsDNS1123SubDomain",
			message: "invalid cluster service version strategy deployment name 'Manager'"},
		{name: "owned CRD the bundle does not ship", code: CodeOwnedCRD,
			break_: func(b *bundle) {
				o := &b.csv.Spec.CustomResourceDefinitions.Owned
				*o = append(*o, v1alpha1.CRDDescription{Name: "gizmos.example.com", Kind: "Gizmo", Version: "v1"})
			},
			file: csvFile, object: csvObject, field: "spec.customresourcedefinitions.owned[2]", rule: "CheckOwnedCRDExistence",
			message: "cluster service definition references owned custom resource definition 'gizmos.example.com' not found in bundle"},
		{name: "a CRD shipped twice", code: CodeOwnedCRD,
			break_: func(b *bundle) { b.crds = append(b.crds, b.crds[0]) },
			file:   crdFile, object: "CustomResourceDefinition/webhooktests.webhook.operators.coreos.io", rule: "CheckCRDResourceUniqueness",
			message: "bundle contains duplicate custom resource definition 'webhooktests.webhook.operators.coreos.io'"},
		{name: "conversion webhook for a CRD the CSV does not own", code: CodeConversionCRD,
			break_: func(b *bundle) {
				wh := &b.csv.Spec.WebhookDefinitions[0]
				wh.ConversionCRDs = append(wh.ConversionCRDs, "gizmos.example.com")
			},
			file: csvFile, object: csvObject, field: "spec.webhookdefinitions[0].conversionCRDs[1]", rule: "CheckConversionWebhooksReferenceOwnedCRDs",
			message: "conversion webhook 'cwebhooktests.kb.io' references custom resource definition 'gizmos.example.com' not owned bundle"},
		{name: "two conversion webhooks for one CRD", code: CodeConversionCRD,
			break_: func(b *bundle) {
				wh := b.csv.Spec.WebhookDefinitions[0]
				wh.GenerateName = "cwebhooktests2.kb.io"
				b.csv.Spec.WebhookDefinitions = append(b.csv.Spec.WebhookDefinitions, wh)
			},
			file: csvFile, object: csvObject, field: "spec.webhookdefinitions", rule: "CheckConversionWebhookCRDReferenceUniqueness",
			message: "conversion webhooks [cwebhooktests.kb.io,cwebhooktests2.kb.io] reference same custom resource definition 'webhooktests.webhook.operators.coreos.io'"},
		{name: "CRD behind a conversion webhook that preserves unknown fields", code: CodePreserveUnknownFields,
			break_: func(b *bundle) { b.crds[0].Spec.PreserveUnknownFields = true },
			file:   crdFile, object: "CustomResourceDefinition/webhooktests.webhook.operators.coreos.io", field: "spec.preserveUnknownFields", rule: "BundleCRDGenerator",
			message: "must have .spec.preserveUnknownFields set to false"},
		{name: "object of a kind registry+v1 does not support", code: CodeUnsupportedObject,
			break_: func(b *bundle) {
				b.others = append(b.others, catalog.Object{Origin: diag.Origin{File: "manifests/job.yaml"},
					Unstructured: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "migrate"}}}})
			},
			file: "manifests/job.yaml", object: "Job/migrate", field: "kind", rule: "CheckObjectSupport",
			message: `unsupported resource "migrate" with kind "Job"`},
		{name: "owned APIService", code: CodeAPIService,
			break_: func(b *bundle) {
				b.csv.Spec.APIServiceDefinitions.Owned = []v1alpha1.APIServiceDescription{{Group: "gizmos.example.com", Version: "v1", Kind: "Gizmo", DeploymentName: "webhook-operator-controller-manager"}}
			},
			file: csvFile, object: csvObject, field: "spec.apiservicedefinitions.owned[0]", rule: "applier/provider.go",
			message: "owns APIService v1.gizmos.example.com"},
		{name: "webhooks without a certificate provider", code: CodeNoCertProvider, provider: webhook.None,
			break_: func(*bundle) {},
			file:   csvFile, object: csvObject, field: "spec.webhookdefinitions", rule: "applier/provider.go",
			message: "defines 3 webhooks, and operator-controller runs with no certificate provider"},
		{name: "a v1beta1 CRD", code: CodeLegacyCRD,
			break_: func(b *bundle) { b.crds[0].APIVersion = crdV1beta1 },
			file:   crdFile, object: "CustomResourceDefinition/webhooktests.webhook.operators.coreos.io", field: "apiVersion", rule: "source.go",
			message: "Kubernetes serves it only before 1.22"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := webhookOperator(t)
			tt.break_(b)
			provider := tt.provider
			if provider == "" {
				provider = webhook.CertManager
			}
			reasons := bundleRules(b, provider)
			i := slices.IndexFunc(reasons, func(r Reason) bool { return r.Code == tt.code && strings.Contains(r.Message, tt.message) })
			if i < 0 {
				t.Fatalf("no %s reason saying %q: %v", tt.code, tt.message, reasons)
			}
			checkReason(t, reasons[i], tt.file, tt.object, tt.field, tt.rule, tt.message)
		})
	}
}

// TestModeRules checks the install-mode rules against what the bundle supports, what the
// OperatorGroup asks and the gate.
func TestModeRules(t *testing.T) {
	only := func(modes ...v1alpha1.InstallModeType) func(*bundle) {
		return func(b *bundle) {
			b.csv.Spec.InstallModes = nil
			for _, m := range installable {
				b.csv.Spec.InstallModes = append(b.csv.Spec.InstallModes, v1alpha1.InstallMode{Type: m, Supported: slices.Contains(modes, m)})
			}
			b.csv.Spec.InstallModes = append(b.csv.Spec.InstallModes, v1alpha1.InstallMode{Type: v1alpha1.InstallModeTypeMultiNamespace, Supported: slices.Contains(modes, v1alpha1.InstallModeTypeMultiNamespace)})
		}
	}
	all := scope{mode: v1alpha1.InstallModeTypeAllNamespaces}
	own := scope{mode: v1alpha1.InstallModeTypeOwnNamespace, watch: "ns"}
	single := scope{mode: v1alpha1.InstallModeTypeSingleNamespace, watch: "other"}
	tests := []struct {
		name    string
		modes   func(*bundle)
		scope   scope
		gates   []Gate
		gate    Gate
		message string
	}{
		{"All in All", only(v1alpha1.InstallModeTypeAllNamespaces), all, nil, "", ""},
		{"Multi only", only(v1alpha1.InstallModeTypeMultiNamespace), all, nil, "", "operator-controller installs a bundle only in one of [AllNamespaces SingleNamespace OwnNamespace]"},
		{"All asked of an Own bundle", only(v1alpha1.InstallModeTypeOwnNamespace), all, Gates, "", "watches all namespaces, and the bundle supports only [OwnNamespace]"},
		{"Own without the gate, All supported", only(v1alpha1.InstallModeTypeAllNamespaces, v1alpha1.InstallModeTypeOwnNamespace), own, nil, SingleOwnNamespaceInstallSupport, "installs the bundle for all namespaces instead"},
		{"Own without the gate, All unsupported", only(v1alpha1.InstallModeTypeOwnNamespace), own, nil, SingleOwnNamespaceInstallSupport, "refuses a bundle that does not support AllNamespaces"},
		{"Own with the gate", only(v1alpha1.InstallModeTypeOwnNamespace), own, Gates, "", ""},
		{"Single asked of an Own bundle", only(v1alpha1.InstallModeTypeOwnNamespace), single, Gates, "", "asks for SingleNamespace (watching other), which the bundle does not support"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := webhookOperator(t)
			tt.modes(b)
			reasons := modeRules(b, tt.scope, Options{Gates: tt.gates})
			if tt.message == "" {
				if len(reasons) > 0 {
					t.Fatalf("reasons %v", reasons)
				}
				return
			}
			if len(reasons) != 1 || reasons[0].Code != CodeInstallMode || reasons[0].Gate != tt.gate || !strings.Contains(reasons[0].Message, tt.message) {
				t.Fatalf("reasons %v, want one install-mode reason (gate %q) saying %q", reasons, tt.gate, tt.message)
			}
		})
	}
}

// TestDependencies checks the dependency reasons of real bundles: where each property was
// declared (the CSV's required CRD, metadata/dependencies.yaml, an FBC bundle) and what it asks.
func TestDependencies(t *testing.T) {
	tests := []struct {
		name, catalog, bundle        string
		n                            int
		file, object, field, message string
	}{
		{"olm.constraint and olm.gvk in dependencies.yaml", "bundles/etcd.0.9.2", "etcdoperator.v0.9.2", 2,
			"etcd.0.9.2/metadata/dependencies.yaml", `bundle "etcdoperator.v0.9.2"`, "dependencies", `declares olm.constraint {"cel":`},
		{"olm.gvk.required in a file-based catalog", "fbc/community-operators-prod/catalogs/v4.16", "shipwright-operator.v0.13.0", 2,
			"v4.16/shipwright-operator/catalog.yaml", `bundle "shipwright-operator.v0.13.0"`, "properties", "declares olm.gvk.required on the Certificate API (cert-manager.io/v1 Certificate)"},
		{"olm.package.required in a file-based catalog", "fbc/community-operators-prod/catalogs/v4.18", "", 1,
			"v4.18/alloydb-omni-operator/catalog.yaml", "", "properties", "declares olm.package.required on package cert-manager >=1.12.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := catalog.Load(filepath.Join(fixture.Corpus(t), tt.catalog))
			if err != nil {
				t.Fatal(err)
			}
			b := findBundle(t, cat, tt.bundle, tt.message)
			var csv *v1alpha1.ClusterServiceVersion
			var origin diag.Origin
			if m, err := b.Manifests(); err == nil {
				csv, origin = m.CSV, m.CSVOrigin
			}
			reasons := dependencies(b, csv, origin)
			if len(reasons) < tt.n {
				t.Fatalf("%d reasons, want at least %d: %v", len(reasons), tt.n, reasons)
			}
			i := slices.IndexFunc(reasons, func(r Reason) bool { return strings.Contains(r.Message, tt.message) })
			if i < 0 {
				t.Fatalf("no reason saying %q: %v", tt.message, reasons)
			}
			checkReason(t, reasons[i], tt.file, tt.object, tt.field, ruleDependency, tt.message)
		})
	}
}

// findBundle returns the named bundle, or (name "") the first whose dependencies say message.
func findBundle(t *testing.T, cat *catalog.Catalog, name, message string) *catalog.Bundle {
	t.Helper()
	for _, p := range cat.Packages {
		for _, b := range p.Bundles {
			if b.Name == name {
				return b
			}
			if name == "" && slices.ContainsFunc(dependencies(b, nil, diag.Origin{}), func(r Reason) bool { return strings.Contains(r.Message, message) }) {
				return b
			}
		}
	}
	t.Fatalf("no bundle %q", name)
	return nil
}

package olmv1

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/olm-render/olm-render/render/webhook"
)

// The rules of operator-controller v1.11.0 a bundle must satisfy, each a function of the bundle
// (and of what the render asks of it) returning the reasons it fails them, in the order v1
// evaluates them: the manifest provider (applier/provider.go), then the bundle validators
// (rukpak/render/registryv1/validators), then the generators.

// Where the rules live in operator-controller.
const (
	ruleProvider   = "applier/provider.go RegistryV1ManifestProvider.Get"
	ruleValidators = "rukpak/render/registryv1/validators/validator.go "
	ruleGenerators = "rukpak/render/registryv1/generators/generators.go "
	ruleTargets    = "rukpak/render/render.go validateTargetNamespaces"
)

// bundleRules are the rules that depend on the bundle alone (and the certificate provider).
func bundleRules(b *bundle, provider webhook.Provider) []Reason {
	var out []Reason
	for _, rule := range []func(*bundle) []Reason{
		apiServices, deploymentNames, crdsShipped, conversionWebhookModes, webhookDeployments,
		webhookNames, conversionCRDs, webhookRules, objectKinds, webhookPorts, preserveUnknownFields,
		legacyCRDs,
	} {
		out = append(out, rule(b)...)
	}
	return append(out, certProvider(b, provider)...)
}

// reason is a reason about a field of the CSV.
func (b *bundle) reason(code Code, field, rule, format string, args ...any) Reason {
	return Reason{Code: code, Origin: b.csvOrigin, Object: b.csvObject(), Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// apiServices: v1.11 installs no bundle that owns an APIService.
func apiServices(b *bundle) []Reason {
	var out []Reason
	for i, api := range b.csv.Spec.APIServiceDefinitions.Owned {
		out = append(out, b.reason(CodeAPIService, fmt.Sprintf("spec.apiservicedefinitions.owned[%d]", i), ruleProvider,
			"owns APIService %s.%s (%s, served by deployment %s): operator-controller refuses bundles that own APIServices (unsupported bundle: apiServiceDefintions are not supported)",
			api.Version, api.Group, api.Kind, api.DeploymentName))
	}
	return out
}

// certProvider: webhooks need the certificate provider operator-controller runs with.
func certProvider(b *bundle, provider webhook.Provider) []Reason {
	if provider != webhook.None || len(b.csv.Spec.WebhookDefinitions) == 0 {
		return nil
	}
	return []Reason{b.reason(CodeNoCertProvider, "spec.webhookdefinitions", ruleProvider,
		"defines %d webhooks, and operator-controller runs with no certificate provider (unsupported bundle: webhookDefinitions are not supported): run it with cert-manager or OpenShift's service CA (--cert-provider)",
		len(b.csv.Spec.WebhookDefinitions))}
}

// deploymentField is the field of the i-th deployment of the install strategy.
func deploymentField(i int) string { return fmt.Sprintf("spec.install.spec.deployments[%d].name", i) }

// deploymentNames: deployment names are unique DNS-1123 subdomains.
func deploymentNames(b *bundle) []Reason {
	var out []Reason
	seen := map[string]bool{}
	for i, d := range b.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		if seen[d.Name] {
			out = append(out, b.reason(CodeDeploymentName, deploymentField(i), ruleValidators+"CheckDeploymentSpecUniqueness",
				"cluster service version contains duplicate strategy deployment spec '%s'", d.Name))
		}
		seen[d.Name] = true
		if errs := validation.IsDNS1123Subdomain(d.Name); len(errs) > 0 {
			slices.Sort(errs)
			out = append(out, b.reason(CodeDeploymentName, deploymentField(i), ruleValidators+"CheckDeploymentNameIsDNS1123SubDomain",
				"invalid cluster service version strategy deployment name '%s': %s", d.Name, strings.Join(errs, ", ")))
		}
	}
	return out
}

// crdsShipped: every owned CRD is in the bundle, once.
func crdsShipped(b *bundle) []Reason {
	var out []Reason
	shipped := map[string]bool{}
	for _, crd := range b.crds {
		if shipped[crd.Name] {
			out = append(out, Reason{Code: CodeOwnedCRD, Origin: crd.Origin, Object: "CustomResourceDefinition/" + crd.Name,
				Rule: ruleValidators + "CheckCRDResourceUniqueness", Message: fmt.Sprintf("bundle contains duplicate custom resource definition '%s'", crd.Name)})
		}
		shipped[crd.Name] = true
	}
	for i, o := range b.csv.Spec.CustomResourceDefinitions.Owned {
		if !shipped[o.Name] {
			out = append(out, b.reason(CodeOwnedCRD, fmt.Sprintf("spec.customresourcedefinitions.owned[%d]", i), ruleValidators+"CheckOwnedCRDExistence",
				"cluster service definition references owned custom resource definition '%s' not found in bundle", o.Name))
		}
	}
	return out
}

// webhookField is the field of the i-th webhook description.
func webhookField(i int) string { return fmt.Sprintf("spec.webhookdefinitions[%d]", i) }

// conversionWebhookModes: a conversion webhook only in a bundle that supports AllNamespaces
// alone.
func conversionWebhookModes(b *bundle) []Reason {
	modes := b.modes()
	if len(modes) == 1 && modes[v1alpha1.InstallModeTypeAllNamespaces] {
		return nil
	}
	var out []Reason
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if wh.Type == v1alpha1.ConversionWebhook {
			out = append(out, b.reason(CodeConversionWebhook, webhookField(i), ruleValidators+"CheckConversionWebhookSupport",
				"bundle contains conversion webhook %q and supports install modes %v - conversion webhooks are only supported for bundles that only support AllNamespaces install mode",
				wh.GenerateName, modeList(modes)))
		}
	}
	return out
}

// modeList lists install modes sorted, as v1's messages print them.
func modeList(modes map[v1alpha1.InstallModeType]bool) []v1alpha1.InstallModeType {
	out := make([]v1alpha1.InstallModeType, 0, len(modes))
	for m := range modes {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// webhookDeployments: each webhook names a deployment of the install strategy.
func webhookDeployments(b *bundle) []Reason {
	deps := map[string]bool{}
	for _, d := range b.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		deps[d.Name] = true
	}
	var out []Reason
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if !deps[wh.DeploymentName] {
			out = append(out, b.reason(CodeWebhookDeployment, webhookField(i)+".deploymentName", ruleValidators+"CheckWebhookDeploymentReferentialIntegrity",
				"webhook of type '%s' with name '%s' references non-existent deployment '%s'", wh.Type, wh.GenerateName, wh.DeploymentName))
		}
	}
	return out
}

// webhookNames: webhook names are unique per type, and DNS-1123 subdomains.
func webhookNames(b *bundle) []Reason {
	var out []Reason
	seen := map[v1alpha1.WebhookAdmissionType]map[string]bool{}
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if seen[wh.Type] == nil {
			seen[wh.Type] = map[string]bool{}
		}
		if seen[wh.Type][wh.GenerateName] {
			out = append(out, b.reason(CodeWebhookName, webhookField(i)+".generateName", ruleValidators+"CheckWebhookNameUniqueness",
				"duplicate webhook '%s' of type '%s'", wh.GenerateName, wh.Type))
		}
		seen[wh.Type][wh.GenerateName] = true
		if errs := validation.IsDNS1123Subdomain(wh.GenerateName); len(errs) > 0 {
			slices.Sort(errs)
			out = append(out, b.reason(CodeWebhookName, webhookField(i)+".generateName", ruleValidators+"CheckWebhookNameIsDNS1123SubDomain",
				"webhook of type '%s' has invalid name '%s': %s", wh.Type, wh.GenerateName, strings.Join(errs, ",")))
		}
	}
	return out
}

// conversionCRDs: a conversion webhook names only CRDs the CSV owns, and no CRD has two.
func conversionCRDs(b *bundle) []Reason {
	owned := map[string]bool{}
	for _, o := range b.csv.Spec.CustomResourceDefinitions.Owned {
		owned[o.Name] = true
	}
	var out []Reason
	by := map[string][]string{}
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if wh.Type != v1alpha1.ConversionWebhook {
			continue
		}
		for j, crd := range wh.ConversionCRDs {
			by[crd] = append(by[crd], wh.GenerateName)
			if !owned[crd] {
				out = append(out, b.reason(CodeConversionCRD, fmt.Sprintf("%s.conversionCRDs[%d]", webhookField(i), j), ruleValidators+"CheckConversionWebhooksReferenceOwnedCRDs",
					"conversion webhook '%s' references custom resource definition '%s' not owned bundle", wh.GenerateName, crd))
			}
		}
	}
	for _, crd := range slices.Sorted(maps.Keys(by)) {
		if names := by[crd]; len(names) > 1 {
			slices.Sort(names)
			out = append(out, b.reason(CodeConversionCRD, "spec.webhookdefinitions", ruleValidators+"CheckConversionWebhookCRDReferenceUniqueness",
				"conversion webhooks [%s] reference same custom resource definition '%s'", strings.Join(names, ","), crd))
		}
	}
	return out
}

// forbiddenGroups are the API groups no admission webhook rule may name, and
// forbiddenRegistration the admissionregistration.k8s.io resources.
var (
	forbiddenGroups       = []string{"*", "olm.operatorframework.io"}
	forbiddenRegistration = []string{"*", "mutatingwebhookconfiguration", "mutatingwebhookconfigurations", "validatingwebhookconfiguration", "validatingwebhookconfigurations"}
)

// webhookRules: admission webhook rules must not reach every group, OLM v1's, or the webhook
// configurations themselves.
func webhookRules(b *bundle) []Reason {
	var out []Reason
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if wh.Type == v1alpha1.ConversionWebhook {
			continue
		}
		for j, rule := range wh.Rules {
			field := fmt.Sprintf("%s.rules[%d]", webhookField(i), j)
			for _, group := range rule.APIGroups {
				if slices.Contains(forbiddenGroups, group) {
					out = append(out, b.reason(CodeWebhookRules, field+".apiGroups", ruleValidators+"CheckWebhookRules",
						"webhook %q contains forbidden rule: admission webhook rules cannot reference API group %q", wh.GenerateName, group))
				}
				if group != "admissionregistration.k8s.io" {
					continue
				}
				for _, res := range rule.Resources {
					if slices.Contains(forbiddenRegistration, strings.ToLower(res)) {
						out = append(out, b.reason(CodeWebhookRules, field+".resources", ruleValidators+"CheckWebhookRules",
							"webhook %q contains forbidden rule: admission webhook rules cannot reference resource %q for API group %q", wh.GenerateName, res, group))
					}
				}
			}
		}
	}
	return out
}

// objectKinds: every other bundle object is of a kind registry+v1 supports.
func objectKinds(b *bundle) []Reason {
	var out []Reason
	for _, o := range b.others {
		if _, ok := supportedKinds[o.GetKind()]; !ok {
			out = append(out, Reason{Code: CodeUnsupportedObject, Origin: o.Origin, Object: o.GetKind() + "/" + o.GetName(), Field: "kind",
				Rule: ruleValidators + "CheckObjectSupport", Message: fmt.Sprintf("unsupported resource %q with kind %q", o.GetName(), o.GetKind())})
		}
	}
	return out
}

// webhookPorts: a webhook without containerPort. OLM v0 reads the CSV the API server stored,
// with containerPort defaulted to 443 by its CRD; v1 reads the bundle as written and points the
// webhook at port 0, which the API server refuses.
func webhookPorts(b *bundle) []Reason {
	var out []Reason
	for i, wh := range b.csv.Spec.WebhookDefinitions {
		if wh.ContainerPort == 0 {
			out = append(out, b.reason(CodeWebhookPort, webhookField(i)+".containerPort", ruleGenerators+"(ClientConfig Port: &wh.ContainerPort)",
				"webhook %q has no containerPort: OLM v0's CSV CRD defaults it to 443, but operator-controller reads the CSV from the bundle and writes port 0 into the webhook's clientConfig, which the API server refuses (port must be between 1 and 65535)",
				wh.GenerateName))
		}
	}
	return out
}

// preserveUnknownFields: a CRD behind a conversion webhook must not preserve unknown fields.
func preserveUnknownFields(b *bundle) []Reason {
	converted := map[string]string{}
	for _, wh := range b.csv.Spec.WebhookDefinitions {
		if wh.Type == v1alpha1.ConversionWebhook {
			for _, crd := range wh.ConversionCRDs {
				converted[crd] = wh.GenerateName
			}
		}
	}
	var out []Reason
	for _, crd := range b.crds {
		if wh, ok := converted[crd.Name]; ok && crd.Spec.PreserveUnknownFields {
			out = append(out, Reason{Code: CodePreserveUnknownFields, Origin: crd.Origin, Object: "CustomResourceDefinition/" + crd.Name,
				Field: "spec.preserveUnknownFields", Rule: ruleGenerators + "BundleCRDGenerator",
				Message: fmt.Sprintf("custom resource definition '%s' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion (conversion webhook %q)", crd.Name, wh)})
		}
	}
	return out
}

// legacyCRDs: a v1beta1 CRD, which operator-controller applies in the apiVersion it was written
// in (its bundle source decodes it into the v1 type, dropping v1beta1's own fields).
func legacyCRDs(b *bundle) []Reason {
	var out []Reason
	for _, crd := range b.crds {
		if crd.APIVersion == crdV1beta1 {
			out = append(out, Reason{Code: CodeLegacyCRD, Origin: crd.Origin, Object: "CustomResourceDefinition/" + crd.Name, Field: "apiVersion",
				Rule:    "rukpak/bundle/source/source.go (CRDs decoded into apiextensions.k8s.io/v1's type, applied as written)",
				Message: "apiextensions.k8s.io/v1beta1: Kubernetes serves it only before 1.22, and operator-controller applies the CRD in the apiVersion it was written in (decoded into v1's type, which drops v1beta1's validation, version and other fields): ship a v1 CRD"})
		}
	}
	return out
}

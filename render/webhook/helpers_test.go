package webhook

import (
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

type admissionRule struct{ APIGroups, Resources []string }

func desc(name string, typ v1alpha1.WebhookAdmissionType, rules []admissionRule) v1alpha1.WebhookDescription {
	d := v1alpha1.WebhookDescription{GenerateName: name, Type: typ, DeploymentName: "dep", ContainerPort: 443}
	for _, r := range rules {
		d.Rules = append(d.Rules, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: r.APIGroups, APIVersions: []string{"v1"}, Resources: r.Resources},
		})
	}
	return d
}

func conversion(name string, crds ...string) v1alpha1.WebhookDescription {
	d := desc(name, v1alpha1.ConversionWebhook, nil)
	d.ConversionCRDs = crds
	return d
}

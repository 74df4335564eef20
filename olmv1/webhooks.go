package olmv1

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/olm-render/olm-render/render/webhook"
)

// Annotations of the certificate providers (rukpak/render/certproviders).
const (
	injectCAFrom           = "cert-manager.io/inject-ca-from"
	servingCertSecretName  = "service.beta.openshift.io/serving-cert-secret-name"
	injectCABundle         = "service.beta.openshift.io/inject-cabundle"
	certificateDuration    = "17520h0m0s" // 730 days, OLM v0's rotation
	certificateRenewBefore = "24h0m0s"
)

// validatingWebhooks is BundleValidatingWebhookResourceGenerator: one configuration per
// validating webhook, named after its generateName without the trailing "-".
func (g *generation) validatingWebhooks() ([]any, error) {
	var out []any
	for _, wh := range g.b.csv.Spec.WebhookDefinitions {
		if wh.Type != v1alpha1.ValidatingAdmissionWebhook {
			continue
		}
		name := strings.TrimSuffix(wh.GenerateName, "-")
		w := &admissionregistrationv1.ValidatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: name, Rules: wh.Rules, FailurePolicy: wh.FailurePolicy, MatchPolicy: wh.MatchPolicy,
				ObjectSelector: wh.ObjectSelector, SideEffects: wh.SideEffects, TimeoutSeconds: wh.TimeoutSeconds,
				AdmissionReviewVersions: wh.AdmissionReviewVersions, ClientConfig: g.clientConfig(wh),
				NamespaceSelector: g.namespaceSelector(),
			}},
		}
		g.injectCA(&w.ObjectMeta, wh.DeploymentName)
		out = append(out, w)
	}
	return out, nil
}

// mutatingWebhooks is BundleMutatingWebhookResourceGenerator.
func (g *generation) mutatingWebhooks() ([]any, error) {
	var out []any
	for _, wh := range g.b.csv.Spec.WebhookDefinitions {
		if wh.Type != v1alpha1.MutatingAdmissionWebhook {
			continue
		}
		name := strings.TrimSuffix(wh.GenerateName, "-")
		w := &admissionregistrationv1.MutatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingWebhookConfiguration"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: name, Rules: wh.Rules, FailurePolicy: wh.FailurePolicy, MatchPolicy: wh.MatchPolicy,
				ObjectSelector: wh.ObjectSelector, SideEffects: wh.SideEffects, TimeoutSeconds: wh.TimeoutSeconds,
				AdmissionReviewVersions: wh.AdmissionReviewVersions, ClientConfig: g.clientConfig(wh),
				ReinvocationPolicy: wh.ReinvocationPolicy, NamespaceSelector: g.namespaceSelector(),
			}},
		}
		g.injectCA(&w.ObjectMeta, wh.DeploymentName)
		out = append(out, w)
	}
	return out, nil
}

// clientConfig points a webhook at its deployment's Service, on the description's
// containerPort as written (0 when it has none).
func (g *generation) clientConfig(wh v1alpha1.WebhookDescription) admissionregistrationv1.WebhookClientConfig {
	port := wh.ContainerPort
	return admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
		Namespace: g.namespace, Name: serviceNameOf(wh.DeploymentName), Path: wh.WebhookPath, Port: &port,
	}}
}

// namespaceSelector selects the watched namespaces by name; none when all are watched.
func (g *generation) namespaceSelector() *metav1.LabelSelector {
	if len(g.targets) == 0 || slices.Contains(g.targets, "") {
		return nil
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: slices.Clone(g.targets),
	}}}
}

// services is BundleDeploymentServiceResourceGenerator: a Service per deployment serving
// webhooks, with one port per distinct webhook port, sorted.
func (g *generation) services() ([]any, error) {
	ports := map[string][]corev1.ServicePort{}
	for _, wh := range g.b.csv.Spec.WebhookDefinitions {
		p := servicePort(wh)
		if !slices.Contains(ports[wh.DeploymentName], p) {
			ports[wh.DeploymentName] = append(ports[wh.DeploymentName], p)
		}
	}
	var out []any
	for _, d := range g.strategy().DeploymentSpecs {
		ps, ok := ports[d.Name]
		if !ok {
			continue
		}
		slices.SortStableFunc(ps, func(a, b corev1.ServicePort) int {
			return cmp.Or(cmp.Compare(a.Port, b.Port), cmp.Compare(a.TargetPort.IntValue(), b.TargetPort.IntValue()))
		})
		svc := &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: serviceNameOf(d.Name), Namespace: g.namespace},
			Spec:       corev1.ServiceSpec{Ports: ps},
		}
		if d.Spec.Selector != nil {
			svc.Spec.Selector = maps.Clone(d.Spec.Selector.MatchLabels)
		}
		if g.provider == webhook.ServiceCA {
			svc.Annotations = map[string]string{servingCertSecretName: certNameOf(d.Name)}
		}
		out = append(out, svc)
	}
	return out, nil
}

// servicePort is a webhook's Service port: its containerPort (443 when none), to its
// targetPort (the containerPort when none).
func servicePort(wh v1alpha1.WebhookDescription) corev1.ServicePort {
	port := wh.ContainerPort
	if port <= 0 {
		port = 443
	}
	target := intstr.FromInt32(port)
	if wh.TargetPort != nil {
		target = *wh.TargetPort
	}
	return corev1.ServicePort{Name: strconv.Itoa(int(port)), Port: port, TargetPort: target}
}

// certificates is CertProviderResourceGenerator: with cert-manager, a self-signed Issuer and
// a Certificate per deployment serving webhooks.
func (g *generation) certificates() ([]any, error) {
	if g.provider != webhook.CertManager {
		return nil, nil
	}
	var out []any
	for _, dep := range slices.Sorted(maps.Keys(g.b.webhookDeployments())) {
		out = append(out, g.certManagerObjects(dep)...)
	}
	return out, nil
}

// certManagerObjects are the Issuer and Certificate of a deployment's serving certificate
// (certproviders.CertManagerCertificateProvider).
func (g *generation) certManagerObjects(dep string) []any {
	svc, cert := serviceNameOf(dep), certNameOf(dep)
	issuer := objectName(cert, "selfsigned-issuer")
	meta := func(name string) map[string]any { return map[string]any{"name": name, "namespace": g.namespace} }
	host := svc + "." + g.namespace
	return []any{
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": meta(issuer),
			"spec": map[string]any{"selfSigned": map[string]any{}},
		}},
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": meta(cert),
			"spec": map[string]any{
				"secretName": cert, "commonName": host, "usages": []any{"server auth"},
				"dnsNames":    []any{host, host + ".svc", host + ".svc.cluster.local"},
				"issuerRef":   map[string]any{"name": issuer},
				"duration":    certificateDuration,
				"renewBefore": certificateRenewBefore,
			},
		}},
	}
}

// injectCA asks the certificate provider to inject the CA of a deployment's certificate into
// a webhook configuration or a CRD.
func (g *generation) injectCA(meta *metav1.ObjectMeta, dep string) {
	var key, value string
	switch g.provider {
	case webhook.CertManager:
		key, value = injectCAFrom, g.namespace+"/"+certNameOf(dep)
	case webhook.ServiceCA:
		key, value = injectCABundle, "true"
	default:
		return
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[key] = value
}

// certVolumes is ensureCorrectDeploymentCertVolumes: the certificate Secret mounted at both of
// OLM's certificate paths in every container, replacing any volume of those names or mounted at
// those paths.
func certVolumes(dep *appsv1.Deployment, secret string) {
	configs := []struct{ name, path, cert, key string }{
		{"webhook-cert", "/tmp/k8s-webhook-server/serving-certs", "tls.crt", "tls.key"},
		{"apiservice-cert", "/apiserver.local.config/certificates", "apiserver.crt", "apiserver.key"},
	}
	remove := map[string]bool{}
	paths := map[string]bool{}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	for _, c := range configs {
		remove[c.name], paths[c.path] = true, true
		volumes = append(volumes, corev1.Volume{Name: c.name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: secret, Items: []corev1.KeyToPath{{Key: "tls.crt", Path: c.cert}, {Key: "tls.key", Path: c.key}},
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: c.name, MountPath: c.path})
	}
	pod := &dep.Spec.Template.Spec
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if paths[m.MountPath] {
				remove[m.Name] = true
			}
		}
	}
	pod.Volumes = slices.Concat(slices.DeleteFunc(pod.Volumes, func(v corev1.Volume) bool { return remove[v.Name] }), volumes)
	for i := range pod.Containers {
		c := &pod.Containers[i]
		c.VolumeMounts = slices.Concat(slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return remove[m.Name] }), mounts)
	}
}

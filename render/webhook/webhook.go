package webhook

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/olm-render/olm-render/render/deployment"
	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/hash"
)

// Provider supplies serving certificates.
type Provider string

// The certificate providers.
const (
	CertManager Provider = "cert-manager"
	ServiceCA   Provider = "openshift-service-ca"
	None        Provider = "none"
	// OLM is OLM's own certificates, where OLM keeps running (render.TargetRunning): the
	// objects are OLM's, with the Secret it creates, and what OLM generates in them is marked
	// (package generated). A render chooses it for that target; no user does.
	OLM Provider = "olm"
)

// Labels OLM sets on webhook configurations.
const (
	DescriptionKey = "olm.webhook-description-generate-name"
	HashKey        = "olm.webhook-description-hash"
)

// CAHashAnnotation is the annotation OLM puts on a certificate's Secret and on the pod
// template of the Deployment that mounts it: the SHA-256 of the CA it generated.
const CAHashAnnotation = "olmcahash"

// Annotations of the certificate providers.
const (
	injectCAFrom         = "cert-manager.io/inject-ca-from"
	serviceCASecretName  = "service.beta.openshift.io/serving-cert-secret-name"
	serviceCAInjectCABun = "service.beta.openshift.io/inject-cabundle"
)

// ParseProvider checks a provider a user chose; empty is none chosen (render uses cert-manager
// where OLM's controllers do not run, OLM's own certificates where they do).
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(s); p {
	case CertManager, ServiceCA, None, "":
		return p, nil
	}
	return "", fmt.Errorf("unknown certificate provider %q: use cert-manager, openshift-service-ca or none", s)
}

// Input is one CSV's webhook and APIService rendering.
type Input struct {
	// CSV is the annotated CSV in its namespace.
	CSV *v1alpha1.ClusterServiceVersion
	// Targets are the OperatorGroup's target namespaces ([""] for a global group) and Selector
	// its label selector, if it has one.
	Targets  []string
	Selector *metav1.LabelSelector
	Provider Provider
}

// Result is what the CSV's webhooks and APIServices add.
type Result struct {
	// Objects are the Services, certificate RBAC, webhook configurations, APIServices and
	// provider objects.
	Objects []any
	// certDeployments are the deployments that serve webhooks or APIServices.
	certDeployments map[string]bool
	// conversions maps a CRD name to its conversion webhook description.
	conversions map[string]v1alpha1.WebhookDescription
	provider    Provider
	namespace   string
}

// Reason is OLM's failure reason for an invalid webhook description.
const Reason = "InvalidWebhookDescription"

// ValidationError is a CSV OLM would fail because of its webhook descriptions.
type ValidationError struct{ Message string }

// Error returns OLM's message.
func (e *ValidationError) Error() string { return e.Message }

// Validate applies OLM's checks of webhook descriptions (operator.go): unique generateNames and
// ValidWebhookRules; and of conversion webhooks (webhook.go).
func Validate(csv *v1alpha1.ClusterServiceVersion) error {
	seen := map[string]bool{}
	for _, desc := range csv.Spec.WebhookDefinitions {
		if seen[desc.GenerateName] {
			return &ValidationError{"CSV contains repeated WebhookDescription name"}
		}
		seen[desc.GenerateName] = true
		if err := validRules(desc.Rules); err != nil {
			return &ValidationError{err.Error()}
		}
		if desc.Type != v1alpha1.ConversionWebhook {
			continue
		}
		if !singleton(csv) {
			return &ValidationError{"unable to manage conversion webhook: CSVs with conversion webhooks must support only AllNamespaces"}
		}
		if len(desc.ConversionCRDs) == 0 {
			return &ValidationError{"unable to manager conversion webhook: conversion webhook must have at least one CRD specified"}
		}
		for _, crd := range desc.ConversionCRDs {
			if !slices.ContainsFunc(csv.Spec.CustomResourceDefinitions.Owned, func(o v1alpha1.CRDDescription) bool { return o.Name == crd }) {
				return &ValidationError{fmt.Sprintf("csv %s does not own CRD %s", csv.Name, crd)}
			}
		}
	}
	return nil
}

// validRules is OLM's install.ValidWebhookRules.
func validRules(rules []admissionregistrationv1.RuleWithOperations) error {
	for _, rule := range rules {
		switch {
		case slices.Contains(rule.APIGroups, "*"):
			return errors.New("webhook rules cannot include all groups")
		case slices.Contains(rule.APIGroups, "operators.coreos.com"):
			return errors.New("webhook rules cannot include the OLM group")
		case slices.Contains(rule.APIGroups, "admissionregistration.k8s.io") &&
			(slices.Contains(rule.Resources, "*") || slices.Contains(rule.Resources, "MutatingWebhookConfiguration") || slices.Contains(rule.Resources, "ValidatingWebhookConfiguration")):
			return errors.New("webhook rules cannot include MutatingWebhookConfiguration or ValidatingWebhookConfiguration resources")
		}
	}
	return nil
}

// singleton is OLM's isSingletonOperator: AllNamespaces supported and every other listed mode
// unsupported (an empty list passes, as in OLM).
func singleton(csv *v1alpha1.ClusterServiceVersion) bool {
	for _, m := range csv.Spec.InstallModes {
		if (m.Type == v1alpha1.InstallModeTypeAllNamespaces) != m.Supported {
			return false
		}
	}
	return true
}

// Render renders the CSV's webhook and APIService objects.
func Render(in Input) (*Result, error) {
	csv := in.CSV
	r := &Result{certDeployments: map[string]bool{}, conversions: map[string]v1alpha1.WebhookDescription{}, provider: in.Provider, namespace: csv.Namespace}
	ports := map[string][]corev1.ServicePort{}
	addPort := func(dep string, p corev1.ServicePort) {
		if !slices.ContainsFunc(ports[dep], func(x corev1.ServicePort) bool { return x == p }) {
			ports[dep] = append(ports[dep], p)
		}
	}
	// OLM's order: APIService descriptions, then webhook descriptions (getCertResources).
	for _, api := range csv.Spec.APIServiceDefinitions.Owned {
		r.certDeployments[api.DeploymentName] = true
		port := api.ContainerPort
		if port == 0 {
			port = 443
		}
		addPort(api.DeploymentName, corev1.ServicePort{Name: strconv.Itoa(int(port)), Port: port, TargetPort: intstr.FromInt32(port)})
	}
	for _, desc := range csv.Spec.WebhookDefinitions {
		r.certDeployments[desc.DeploymentName] = true
		port := desc.ContainerPort
		if port == 0 {
			port = 443
		}
		target := intstr.FromInt32(port)
		if desc.TargetPort != nil {
			target = *desc.TargetPort
		}
		addPort(desc.DeploymentName, corev1.ServicePort{Name: strconv.Itoa(int(port)), Port: port, TargetPort: target})
	}
	if len(r.certDeployments) == 0 {
		return r, nil
	}
	if in.Provider == None {
		return nil, fmt.Errorf("ClusterServiceVersion %s/%s needs serving certificates for deployments %s (webhooks or APIServices), and the certificate provider is none: use --cert-provider cert-manager or openshift-service-ca",
			csv.Namespace, csv.Name, strings.Join(slices.Sorted(maps.Keys(r.certDeployments)), ", "))
	}
	deployments := map[string]*v1alpha1.StrategyDeploymentSpec{}
	for i := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		d := &csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[i]
		deployments[d.Name] = d
	}
	for _, name := range slices.Sorted(maps.Keys(r.certDeployments)) {
		d := deployments[name]
		if d == nil {
			return nil, fmt.Errorf("ClusterServiceVersion %s/%s: a webhook or APIService names deployment %q, which the install strategy does not define", csv.Namespace, csv.Name, name)
		}
		r.certResources(csv, d, ports[name])
	}
	namespaceSelector := selectorFor(in.Targets, in.Selector)
	for _, desc := range csv.Spec.WebhookDefinitions {
		switch desc.Type {
		case v1alpha1.ValidatingAdmissionWebhook:
			w := &admissionregistrationv1.ValidatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
				ObjectMeta: r.webhookMeta(csv, desc),
				Webhooks:   []admissionregistrationv1.ValidatingWebhook{desc.GetValidatingWebhook(csv.Namespace, namespaceSelector, nil)},
			}
			r.Objects = append(r.Objects, w)
		case v1alpha1.MutatingAdmissionWebhook:
			w := &admissionregistrationv1.MutatingWebhookConfiguration{
				TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
				ObjectMeta: r.webhookMeta(csv, desc),
				Webhooks:   []admissionregistrationv1.MutatingWebhook{desc.GetMutatingWebhook(csv.Namespace, namespaceSelector, nil)},
			}
			r.Objects = append(r.Objects, w)
		case v1alpha1.ConversionWebhook:
			for _, crd := range desc.ConversionCRDs {
				r.conversions[crd] = desc
			}
		}
	}
	for _, api := range csv.Spec.APIServiceDefinitions.Owned {
		r.Objects = append(r.Objects, r.apiService(csv, api))
	}
	return r, nil
}

// selectorFor is the webhooks' namespaceSelector.
func selectorFor(targets []string, selector *metav1.LabelSelector) *metav1.LabelSelector {
	switch {
	case len(targets) == 1 && targets[0] == "":
		return nil
	case selector != nil && (len(selector.MatchLabels) > 0 || len(selector.MatchExpressions) > 0):
		return selector.DeepCopy()
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: slices.Clone(targets),
	}}}
}

func ownerLabels(csv *v1alpha1.ClusterServiceVersion) map[string]string {
	return map[string]string{
		"olm.owner": csv.Name, "olm.owner.namespace": csv.Namespace, "olm.owner.kind": v1alpha1.ClusterServiceVersionKind,
		"olm.managed": "true",
	}
}

func serviceName(dep string) string   { return dep + "-service" }
func secretName(dep string) string    { return dep + "-service-cert" }
func domainService(dep string) string { return strings.ReplaceAll(dep, ".", "-") + "-service" }

// webhookMeta names a webhook configuration and labels it.
func (r *Result) webhookMeta(csv *v1alpha1.ClusterServiceVersion, desc v1alpha1.WebhookDescription) metav1.ObjectMeta {
	labels := ownerLabels(csv)
	labels[DescriptionKey] = desc.GenerateName
	labels[HashKey] = hash.DeepHashObject(&desc)
	meta := metav1.ObjectMeta{Name: desc.GenerateName, Labels: labels, Annotations: r.caAnnotations(csv.Namespace, desc.DeploymentName)}
	if r.provider == OLM {
		// OLM creates it with generateName (install/webhook.go) and writes its CA into caBundle.
		meta.GenerateName = desc.GenerateName + "-"
		meta.Name = generated.Name(meta.GenerateName)
		generated.Mark(&meta, generated.Pointer("metadata", "name"), generated.Pointer("webhooks", "0", "clientConfig", "caBundle"))
	}
	return meta
}

// caAnnotations asks the provider to inject the CA bundle of a deployment's certificate.
func (r *Result) caAnnotations(ns, dep string) map[string]string {
	switch r.provider {
	case CertManager:
		return map[string]string{injectCAFrom: ns + "/" + secretName(dep)}
	case ServiceCA:
		return map[string]string{serviceCAInjectCABun: "true"}
	}
	return nil
}

// certResources adds a deployment's Service, certificate RBAC and provider objects.
func (r *Result) certResources(csv *v1alpha1.ClusterServiceVersion, d *v1alpha1.StrategyDeploymentSpec, ports []corev1.ServicePort) {
	ns, svc, secret := csv.Namespace, serviceName(d.Name), secretName(d.Name)
	sa := d.Spec.Template.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	service := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: svc, Namespace: ns, Labels: map[string]string{"olm.managed": "true"}},
		Spec:       corev1.ServiceSpec{Ports: ports},
	}
	if d.Spec.Selector != nil {
		service.Spec.Selector = maps.Clone(d.Spec.Selector.MatchLabels)
	}
	if r.provider == ServiceCA {
		service.Annotations = map[string]string{serviceCASecretName: secret}
	}
	r.Objects = append(r.Objects, service)
	if r.provider == OLM {
		r.Objects = append(r.Objects, olmSecret(ns, secret))
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}
	managed := map[string]string{"olm.managed": "true"}
	r.Objects = append(r.Objects,
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: ns, Labels: maps.Clone(managed)},
			Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secret}}},
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: ns, Labels: maps.Clone(managed)},
			Subjects:   subject,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: secret},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: svc + "-system:auth-delegator", Labels: ownerLabels(csv)},
			Subjects:   subject,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: svc + "-auth-reader", Namespace: "kube-system", Labels: maps.Clone(managed)},
			Subjects:   subject,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		},
	)
	if r.provider == CertManager {
		r.Objects = append(r.Objects, certManagerObjects(ns, svc, secret)...)
	}
}

// olmSecret is the Secret OLM creates for a deployment's serving certificate
// (installCertRequirementsForDeployment), as a prediction holds it: its data (the key pair and
// OLM's CA) and the CA's hash are generated in the cluster, so data is left out and the hash
// is generated.Placeholder, both marked.
func olmSecret(ns, name string) *corev1.Secret {
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"olm.managed": "true"},
			Annotations: map[string]string{CAHashAnnotation: generated.Placeholder}},
		Type: corev1.SecretTypeTLS,
	}
	generated.Mark(s, generated.Pointer("data"), generated.Pointer("metadata", "annotations", CAHashAnnotation))
	return s
}

// OwnedByCSV reports whether OLM ties one of the Result's objects to the CSV, by an
// ownerReference or its owner labels (certresources.go): all but the RoleBinding to the
// authentication reader Role in kube-system, which carries only olm.managed.
func OwnedByCSV(obj any) bool {
	rb, ok := obj.(*rbacv1.RoleBinding)
	return !ok || rb.Namespace != "kube-system" || !strings.HasSuffix(rb.Name, "-auth-reader")
}

// certManagerObjects is a self-signed Issuer and the serving Certificate, as OLM's certificates
// are: ECDSA P-256, 730 days, renewed 24 hours before expiry, for the Service's DNS names.
func certManagerObjects(ns, svc, secret string) []any {
	issuer := svc + "-selfsigned-issuer"
	labels := map[string]any{"olm.managed": "true"}
	return []any{
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
			"metadata": map[string]any{"name": issuer, "namespace": ns, "labels": labels},
			"spec":     map[string]any{"selfSigned": map[string]any{}},
		}},
		&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
			"metadata": map[string]any{"name": secret, "namespace": ns, "labels": labels},
			"spec": map[string]any{
				"secretName":  secret,
				"commonName":  svc + "." + ns + ".svc",
				"dnsNames":    []any{svc + "." + ns, svc + "." + ns + ".svc", svc + "." + ns + ".svc.cluster.local"},
				"duration":    "17520h0m0s",
				"renewBefore": "24h0m0s",
				"privateKey":  map[string]any{"algorithm": "ECDSA", "size": int64(256)},
				"issuerRef":   map[string]any{"name": issuer, "kind": "Issuer", "group": "cert-manager.io"},
			},
		}},
	}
}

// apiService is the APIService of an owned APIService description.
func (r *Result) apiService(csv *v1alpha1.ClusterServiceVersion, api v1alpha1.APIServiceDescription) *unstructured.Unstructured {
	port := int64(api.ContainerPort)
	if port == 0 {
		port = 443
	}
	labels := map[string]any{}
	for k, v := range ownerLabels(csv) {
		labels[k] = v
	}
	meta := map[string]any{"name": api.Version + "." + api.Group, "labels": labels}
	if a := r.caAnnotations(csv.Namespace, api.DeploymentName); a != nil {
		annotations := map[string]any{}
		for k, v := range a {
			annotations[k] = v
		}
		meta["annotations"] = annotations
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": meta,
		"spec": map[string]any{
			"group": api.Group, "version": api.Version,
			"groupPriorityMinimum": int64(2000), "versionPriority": int64(15),
			"service": map[string]any{"namespace": csv.Namespace, "name": serviceName(api.DeploymentName), "port": port},
		},
	}}
	if r.provider == OLM {
		generated.Mark(u, generated.Pointer("spec", "caBundle"))
	}
	return u
}

// PatchCRD sets a conversion webhook on a CRD the CSV names in a ConversionWebhook description
// (OLM's createOrUpdateConversionWebhook), with the provider's CA annotation. It reports an
// error OLM would fail the install with.
func (r *Result) PatchCRD(crd *unstructured.Unstructured) error {
	desc, ok := r.conversions[crd.GetName()]
	if !ok {
		return nil
	}
	if preserve, _, _ := unstructured.NestedBool(crd.Object, "spec", "preserveUnknownFields"); preserve {
		return &ValidationError{"crd.Spec.PreserveUnknownFields must be false to let API Server call webhook to do the conversion"}
	}
	path := "/"
	if desc.WebhookPath != nil {
		path = *desc.WebhookPath
	}
	versions := make([]any, len(desc.AdmissionReviewVersions))
	for i, v := range desc.AdmissionReviewVersions {
		versions[i] = v
	}
	conversion := map[string]any{
		"strategy": "Webhook",
		"webhook": map[string]any{
			"clientConfig": map[string]any{"service": map[string]any{
				"namespace": r.namespace, "name": domainService(desc.DeploymentName), "path": path, "port": int64(desc.ContainerPort),
			}},
			"conversionReviewVersions": versions,
		},
	}
	if err := unstructured.SetNestedField(crd.Object, conversion, "spec", "conversion"); err != nil {
		return err
	}
	annotations := crd.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	maps.Copy(annotations, r.caAnnotations(r.namespace, desc.DeploymentName))
	crd.SetAnnotations(annotations)
	if r.provider == OLM {
		generated.Mark(crd, generated.Pointer("spec", "conversion", "webhook", "clientConfig", "caBundle"))
	}
	return nil
}

// MutateDeployment adds OLM's certificate volumes and mounts to a deployment that serves
// webhooks or APIServices (install.AddDefaultCertVolumeAndVolumeMounts) and defaults its
// ServiceAccount; with OLM's own certificates, also the pod template's CA hash annotation
// (install.SetCAAnnotation), generated.Placeholder. Other deployments are left alone.
func (r *Result) MutateDeployment(name string, spec *appsv1.DeploymentSpec) error {
	if !r.certDeployments[name] {
		return nil
	}
	pod := &spec.Template.Spec
	if pod.ServiceAccountName == "" {
		pod.ServiceAccountName = "default"
	}
	addCertVolumes(spec, secretName(name))
	if r.provider == OLM {
		if spec.Template.Annotations == nil {
			spec.Template.Annotations = map[string]string{}
		}
		spec.Template.Annotations[CAHashAnnotation] = generated.Placeholder
	}
	return nil
}

// MarkDeployment marks, with OLM's own certificates, what OLM generates in a deployment that
// serves webhooks or APIServices once it is built: the CA hash annotation of its pod template,
// and the spec hash label, which covers it (generated.Placeholder); other deployments, and
// every deployment with a certificate provider, are left alone.
func (r *Result) MarkDeployment(dep *appsv1.Deployment) {
	if r.provider != OLM || !r.certDeployments[dep.Name] {
		return
	}
	dep.Labels[deployment.SpecHashLabel] = generated.Placeholder
	generated.Mark(dep, generated.Pointer("metadata", "labels", deployment.SpecHashLabel),
		generated.Pointer("spec", "template", "metadata", "annotations", CAHashAnnotation))
}

// addCertVolumes adds OLM's two volumes of a certificate Secret and mounts them in every
// container (install.AddDefaultCertVolumeAndVolumeMounts).
func addCertVolumes(spec *appsv1.DeploymentSpec, secret string) {
	pod := &spec.Template.Spec
	for _, v := range []struct {
		name, mountPath string
		certKey, keyKey string
	}{
		{"apiservice-cert", "/apiserver.local.config/certificates", "apiserver.crt", "apiserver.key"},
		{"webhook-cert", "/tmp/k8s-webhook-server/serving-certs", "tls.crt", "tls.key"},
	} {
		volume := corev1.Volume{Name: v.name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: secret,
			Items:      []corev1.KeyToPath{{Key: "tls.crt", Path: v.certKey}, {Key: "tls.key", Path: v.keyKey}},
		}}}
		if i := slices.IndexFunc(pod.Volumes, func(x corev1.Volume) bool { return x.Name == v.name }); i >= 0 {
			pod.Volumes[i] = volume
		} else {
			pod.Volumes = append(pod.Volumes, volume)
		}
		mount := corev1.VolumeMount{Name: v.name, MountPath: v.mountPath}
		for c := range pod.Containers {
			ctr := &pod.Containers[c]
			// As OLM's addCertVolumeAndVolumeMount: the first mount with the same name is kept
			// as it is; one at the same path under another name is replaced.
			switch i := slices.IndexFunc(ctr.VolumeMounts, func(x corev1.VolumeMount) bool { return x.Name == v.name || x.MountPath == v.mountPath }); {
			case i < 0:
				ctr.VolumeMounts = append(ctr.VolumeMounts, mount)
			case ctr.VolumeMounts[i].Name != v.name:
				ctr.VolumeMounts[i] = mount
			}
		}
	}
}

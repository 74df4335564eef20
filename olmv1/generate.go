package olmv1

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olm-render/olm-render/render/webhook"
)

// generation is one bundle rendered as operator-controller's registry+v1 renderer renders it
// (rukpak/render/registryv1: its ResourceGenerators, in their order).
type generation struct {
	b *bundle
	// namespace is the install namespace (spec.namespace); targets the watched namespaces,
	// [""] for all.
	namespace string
	targets   []string
	provider  webhook.Provider
	// config is the deploymentConfig, nil when none.
	config *v1alpha1.SubscriptionConfig
}

// objects runs every generator.
func (g *generation) objects() ([]any, error) {
	var out []any
	for _, gen := range []func() ([]any, error){
		g.serviceAccounts, g.roles, g.clusterRoles, g.crds, g.others, g.deployments,
		g.validatingWebhooks, g.mutatingWebhooks, g.services, g.certificates,
	} {
		objs, err := gen()
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// allNamespaces reports whether the bundle is rendered to watch every namespace.
func (g *generation) allNamespaces() bool { return len(g.targets) == 1 && g.targets[0] == "" }

// strategy is the CSV's install strategy.
func (g *generation) strategy() *v1alpha1.StrategyDetailsDeployment {
	return &g.b.csv.Spec.InstallStrategy.StrategySpec
}

// saOrDefault is a permission's ServiceAccount: "default" when it names none.
func saOrDefault(name string) string { return cmp.Or(name, "default") }

// serviceAccounts is BundleCSVServiceAccountGenerator: one ServiceAccount per account the
// permissions name, "default" excepted.
func (g *generation) serviceAccounts() ([]any, error) {
	names := map[string]bool{}
	for _, p := range slices.Concat(g.strategy().Permissions, g.strategy().ClusterPermissions) {
		names[saOrDefault(p.ServiceAccountName)] = true
	}
	delete(names, "default")
	var out []any
	for _, name := range slices.Sorted(maps.Keys(names)) {
		out = append(out, &corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.namespace},
		})
	}
	return out, nil
}

// roles is BundleCSVPermissionsGenerator: a Role and RoleBinding per permission in each
// watched namespace, unless every namespace is watched (clusterRoles promotes them then).
func (g *generation) roles() ([]any, error) {
	if g.allNamespaces() {
		return nil, nil
	}
	var out []any
	for _, ns := range g.targets {
		for _, p := range g.strategy().Permissions {
			sa := saOrDefault(p.ServiceAccountName)
			name, err := uniqueName(g.b.csv.Name+"-"+sa, p)
			if err != nil {
				return nil, err
			}
			out = append(out,
				&rbacv1.Role{TypeMeta: typeMeta("Role"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Rules: p.Rules},
				&rbacv1.RoleBinding{TypeMeta: typeMeta("RoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Subjects: g.subject(sa), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})
		}
	}
	return out, nil
}

// clusterRoles is BundleCSVClusterPermissionsGenerator: a ClusterRole and binding per cluster
// permission, and, when every namespace is watched, per permission too, with get, list and
// watch on namespaces added (before the name is hashed).
func (g *generation) clusterRoles() ([]any, error) {
	perms := slices.Clone(g.strategy().ClusterPermissions)
	if g.allNamespaces() {
		for _, p := range g.strategy().Permissions {
			p.Rules = append(slices.Clone(p.Rules), rbacv1.PolicyRule{
				Verbs: []string{"get", "list", "watch"}, APIGroups: []string{corev1.GroupName}, Resources: []string{"namespaces"},
			})
			perms = append(perms, p)
		}
	}
	var out []any
	for _, p := range perms {
		sa := saOrDefault(p.ServiceAccountName)
		name, err := uniqueName(g.b.csv.Name+"-"+sa, p)
		if err != nil {
			return nil, err
		}
		out = append(out,
			&rbacv1.ClusterRole{TypeMeta: typeMeta("ClusterRole"), ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: p.Rules},
			&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("ClusterRoleBinding"), ObjectMeta: metav1.ObjectMeta{Name: name},
				Subjects: g.subject(sa), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})
	}
	return out, nil
}

// typeMeta is the TypeMeta of an rbac.authorization.k8s.io/v1 kind.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

// subject is a ServiceAccount of the install namespace as a binding's subject.
func (g *generation) subject(sa string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: g.namespace, Name: sa}}
}

// crds is BundleCRDGenerator: each CRD, with the conversion webhook that names it set up and
// its CA injected by the certificate provider.
func (g *generation) crds() ([]any, error) {
	conversions := map[string]v1alpha1.WebhookDescription{}
	for _, wh := range g.b.csv.Spec.WebhookDefinitions {
		if wh.Type != v1alpha1.ConversionWebhook {
			continue
		}
		for _, name := range wh.ConversionCRDs {
			if _, ok := conversions[name]; ok {
				return nil, fmt.Errorf("custom resource definition '%s' is referenced by multiple conversion webhook definitions", name)
			}
			conversions[name] = wh
		}
	}
	var out []any
	for _, c := range g.b.crds {
		crd := c.DeepCopy()
		if wh, ok := conversions[crd.Name]; ok {
			if err := g.convert(crd, wh); err != nil {
				return nil, err
			}
		}
		out = append(out, crd)
	}
	return out, nil
}

// convert sets a CRD's conversion webhook.
func (g *generation) convert(crd *apiextensionsv1.CustomResourceDefinition, wh v1alpha1.WebhookDescription) error {
	if crd.Spec.PreserveUnknownFields {
		return fmt.Errorf("custom resource definition '%s' must have .spec.preserveUnknownFields set to false to let API Server call webhook to do the conversion", crd.Name)
	}
	path := "/"
	if wh.WebhookPath != nil {
		path = *wh.WebhookPath
	}
	port := wh.ContainerPort
	crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
				Namespace: g.namespace, Name: serviceNameOf(wh.DeploymentName), Path: &path, Port: &port,
			}},
			ConversionReviewVersions: wh.AdmissionReviewVersions,
		},
	}
	g.injectCA(&crd.ObjectMeta, wh.DeploymentName)
	return nil
}

// others is BundleAdditionalResourcesGenerator: every other bundle object, moved into the
// install namespace when registry+v1 holds its kind namespaced.
func (g *generation) others() ([]any, error) {
	var out []any
	for _, o := range g.b.others {
		namespaced, ok := supportedKinds[o.GetKind()]
		if !ok {
			return nil, fmt.Errorf("bundle contains unsupported resource: Name: %v, Kind: %v", o.GetName(), o.GetKind())
		}
		u := o.DeepCopy()
		if namespaced {
			u.SetNamespace(g.namespace)
		}
		out = append(out, u)
	}
	return out, nil
}

// deployments is BundleCSVDeploymentGenerator: each deployment of the install strategy, its
// pod template annotated with the CSV's annotations and OLM's olm.targetNamespaces and
// olm.operatorNamespace, revisionHistoryLimit 1, the certificate volumes of a deployment
// serving webhooks, and the deploymentConfig.
func (g *generation) deployments() ([]any, error) {
	serving := g.b.webhookDeployments()
	var out []any
	for _, d := range g.strategy().DeploymentSpecs {
		spec := *d.Spec.DeepCopy()
		annotations := maps.Clone(g.b.csv.Annotations)
		if annotations == nil {
			annotations = map[string]string{}
		}
		maps.Copy(annotations, spec.Template.Annotations)
		annotations["olm.targetNamespaces"] = strings.Join(g.targets, ",")
		annotations["olm.operatorNamespace"] = g.namespace
		spec.Template.Annotations = annotations
		limit := int32(1)
		spec.RevisionHistoryLimit = &limit
		dep := &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: g.namespace, Labels: maps.Clone(d.Label)},
			Spec:       spec,
		}
		if serving[d.Name] && g.provider != webhook.None {
			certVolumes(dep, certNameOf(d.Name))
		}
		applyConfig(dep, g.config)
		out = append(out, dep)
	}
	return out, nil
}

// supportedKinds is operator-registry v1.73.0's bundle.IsSupported: the kinds a registry+v1
// bundle may ship, and whether operator-controller moves them into the install namespace
// (VerticalPodAutoscaler is listed cluster-scoped there, so it keeps the namespace it was
// written with).
var supportedKinds = map[string]bool{
	"ClusterServiceVersion": true, "CustomResourceDefinition": false, "ClusterRole": false,
	"ClusterRoleBinding": false, "Service": true, "ServiceAccount": true, "Role": true,
	"RoleBinding": true, "PrometheusRule": true, "ServiceMonitor": true, "Secret": true,
	"ConfigMap": true, "PodDisruptionBudget": true, "PriorityClass": false,
	"VerticalPodAutoscaler": false, "ConsoleYAMLSample": false, "ConsoleQuickStart": false,
	"ConsoleCLIDownload": false, "ConsoleLink": false, "ConsolePlugin": false,
	"NetworkPolicy": true, "PodMonitor": true,
}

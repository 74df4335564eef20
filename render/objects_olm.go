package render

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/operator-framework/api/crds"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/deployment"
	"github.com/olm-render/olm-render/render/rbac"
	"github.com/olm-render/olm-render/render/webhook"
)

// render emits every object.
func (r *renderer) render() error {
	for _, ns := range r.set.Namespaces {
		n := ns.Namespace.DeepCopy()
		n.APIVersion, n.Kind = "v1", "Namespace"
		r.out.add(n)
	}
	for _, o := range r.set.Others {
		r.out.add(o.Unstructured.DeepCopy())
	}
	for _, g := range r.groups {
		r.renderGroup(g)
	}
	for _, in := range r.installs {
		if err := r.renderInstall(in); err != nil {
			return err
		}
	}
	if r.opts.KeepIntent {
		r.renderIntent()
	}
	if r.opts.IncludeOLMCRDs {
		for _, crd := range []any{crds.CatalogSource(), crds.ClusterServiceVersion(), crds.InstallPlan(), crds.OLMConfig(),
			crds.Operator(), crds.OperatorCondition(), crds.OperatorGroup(), crds.Subscription()} {
			r.out.add(crd)
		}
	}
	return nil
}

// renderGroup emits the OperatorGroup with status.namespaces and olm.providedAPIs, and its
// aggregation ClusterRoles.
func (r *renderer) renderGroup(g *group) {
	og := g.og.OperatorGroup.DeepCopy()
	og.APIVersion, og.Kind = operatorsv1.SchemeGroupVersion.String(), "OperatorGroup"
	apis := g.apiList()
	if len(apis) > 0 {
		if og.Annotations == nil {
			og.Annotations = map[string]string{}
		}
		og.Annotations[providedAPIsAnnotation] = rbac.APISetString(apis)
	}
	og.Status = operatorsv1.OperatorGroupStatus{Namespaces: g.targets}
	r.out.add(og)
	for _, cr := range rbac.OperatorGroupClusterRoles(og, apis) {
		r.out.add(cr)
	}
}

// renderInstall emits what the InstallPlan creates for a CSV and, when OLM would not fail it,
// what the olm-operator creates.
func (r *renderer) renderInstall(in *install) error {
	csv, component := in.csv, componentLabel(in.sel.Bundle.Package, in.ns)
	adopt := func(labels map[string]string) map[string]string {
		out := maps.Clone(labels)
		if out == nil {
			out = map[string]string{}
		}
		out[component] = ""
		return out
	}
	var hooks *webhook.Result
	if in.failure == nil {
		provider := r.opts.CertProvider
		if provider == "" {
			provider = webhook.CertManager
		}
		var err error
		hooks, err = webhook.Render(webhook.Input{CSV: csv, Targets: in.group.targets, Selector: in.group.og.Spec.Selector, Provider: provider})
		if err != nil {
			return err
		}
	}
	// InstallPlan: bundle objects, CRDs, RBAC.
	for _, o := range in.manifests.Objects {
		obj := r.bundleObject(in, o.Unstructured, adopt)
		if hooks != nil && obj.GetKind() == "CustomResourceDefinition" {
			if err := hooks.PatchCRD(obj); err != nil {
				return fmt.Errorf("ClusterServiceVersion %s/%s: CRD %s: %w", in.ns, csv.Name, obj.GetName(), err)
			}
		}
		r.out.add(obj)
	}
	objs, err := rbac.ForCSV(csv)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", in.sel.Bundle.Name, err)
	}
	for _, sa := range objs.ServiceAccounts {
		sa.Labels = adopt(sa.Labels)
		r.out.add(sa)
	}
	for _, role := range objs.Roles {
		role.Labels = adopt(role.Labels)
		r.out.add(role)
	}
	for _, b := range objs.RoleBindings {
		b.Labels = adopt(b.Labels)
		r.out.add(b)
	}
	for _, cr := range objs.ClusterRoles {
		cr.Labels = adopt(cr.Labels)
		r.out.add(cr)
	}
	for _, b := range objs.ClusterRoleBindings {
		b.Labels = adopt(b.Labels)
		r.out.add(b)
	}
	oc, ocRole, ocBinding := deployment.OperatorCondition(csv)
	oc.Labels = adopt(oc.Labels)
	r.out.add(oc)
	r.out.add(ocRole)
	r.out.add(ocBinding)
	r.out.add(operatorObject(in.sel.Bundle.Package, in.ns))
	if in.failure != nil {
		failed := csv.DeepCopy()
		failed.Status = v1alpha1.ClusterServiceVersionStatus{
			Phase:   in.failure.Phase,
			Reason:  v1alpha1.ConditionReason(in.failure.Reason),
			Message: in.failure.Message,
		}
		r.out.add(failed)
		return nil
	}
	if r.opts.Status {
		csv.Status = v1alpha1.ClusterServiceVersionStatus{
			Phase:   v1alpha1.CSVPhaseSucceeded,
			Reason:  v1alpha1.CSVReasonInstallSuccessful,
			Message: "install strategy completed with no errors",
		}
	}
	r.out.add(csv)
	var config *v1alpha1.SubscriptionConfig
	if in.sel.Subscription.Spec != nil {
		config = in.sel.Subscription.Spec.Config
	}
	deps, err := deployment.ForCSV(deployment.Input{CSV: csv, Config: config, Mutate: hooks.MutateDeployment})
	if err != nil {
		return err
	}
	for _, o := range hooks.Objects {
		r.out.add(o)
	}
	for _, d := range deps {
		d.Labels = adopt(d.Labels)
		r.out.add(d)
	}
	g := in.group
	switch {
	case g.global():
		roles, bindings := rbac.Lift(objs)
		for _, cr := range roles {
			cr.Labels = adopt(cr.Labels)
			r.out.add(cr)
		}
		for _, b := range bindings {
			b.Labels = adopt(b.Labels)
			r.out.add(b)
		}
	default:
		for _, target := range g.targets {
			roles, bindings := rbac.CopyToNamespace(objs, csv.Name, in.ns, target)
			for _, role := range roles {
				r.out.add(role)
			}
			for _, b := range bindings {
				r.out.add(b)
			}
		}
	}
	for _, cr := range rbac.ProvidedAPIClusterRoles(csv) {
		r.out.add(cr)
	}
	for _, target := range r.copyTargets(in) {
		r.out.add(copiedCSV(csv, target))
	}
	return nil
}

// bundleObject prepares a non-CSV bundle object as the InstallPlan creates it: CRDs with the
// installed-alongside annotation; namespaced objects in the CSV namespace; cluster-scoped
// objects with the owner labels; all with olm.managed and the component label.
func (r *renderer) bundleObject(in *install, src *unstructured.Unstructured, adopt func(map[string]string) map[string]string) *unstructured.Unstructured {
	u := src.DeepCopy()
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[managedLabel] = "true"
	switch {
	case u.GetKind() == "CustomResourceDefinition":
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		key := in.ns + "/" + in.csv.Name
		h := fnv.New64a()
		_, _ = h.Write([]byte(key))
		annotations[fmt.Sprintf("%s%x", installedAlongsidePrefix, h.Sum64())] = key
		u.SetAnnotations(annotations)
	case namespaced(u):
		u.SetNamespace(in.ns)
	default:
		labels[rbac.OwnerLabel] = in.csv.Name
		labels[rbac.OwnerNamespaceLabel] = in.ns
		labels[rbac.OwnerKindLabel] = v1alpha1.ClusterServiceVersionKind
	}
	u.SetLabels(adopt(labels))
	return u
}

// clusterScopedKinds are the cluster-scoped kinds a bundle may carry (OLM's supported resources).
var clusterScopedKinds = []string{
	"ClusterRole", "ClusterRoleBinding", "PriorityClass", "StorageClass", "VolumeSnapshotClass",
	"ConsoleCLIDownload", "ConsoleLink", "ConsoleQuickStart", "ConsoleYAMLSample", "CustomResourceDefinition",
	"APIService", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "Namespace",
}

func namespaced(u *unstructured.Unstructured) bool {
	return !slices.Contains(clusterScopedKinds, u.GetKind())
}

// operatorObject is the operators.coreos.com/v1 Operator OLM's operator controller creates for
// each component label, named <package>.<namespace>.
func operatorObject(pkg, ns string) *operatorsv1.Operator {
	name := strings.TrimPrefix(componentLabel(pkg, ns), componentLabelPrefix)
	return &operatorsv1.Operator{
		TypeMeta:   metav1.TypeMeta{APIVersion: operatorsv1.SchemeGroupVersion.String(), Kind: "Operator"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}
}

// copyTargets lists the namespaces that get a copied CSV: every target but the operator's (a
// global group: every input Namespace), none for a group of exactly its own namespace, none for
// a global group when the cluster OLMConfig disables copied CSVs.
func (r *renderer) copyTargets(in *install) []string {
	g := in.group
	if len(g.targets) == 1 && g.targets[0] == in.ns {
		return nil
	}
	var out []string
	if g.global() {
		if r.copiedCSVsDisabled() {
			return nil
		}
		for _, ns := range r.set.Namespaces {
			out = append(out, ns.Name)
		}
	} else {
		out = slices.Clone(g.targets)
	}
	out = slices.DeleteFunc(out, func(ns string) bool { return ns == in.ns })
	slices.Sort(out)
	return slices.Compact(out)
}

func (r *renderer) copiedCSVsDisabled() bool {
	for _, c := range r.set.OLMConfigs {
		if c.Name == disableCopiedCSVsConfigKey && c.Spec.Features != nil && c.Spec.Features.DisableCopiedCSVs != nil && *c.Spec.Features.DisableCopiedCSVs {
			return true
		}
	}
	return false
}

// copiedCSV is OLM's copy of a CSV into a target namespace: annotations but olm.targetNamespaces
// and kubectl's last-applied, labels but operators.coreos.com/*, plus olm.copiedFrom; status
// reason Copied when status is rendered.
func copiedCSV(csv *v1alpha1.ClusterServiceVersion, target string) *v1alpha1.ClusterServiceVersion {
	c := csv.DeepCopy()
	c.Namespace = target
	delete(c.Annotations, operatorsv1.OperatorGroupTargetsAnnotationKey)
	delete(c.Annotations, lastAppliedAnnotation)
	for k := range c.Labels {
		if strings.HasPrefix(k, componentLabelPrefix) {
			delete(c.Labels, k)
		}
	}
	c.Labels[copiedFromLabel] = csv.Namespace
	if c.Status.Phase != "" {
		c.Status.Reason = copiedReason
		c.Status.Message = fmt.Sprintf("The operator is running in %s but is managing this namespace", csv.Namespace)
	}
	return c
}

// renderIntent emits the declared and generated Subscriptions and the CatalogSources.
func (r *renderer) renderIntent() {
	for _, in := range r.installs {
		sub := in.sel.Subscription.Subscription.DeepCopy()
		sub.APIVersion, sub.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.SubscriptionKind
		if sub.Labels == nil {
			sub.Labels = map[string]string{}
		}
		sub.Labels[componentLabel(in.sel.Bundle.Package, in.ns)] = ""
		sub.Status = v1alpha1.SubscriptionStatus{}
		r.out.add(sub)
	}
	for _, cs := range r.set.CatalogSources {
		c := cs.CatalogSource.DeepCopy()
		c.APIVersion, c.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.CatalogSourceKind
		r.out.add(c)
	}
}

package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-framework/api/crds"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/deployment"
	"github.com/olm-render/olm-render/render/generated"
	"github.com/olm-render/olm-render/render/rbac"
	"github.com/olm-render/olm-render/render/webhook"
	"github.com/olm-render/olm-render/schemas/inputs"
	"github.com/olm-render/olm-render/schemas/stored"
)

// render emits every object.
func (r *renderer) render() error {
	for _, ns := range r.set.Namespaces {
		n := ns.Namespace.DeepCopy()
		n.APIVersion, n.Kind = "v1", "Namespace"
		r.out.add(n)
	}
	for _, o := range r.set.Others {
		r.out.addDeclared(o.Unstructured.DeepCopy(), o.Origin.String())
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
	// A static group's annotation is the user's: OLM neither adds to it nor prunes it
	// (olm/operatorgroup.go pruneProvidedAPIs; a CSV providing more fails instead).
	if len(apis) > 0 && !g.static {
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
// what the olm-operator creates, each object as the last of OLM's writers leaves it, then
// labelled by the adoption controller.
func (r *renderer) renderInstall(in *install) error {
	csv := in.csv
	var hooks *webhook.Result
	if in.failure == nil {
		var err error
		hooks, err = webhook.Render(webhook.Input{CSV: csv, Targets: in.group.targets, Selector: in.group.og.Spec.Selector, Provider: r.opts.CertProvider})
		if err != nil {
			return err
		}
	}
	set := &installSet{csv: csv}
	objs, err := r.installPlan(in, set, hooks)
	if err != nil {
		return err
	}
	oc, ocRole, ocBinding := deployment.OperatorCondition(csv)
	set.create(oc, true)
	if in.failure != nil {
		failed := csv.DeepCopy()
		failed.Status = v1alpha1.ClusterServiceVersionStatus{
			Phase:   in.failure.Phase,
			Reason:  v1alpha1.ConditionReason(in.failure.Reason),
			Message: in.failure.Message,
		}
		set.create(failed, false)
	} else if err := r.olmOperator(in, set, objs, hooks); err != nil {
		return err
	}
	if len(set.errs) > 0 {
		return fmt.Errorf("bundle %s: %w", in.sel.Bundle.Name, errors.Join(set.errs...))
	}
	set.adopt(componentLabel(in.sel.Bundle.Package, in.ns))
	for _, o := range set.objs {
		r.out.add(o)
	}
	// Owned by the OperatorCondition, the CRDs or nobody: never adopted.
	r.out.add(ocRole)
	r.out.add(ocBinding)
	r.out.add(operatorObject(in.sel.Bundle.Package, in.ns))
	if in.failure != nil {
		return nil
	}
	r.copiesAndAPIRoles(in, objs)
	return nil
}

// installPlan writes what the InstallPlan's steps write, in their order (resolver/steps.go
// NewStepResourceFromBundle): the bundle's objects, then the install strategy's ServiceAccounts
// and RBAC, owned by the CSV.
func (r *renderer) installPlan(in *install, set *installSet, hooks *webhook.Result) (*rbac.Objects, error) {
	for _, o := range in.manifests.Objects {
		if err := r.legacyCRD(in, o); err != nil {
			return nil, err
		}
		r.foreignSecret(in, o)
		obj, owned, err := bundleObject(in, o.Unstructured)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %s: %w", in.sel.Bundle.Name, o.Origin, err)
		}
		if hooks != nil && obj.GetKind() == "CustomResourceDefinition" {
			if err := hooks.PatchCRD(obj); err != nil {
				return nil, fmt.Errorf("ClusterServiceVersion %s/%s: CRD %s: %w", in.ns, in.csv.Name, obj.GetName(), err)
			}
		}
		set.create(obj, owned)
	}
	objs, err := rbac.ForCSV(in.csv)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", in.sel.Bundle.Name, err)
	}
	for _, sa := range objs.ServiceAccounts {
		set.create(sa.DeepCopy(), true)
	}
	for _, role := range objs.Roles {
		set.create(role.DeepCopy(), true)
	}
	for _, b := range objs.RoleBindings {
		set.create(b.DeepCopy(), true)
	}
	for _, cr := range objs.ClusterRoles {
		set.create(cr.DeepCopy(), true)
	}
	for _, b := range objs.ClusterRoleBindings {
		set.create(b.DeepCopy(), true)
	}
	return objs, nil
}

// olmOperator writes what the olm-operator writes for a CSV it installs: the CSV, its
// Deployments, the webhook and APIService objects (a Service replacing one of the same name),
// and, for a global group, the ClusterRoles and ClusterRoleBindings lifted from its Roles.
func (r *renderer) olmOperator(in *install, set *installSet, objs *rbac.Objects, hooks *webhook.Result) error {
	csv := in.csv
	if r.opts.Status {
		csv.Status = v1alpha1.ClusterServiceVersionStatus{
			Phase:   v1alpha1.CSVPhaseSucceeded,
			Reason:  v1alpha1.CSVReasonInstallSuccessful,
			Message: "install strategy completed with no errors",
		}
	}
	set.create(csv, false)
	config, err := storedConfig(in.sel.Subscription)
	if err != nil {
		return err
	}
	deps, err := deployment.ForCSV(deployment.Input{CSV: csv, Config: config, Mutate: hooks.MutateDeployment})
	if err != nil {
		return err
	}
	for _, o := range hooks.Objects {
		set.apply(o, webhook.OwnedByCSV(o))
	}
	for _, d := range deps {
		hooks.MarkDeployment(d)
		set.create(d, true)
	}
	if in.group.global() {
		roles, bindings := rbac.Lift(objs)
		for _, cr := range roles {
			set.ensure(cr, true)
		}
		for _, b := range bindings {
			set.ensure(b, true)
		}
	}
	return nil
}

// copiesAndAPIRoles emits the objects the olm-operator writes for a CSV that neither it nor the
// adoption controller ties to the CSV: the Roles and RoleBindings copied into each target
// namespace (owned by the copied CSV there), the provided APIs' aggregation ClusterRoles (owned
// by the CRDs) and the copied CSVs.
func (r *renderer) copiesAndAPIRoles(in *install, objs *rbac.Objects) {
	if !in.group.global() {
		for _, target := range in.group.targets {
			roles, bindings := rbac.CopyToNamespace(objs, in.csv.Name, in.ns, target)
			for _, role := range roles {
				r.out.add(role)
			}
			for _, b := range bindings {
				r.out.add(b)
			}
		}
	}
	for _, cr := range rbac.ProvidedAPIClusterRoles(in.csv) {
		r.out.add(cr)
	}
	if r.opts.NoCopiedCSVs {
		return
	}
	for _, target := range r.copyTargets(in) {
		r.out.add(copiedCSV(in.csv, target))
	}
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
		if in.sel.Generated {
			// The InstallPlan's Subscription step (catalog operator.go ExecutePlan) marks what it
			// creates; its olm.generated-by annotation names the InstallPlan, which only a
			// prediction shows, by the placeholder of the name OLM generates.
			sub.Labels[managedLabel] = "true"
			if r.opts.Target == TargetRunning {
				generatedBy(sub)
			}
		}
		sub.Status = v1alpha1.SubscriptionStatus{}
		r.out.add(sub)
	}
	for _, cs := range r.set.CatalogSources {
		c := cs.CatalogSource.DeepCopy()
		c.APIVersion, c.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.CatalogSourceKind
		r.out.add(c)
	}
}

// generatedBy annotates a Subscription OLM generates for a dependency with the InstallPlan that
// creates it, as a prediction holds it: OLM creates InstallPlans with generateName "install-",
// so the name is marked generated.
func generatedBy(sub *v1alpha1.Subscription) {
	if sub.Annotations == nil {
		sub.Annotations = map[string]string{}
	}
	sub.Annotations[generatedByAnnotation] = generated.Name(installPlanGenerateName)
	generated.Mark(sub, generated.Pointer("metadata", "annotations", generatedByAnnotation))
}

// storedConfig returns a Subscription's spec.config as the API server stores it, with its
// CRD's defaults: the olm-operator injects it into the Deployments from the stored Subscription.
func storedConfig(sub *inputs.Subscription) (*v1alpha1.SubscriptionConfig, error) {
	if sub.Spec == nil || sub.Spec.Config == nil {
		return nil, nil
	}
	s, err := stored.Subscription(&v1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: sub.Name, Namespace: sub.Namespace},
		Spec: &v1alpha1.SubscriptionSpec{Config: sub.Spec.Config}})
	if err != nil {
		return nil, err
	}
	return s.Spec.Config, nil
}

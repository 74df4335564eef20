package render

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/contract"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Target is the kind of cluster a render is for.
type Target string

// The targets.
const (
	// TargetAbsent is a cluster where OLM's controllers are stopped or were never installed:
	// the render is the install, and every object OLM would create is applied.
	TargetAbsent Target = "absent"
	// TargetRunning is a cluster where OLM keeps running (OpenShift, where OLM v0 is a platform
	// component). OLM must stay in charge of what it creates: the render applies the intent,
	// pinned (Namespaces, OperatorGroups, CatalogSources by index digest, Subscriptions with
	// Manual approval and the locked startingCSV, and the approval contract of each namespace),
	// and predicts every object OLM will create, for review, without applying it: webhooks' and
	// APIServices' certificates are OLM's own, what OLM generates in the cluster marked (package
	// generated).
	TargetRunning Target = "running"
	// TargetV1 is a cluster where OLM v1 (operator-controller and catalogd) runs: package
	// olmv1 renders it (pipeline.Render dispatches it there, with Options.V1): the render
	// applies the intent, each CatalogSource as a ClusterCatalog pinned by digest and each
	// Subscription as a ClusterExtension pinned to its locked version, and predicts what
	// operator-controller creates, without applying it. A Subscription v1 cannot take is an
	// error naming v1's rule (or, with olmv1.Options.AllowPartial, left to OLM v0).
	TargetV1 Target = "v1"
)

// Targets lists the targets, for help texts and completion.
var Targets = []Target{TargetAbsent, TargetRunning, TargetV1}

// ParseTarget parses a target name; empty is TargetAbsent.
func ParseTarget(s string) (Target, error) {
	if s == "" {
		return TargetAbsent, nil
	}
	if slices.Contains(Targets, Target(s)) {
		return Target(s), nil
	}
	return "", fmt.Errorf("unknown OLM target %q: want absent (OLM's controllers do not run: the render is the install), running (OLM keeps running, as on OpenShift: the render pins what OLM installs and predicts it) or v1 (OLM v1's operator-controller runs: the render applies ClusterCatalogs and ClusterExtensions and predicts what operator-controller creates)", s)
}

// Annotations of the prediction.
const (
	// LocalConfigAnnotation marks an object kustomize leaves out of a build (and kpt does not
	// apply).
	LocalConfigAnnotation = emit.LocalConfigAnnotation
	// PredictionAnnotation marks an object of the prediction: what OLM will create, for review.
	PredictionAnnotation = emit.PredictionAnnotation
)

// running builds the output of TargetRunning from the full render of the same inputs (made
// with KeepIntent): the objects to apply, and the prediction, every other object of the full
// render, marked so that nothing applies it.
func (r *renderer) running(res *resolver.Result, full []*unstructured.Unstructured) (applied, prediction []*unstructured.Unstructured, err error) {
	if applied, err = r.intent(res); err != nil {
		return nil, nil, err
	}
	ids := map[string]bool{}
	for _, u := range applied {
		ids[objectID(u)] = true
	}
	for _, u := range full {
		if ids[objectID(u)] {
			continue
		}
		prediction = append(prediction, emit.MarkPrediction(u))
	}
	return applied, prediction, nil
}

// objectID identifies an object by group, kind, namespace and name.
func objectID(u *unstructured.Unstructured) string {
	return strings.Join([]string{u.GroupVersionKind().Group, u.GetKind(), u.GetNamespace(), u.GetName()}, "/")
}

// intent returns what TargetRunning applies: the declared Namespaces, OperatorGroups (as
// declared: OLM writes their annotations and status), OLMConfigs, OperatorConditions and the
// objects passed through; each CatalogSource pinned; each declared Subscription with Manual
// approval and its locked CSV as startingCSV (the Subscriptions OLM generates for dependencies
// are OLM's to create); and the approval contract of each namespace.
func (r *renderer) intent(res *resolver.Result) ([]*unstructured.Unstructured, error) {
	var objs []any
	for _, ns := range r.set.Namespaces {
		n := ns.Namespace.DeepCopy()
		n.APIVersion, n.Kind = "v1", "Namespace"
		objs = append(objs, n)
	}
	for _, g := range r.set.OperatorGroups {
		og := g.OperatorGroup.DeepCopy()
		og.APIVersion, og.Kind = operatorsv1.SchemeGroupVersion.String(), "OperatorGroup"
		objs = append(objs, og)
	}
	for _, c := range r.set.OLMConfigs {
		o := c.OLMConfig.DeepCopy()
		o.APIVersion, o.Kind = operatorsv1.SchemeGroupVersion.String(), "OLMConfig"
		objs = append(objs, o)
	}
	for _, c := range r.set.OperatorConditions {
		objs = append(objs, c.OperatorCondition.DeepCopy())
	}
	var errs []error
	for _, cs := range r.set.CatalogSources {
		c, err := r.pinnedCatalogSource(cs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		objs = append(objs, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	objs = append(objs, pinnedSubscriptions(res)...)
	r.warnUndeclaredCatalogs(res)
	c, err := contract.Build(res)
	if err != nil {
		return nil, err
	}
	for _, n := range c.Namespaces {
		cm, err := contract.ConfigMap(n)
		if err != nil {
			return nil, err
		}
		objs = append(objs, cm)
	}
	out := make([]*unstructured.Unstructured, 0, len(objs)+len(r.set.Others))
	for _, o := range objs {
		u, err := toUnstructured(o)
		if err != nil {
			return nil, err
		}
		out = append(out, asDeclared(u))
	}
	for _, o := range r.set.Others {
		out = append(out, o.Unstructured.DeepCopy())
	}
	return out, nil
}

// asDeclared removes from an object converted from its Go type the empty fields the type always
// carries and a user never wrote: an empty spec, a CatalogSource's empty icon.
func asDeclared(u *unstructured.Unstructured) *unstructured.Unstructured {
	spec, _ := u.Object["spec"].(map[string]any)
	if icon, ok := spec["icon"].(map[string]any); ok && icon["base64data"] == "" && icon["mediatype"] == "" {
		delete(spec, "icon")
	}
	if spec != nil && len(spec) == 0 {
		delete(u.Object, "spec")
	}
	return u
}

// pinnedCatalogSource returns a CatalogSource as TargetRunning applies it, so that OLM serves
// the bytes olm-render resolved against: spec.image, in its own repository, by the digest the
// catalog was read at (pulled, or recorded by olm-render catalog pull in a vendored snapshot),
// with no polling (spec.updateStrategy dropped). One given by spec.address passes as declared.
// One OLM cannot serve (a snapshot in the repository, with neither image nor address), or whose
// digest olm-render cannot know, is an error.
func (r *renderer) pinnedCatalogSource(cs *inputs.CatalogSource) (*v1alpha1.CatalogSource, error) {
	c := cs.CatalogSource.DeepCopy()
	c.APIVersion, c.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.CatalogSourceKind
	where := "CatalogSource " + c.Namespace + "/" + c.Name
	if o := cs.Origin.String(); o != "" {
		where = o + ": " + where
	}
	switch {
	case c.Spec.Address != "" || c.Spec.ConfigMap != "":
		return c, nil
	case c.Spec.Image == "":
		return nil, fmt.Errorf("%s: OLM cannot serve it: it has no spec.image (nor spec.address), only a catalog snapshot for olm-render; with --olm=running, OLM resolves against what the CatalogSource serves: set spec.image to the index image the snapshot was pulled from (olm-render catalog pull), or use --olm=absent", where)
	}
	bound := r.set.Catalog(c.Namespace, c.Name)
	read, how := bound.ReadAt()
	declared := inputs.ImageDigest(c.Spec.Image)
	switch {
	case read == "" && declared != "":
		// A snapshot that records no digest, with spec.image pinned by hand: what it says.
	case read == "":
		return nil, fmt.Errorf("%s: spec.image %s is a tag, and olm-render read this catalog from %s, which records no index digest: OLM would serve whatever the tag names when it pulls; with --olm=running, vendor the snapshot with olm-render catalog pull (it records the index digest, which the render then pins), bind the CatalogSource by its image instead, or set spec.image to a digest", where, c.Spec.Image, bound.SnapshotOf())
	case declared != "" && declared != read:
		return nil, fmt.Errorf("%s: spec.image pins %s, but olm-render read this catalog at %s (%s): OLM would serve another index than the one the render resolved against; drop the digest from spec.image (the render pins what it read), or refresh the catalog", where, declared, read, how)
	default:
		c.Spec.Image = inputs.ImageRepository(c.Spec.Image) + "@" + read
		r.warnUnrelatedImage(cs, bound, how)
	}
	c.Spec.UpdateStrategy = nil
	return c, nil
}

// warnUnrelatedImage warns when the CatalogSource's repository is neither the one the catalog
// was read from nor one of its mirrors in the inputs: the pinned digest is content-addressed, so
// OLM serves the same index when that repository holds it, but the render cannot tell.
func (r *renderer) warnUnrelatedImage(cs *inputs.CatalogSource, bound *inputs.Catalog, how string) {
	own, read := inputs.ImageRepository(cs.Spec.Image), inputs.ImageRepository(bound.ReadFrom())
	if r.set.Related(own, read) {
		return
	}
	r.warnings.Warnf(cs.Origin, "CatalogSource/"+cs.Namespace+"/"+cs.Name, "spec.image",
		"the catalog was %s, but spec.image names %s, which no ImageDigestMirrorSet or ImageContentSourcePolicy among the inputs mirrors: the render pins %s by that digest, so make sure it holds that index (a mirror of %s)",
		how, own, own, read)
}

// warnUndeclaredCatalogs warns about each Subscription whose CatalogSource the inputs do not
// declare (one the cluster has, such as openshift-marketplace's, bound with --catalog): the
// render cannot pin it, so OLM resolves against whatever it serves when it resolves; the approval
// contract still holds back any CSV the lock does not allow.
func (r *renderer) warnUndeclaredCatalogs(res *resolver.Result) {
	declared := map[string]bool{}
	for _, cs := range r.set.CatalogSources {
		declared[cs.Namespace+"/"+cs.Name] = true
	}
	for _, ns := range res.Namespaces {
		for _, sel := range ns.Selections {
			spec := sel.Subscription.Spec
			if sel.Generated || spec == nil || declared[spec.CatalogSourceNamespace+"/"+spec.CatalogSource] {
				continue
			}
			r.warnings.Warnf(sel.Subscription.Origin, "Subscription/"+sel.Subscription.Namespace+"/"+sel.Subscription.Name, "spec.source",
				"CatalogSource %s/%s is not among the inputs, so it cannot be pinned: OLM resolves against whatever it serves then (the approval contract still holds back every CSV the lock does not allow); to make OLM read the bytes olm-render did, declare a CatalogSource with spec.image by digest (olm-render lock pins it) and subscribe from it",
				spec.CatalogSourceNamespace, spec.CatalogSource)
		}
	}
}

// pinnedSubscriptions returns each declared Subscription as TargetRunning applies it: Manual,
// so that an approver decides every InstallPlan, and starting at its locked CSV.
func pinnedSubscriptions(res *resolver.Result) []any {
	var out []any
	for _, ns := range res.Namespaces {
		for _, sel := range ns.Selections {
			if sel.Generated {
				continue
			}
			sub := sel.Subscription.Subscription.DeepCopy()
			sub.APIVersion, sub.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.SubscriptionKind
			if sub.Spec == nil {
				sub.Spec = &v1alpha1.SubscriptionSpec{}
			}
			sub.Spec.InstallPlanApproval = v1alpha1.ApprovalManual
			sub.Spec.StartingCSV = sel.Bundle.Name
			sub.Status = v1alpha1.SubscriptionStatus{}
			if len(sub.Annotations) == 0 {
				sub.Annotations = nil
			}
			sub.Labels = maps.Clone(sub.Labels)
			out = append(out, sub)
		}
	}
	return out
}

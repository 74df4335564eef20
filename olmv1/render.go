package olmv1

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/render/gitops"
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Result is a render for a cluster where OLM v1 runs.
type Result struct {
	// Objects are what Git applies, sorted in apply order: the declared Namespaces, a
	// ClusterCatalog per CatalogSource, a ClusterExtension per Subscription v1 takes (with its
	// installer ServiceAccount and RBAC up to v1.10), and the objects passed through.
	Objects []*unstructured.Unstructured
	// Prediction are the objects operator-controller creates for the installed bundles, each
	// marked so that nothing applies it (emit.MarkPrediction); sorted.
	Prediction []*unstructured.Unstructured
	// Verdicts are Check's, for every Subscription.
	Verdicts []Verdict
	// Warnings did not fail the render: what v1 ignores, what it leaves to v0.
	Warnings diag.Problems
}

// Render renders a resolution for a cluster where OLM v1 runs. A Subscription v1 does not
// take (refused, or needing a gate the options do not turn on) fails the render with a
// *Refusal listing every reason, unless AllowPartial leaves it to OLM v0 with a warning.
func Render(set *inputs.Set, res *resolver.Result, opts Options) (*Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	p := newPlan(set, res, opts)
	out := &Result{}
	var refused []Verdict
	for _, it := range p.items {
		out.Verdicts = append(out.Verdicts, it.verdict)
		if it.verdict.Outcome != Eligible {
			refused = append(refused, it.verdict)
		}
	}
	if len(refused) > 0 && !opts.AllowPartial {
		return nil, &Refusal{Verdicts: refused}
	}
	if neither := slices.DeleteFunc(slices.Clone(refused), func(v Verdict) bool {
		_, ok := v.v0Unresolvable()
		return !ok
	}); len(neither) > 0 {
		return nil, &Refusal{Verdicts: neither}
	}
	for _, v := range refused {
		out.Warnings = append(out.Warnings, leftToV0(v))
	}
	if out.Objects, err = p.applied(); err != nil {
		return nil, err
	}
	if out.Prediction, err = p.prediction(); err != nil {
		return nil, err
	}
	out.Warnings = append(out.Warnings, p.warnings...)
	out.Warnings = append(out.Warnings, p.notes()...)
	objs, notes, err := gitops.Prepare(out.Objects, opts.Engine)
	if err != nil {
		return nil, err
	}
	out.Objects = objs
	out.Warnings = append(out.Warnings, notes...).Sorted()
	return out, nil
}

// leftToV0 is the warning that a Subscription stays with OLM v0.
func leftToV0(v Verdict) diag.Problem {
	codes := make([]string, 0, len(v.Reasons))
	for _, r := range v.Reasons {
		if !slices.Contains(codes, string(r.Code)) {
			codes = append(codes, string(r.Code))
		}
	}
	return diag.Problem{Severity: diag.Warning, Origin: v.Origin, Object: "Subscription/" + v.ID(),
		Message: fmt.Sprintf("left to OLM v0 (--allow-partial): OLM v1 %s bundle %s (%v; olm-render migrate check says why); the v1 render holds no ClusterExtension for it", v.Outcome, v.Bundle, codes)}
}

// taken returns the Subscriptions v1 takes.
func (p *plan) taken() []*item {
	var out []*item
	for _, it := range p.items {
		if it.verdict.Outcome == Eligible {
			out = append(out, it)
		}
	}
	return out
}

// applied returns what Git applies.
func (p *plan) applied() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, ns := range p.set.Namespaces {
		n := ns.Namespace.DeepCopy()
		n.APIVersion, n.Kind = "v1", "Namespace"
		u, err := toUnstructured(n)
		if err != nil {
			return nil, err
		}
		if spec, ok := u.Object["spec"].(map[string]any); ok && len(spec) == 0 {
			delete(u.Object, "spec")
		}
		out = append(out, u)
	}
	catalogs, err := p.clusterCatalogs()
	if err != nil {
		return nil, err
	}
	out = append(out, catalogs...)
	for _, it := range p.taken() {
		out = append(out, it.ext.object())
		if it.ext.serviceAccount == "" {
			continue
		}
		objs, err := installer(it.ext, it.objects)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			u, err := toUnstructured(o)
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
	}
	for _, o := range p.set.Others {
		out = append(out, o.Unstructured.DeepCopy())
	}
	emit.Sort(out)
	return out, nil
}

// clusterCatalogs returns a ClusterCatalog per CatalogSource. One that cannot be pinned is an
// error when a Subscription v1 takes uses it, and a warning otherwise.
func (p *plan) clusterCatalogs() ([]*unstructured.Unstructured, error) {
	used := map[string]bool{}
	for _, it := range p.taken() {
		used[it.verdict.Catalog] = true
	}
	var out []*unstructured.Unstructured
	var errs []error
	for _, cs := range p.set.CatalogSources {
		key := cs.Namespace + "/" + cs.Name
		pin := p.images[key]
		switch {
		case pin.err != nil && used[key]:
			errs = append(errs, pin.err)
		case pin.err != nil:
			p.warnings.Warnf(cs.Origin, "CatalogSource/"+key, "spec.image", "no ClusterCatalog: %v", pin.err)
		default:
			out = append(out, clusterCatalog(p.catalogs[key], pin.image, cs))
		}
	}
	return out, errors.Join(errs...)
}

// prediction returns what operator-controller creates for the Subscriptions v1 takes, with
// its ownership labels, marked.
func (p *plan) prediction() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, it := range p.taken() {
		if it.objects == nil {
			return nil, fmt.Errorf("Subscription %s: bundle %s: no prediction", it.verdict.ID(), it.verdict.Bundle)
		}
		for _, o := range it.objects {
			u := o.DeepCopy()
			ownerLabels(u, it.ext.name)
			out = append(out, emit.MarkPrediction(u))
		}
	}
	emit.Sort(out)
	return out, nil
}

// notes returns, as warnings, what changes under v1 for the Subscriptions it takes, and the
// inputs v1 has no counterpart for.
func (p *plan) notes() diag.Problems {
	var out diag.Problems
	for _, it := range p.taken() {
		for _, n := range it.verdict.Notes {
			out.Warnf(n.Origin, n.Object, n.Field, "%s (Subscription %s)", n.Message, it.verdict.ID())
		}
	}
	for _, og := range p.set.OperatorGroups {
		out.Warnf(og.Origin, groupObject(og), "", "OLM v1 has no OperatorGroup: not applied (each ClusterExtension says what it watches)")
	}
	for _, c := range p.set.OLMConfigs {
		out.Warnf(c.Origin, "OLMConfig/"+c.Name, "", "OLM v1 has no OLMConfig: not applied")
	}
	for _, c := range p.set.OperatorConditions {
		out.Warnf(c.Origin, "OperatorCondition/"+c.Namespace+"/"+c.Name, "", "OLM v1 has no OperatorCondition (docs/project/olmv1_limitations.md): not applied")
	}
	return out
}

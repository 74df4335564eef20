package resolver

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/resolver/solver"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// result maps the solver's choice back to Subscriptions.
func (r *resolution) result(chosen []solver.Variable) *NamespaceResult {
	selected := map[string]*bundleVariable{}
	var bundles []*bundleVariable
	for _, v := range chosen {
		if bv, ok := v.(*bundleVariable); ok {
			selected[bv.e.id] = bv
			bundles = append(bundles, bv)
		}
	}
	nr := &NamespaceResult{Namespace: r.ns}
	bySelection := map[*bundleVariable][]*Selection{}
	for _, v := range bundles {
		for _, sel := range r.selectionsOf(v) {
			nr.Selections = append(nr.Selections, sel)
			bySelection[v] = append(bySelection[v], sel)
		}
	}
	// RequiredBy: the Subscriptions whose chosen bundles depend on each chosen bundle.
	for _, v := range bundles {
		for _, sel := range bySelection[v] {
			r.explain(sel)
		}
	}
	for _, v := range bundles {
		for i, ids := range v.deps {
			for _, id := range ids {
				dep := selected[string(id)]
				if dep == nil {
					continue
				}
				for _, depSel := range bySelection[dep] {
					for _, sel := range bySelection[v] {
						if sel != depSel && !slices.Contains(depSel.RequiredBy, sel.Subscription.Name) {
							depSel.RequiredBy = append(depSel.RequiredBy, sel.Subscription.Name)
						}
						if sel != depSel && depSel.Generated {
							explainDependency(depSel, sel, v.preds[i])
						}
					}
				}
				break
			}
		}
	}
	for _, sel := range nr.Selections {
		slices.Sort(sel.RequiredBy)
		r.deprecationWarnings(sel)
	}
	slices.SortFunc(nr.Selections, func(a, b *Selection) int {
		if a.Generated != b.Generated {
			if a.Generated {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Subscription.Name, b.Subscription.Name)
	})
	return nr
}

// selectionsOf returns the selections a chosen bundle makes: one per declared Subscription it
// satisfies, or the Subscription OLM would generate for it.
func (r *resolution) selectionsOf(v *bundleVariable) []*Selection {
	e := v.e
	if e.installed() {
		found := r.findBundle(e.sub, e.bundle.Name)
		return []*Selection{{
			Subscription: e.sub,
			Generated:    e.sub.Generated,
			Catalog:      found.catalog,
			Bundle:       e.bundle,
			Channel:      found.channel,
			Replaces:     found.replaces,
			Installed:    e.bundle.Name,
			Properties:   e.selectionProperties(),
		}}
	}
	var out []*Selection
	for _, s := range r.subs {
		spec := s.Spec
		if !hasPackage(e, spec.Package) || (spec.Channel != "" && spec.Channel != e.channel) ||
			spec.CatalogSource != e.catalog.Name || spec.CatalogSourceNamespace != e.catalog.Namespace {
			continue
		}
		sel := &Selection{Subscription: s, Generated: s.Generated, Catalog: e.catalog, Bundle: e.bundle, Channel: e.channel, Replaces: e.replaces, Properties: e.selectionProperties()}
		if cur := r.installed[s.Name]; cur != nil {
			sel.Installed = cur.bundle.Name
		}
		if v.replaces != "" {
			sel.Replaces = v.replaces
		}
		out = append(out, sel)
	}
	if len(out) > 0 {
		return out
	}
	return []*Selection{{
		Subscription: generatedSubscription(r.ns, e),
		Generated:    true,
		Catalog:      e.catalog,
		Bundle:       e.bundle,
		Channel:      e.channel,
		Replaces:     e.replaces,
		Properties:   e.selectionProperties(),
	}}
}

// generatedSubscription is the Subscription OLM creates for a bundle pulled in as a
// dependency: <package>-<channel>-<catalogName>-<catalogNamespace>.
func generatedSubscription(ns string, e *entry) *inputs.Subscription {
	s := &inputs.Subscription{}
	s.APIVersion = v1alpha1.SchemeGroupVersion.String()
	s.Kind = v1alpha1.SubscriptionKind
	s.Name = fmt.Sprintf("%s-%s-%s-%s", e.bundle.Package, e.channel, e.catalog.Name, e.catalog.Namespace)
	s.Namespace = ns
	s.Spec = &v1alpha1.SubscriptionSpec{
		CatalogSource:          e.catalog.Name,
		CatalogSourceNamespace: e.catalog.Namespace,
		Package:                e.bundle.Package,
		Channel:                e.channel,
		StartingCSV:            e.bundle.Name,
		InstallPlanApproval:    v1alpha1.ApprovalAutomatic,
	}
	return s
}

// deprecationWarnings reports the olm.deprecations messages of a chosen bundle: informational,
// as in OLM.
func (r *resolution) deprecationWarnings(sel *Selection) {
	if sel.Catalog == nil {
		return
	}
	p := sel.Catalog.Catalog.Package(sel.Bundle.Package)
	if p == nil {
		return
	}
	obj := "Subscription/" + sel.Subscription.Namespace + "/" + sel.Subscription.Name
	origin := sel.Subscription.Origin
	add := func(msg string) {
		r.warnings.Add(diag.Problem{Severity: diag.Warning, Origin: origin, Object: obj, Message: "deprecated: " + msg})
	}
	if p.Deprecation != "" {
		add(fmt.Sprintf("olm.package/%s: %s", p.Name, p.Deprecation))
	}
	if ch := p.Channel(sel.Channel); ch != nil && ch.Deprecation != "" && sel.Subscription.Spec.Channel != "" {
		add(fmt.Sprintf("olm.channel/%s: %s", ch.Name, ch.Deprecation))
	}
	if sel.Bundle.Deprecation != "" {
		add(fmt.Sprintf("olm.bundle/%s: %s", sel.Bundle.Name, sel.Bundle.Deprecation))
	}
}

package resolver

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/olm-render/olm-render/resolver/solver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// subscriptionVariable builds a Subscription's variable and its candidates (OLM's
// getSubscriptionVariables).
func (r *resolution) subscriptionVariable(s *inputs.Subscription) (solver.Variable, error) {
	key := s.Namespace + "/" + s.Name
	current := r.installed[s.Name]
	if current != nil && r.opts.Pinned[key] {
		v := r.vars[current.id]
		r.markRoots([]*bundleVariable{v}, s.Name)
		r.record(s.Name, &choice{pinned: true})
		return subscriptionVariable(s.Name, []solver.Identifier{solver.Identifier(current.id)}), nil
	}
	spec := s.Spec
	var inCatalog, inPackage, inChannel []*entry
	for _, e := range r.scope {
		if e.installed() || e.catalog.Name != spec.CatalogSource || e.catalog.Namespace != spec.CatalogSourceNamespace {
			continue
		}
		inCatalog = append(inCatalog, e)
		if len(inCatalog) > 1 {
			break // only whether the catalog has entries matters here
		}
	}
	for _, e := range r.byPackage(spec.Package) {
		if e.installed() || e.catalog.Name != spec.CatalogSource || e.catalog.Namespace != spec.CatalogSourceNamespace {
			continue
		}
		if !hasPackage(e, spec.Package) {
			continue
		}
		inPackage = append(inPackage, e)
		if spec.Channel == "" || e.channel == spec.Channel {
			inChannel = append(inChannel, e)
		}
	}
	candidates := inChannel
	if current == nil && spec.StartingCSV != "" {
		candidates = slices.DeleteFunc(slices.Clone(inChannel), func(e *entry) bool { return e.bundle.Name != spec.StartingCSV })
	}
	var reason string
	switch {
	case len(inCatalog) == 0:
		reason = fmt.Sprintf("no operators found from catalog %s in namespace %s referenced by subscription %s", spec.CatalogSource, spec.CatalogSourceNamespace, s.Name)
	case len(inPackage) == 0:
		reason = fmt.Sprintf("no operators found in package %s in the catalog referenced by subscription %s", spec.Package, s.Name)
	case len(inChannel) == 0:
		reason = fmt.Sprintf("no operators found in channel %s of package %s in the catalog referenced by subscription %s", spec.Channel, spec.Package, s.Name)
	case len(candidates) == 0:
		reason = fmt.Sprintf("no operators found with name %s in channel %s of package %s in the catalog referenced by subscription %s", spec.StartingCSV, spec.Channel, spec.Package, s.Name)
	}
	if reason != "" {
		r.mistake(s, len(inCatalog) == 0, len(inPackage) == 0, len(inChannel) == 0)
		return invalidSubscriptionVariable(s.Name, reason), nil
	}
	ordered, err := orderCandidates(candidates)
	if err != nil {
		return nil, err
	}
	all := ordered
	if current == nil && spec.StartingCSV != "" {
		if channel, err := orderCandidates(inChannel); err == nil {
			all = channel
		}
	}
	if current != nil {
		ordered = slices.DeleteFunc(slices.Clone(ordered), func(e *entry) bool { return !e.replacesCurrent(current) })
	}
	r.record(s.Name, &choice{candidates: all, upgrades: ordered, current: current, startingCSV: current == nil && spec.StartingCSV != "", channel: spec.Channel})
	vars, err := r.expand(ordered, s.Name, s.Namespace)
	if err != nil {
		return nil, err
	}
	ids := make([]solver.Identifier, 0, len(vars)+1)
	for _, v := range vars {
		ids = append(ids, v.Identifier())
		if current != nil {
			v.replaces = current.bundle.Name
			v.constraints = append(v.constraints, solver.Conflict(solver.Identifier(current.id)))
		}
	}
	if current != nil {
		ids = append(ids, solver.Identifier(current.id))
		r.markRoots([]*bundleVariable{r.vars[current.id]}, s.Name)
	}
	return subscriptionVariable(s.Name, ids), nil
}

// hasPackage reports whether the entry is in the package.
func hasPackage(e *entry, pkg string) bool { return e.packages[pkg] }

// orderCandidates sorts a Subscription's entries: default channel first, then by channel name,
// each channel in its replaces order.
func orderCandidates(entries []*entry) ([]*entry, error) {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b *entry) int {
		if a.defaultChannel != b.defaultChannel {
			if a.defaultChannel {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.channel, b.channel)
	})
	var out []*entry
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].channel == sorted[i].channel {
			j++
		}
		chain, err := sortChannel(sorted[i:j])
		if err != nil {
			return nil, err
		}
		out = append(out, chain...)
		i = j
	}
	return out, nil
}

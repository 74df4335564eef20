package resolver

import (
	"fmt"
	"strings"

	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// brokenProblems fails every Subscription whose package — declared, or pulled in as a
// dependency — has a bundle its catalog snapshot could not load, unless that bundle is older
// than the one chosen (a warning then): the bundle left out might be the one OLM would choose,
// so rendering another one would quietly install a different version. With no result (the
// resolution failed), every declared Subscription's package counts.
func brokenProblems(set *inputs.Set, res *Result) diag.Problems {
	var out diag.Problems
	if res == nil {
		for _, s := range set.Subscriptions {
			if s.Spec != nil {
				c := set.Catalog(s.Spec.CatalogSourceNamespace, s.Spec.CatalogSource)
				out = append(out, brokenFor(s, c, s.Spec.Package, "", nil)...)
			}
		}
		return out.Sorted()
	}
	for _, ns := range res.Namespaces {
		for _, sel := range ns.Selections {
			requiredBy := ""
			if sel.Generated {
				requiredBy = strings.Join(sel.RequiredBy, ", ")
			}
			out = append(out, brokenFor(sel.Subscription, sel.Catalog, sel.Bundle.Package, requiredBy, sel.Bundle)...)
			out = append(out, invalidChosen(sel)...)
		}
	}
	return out.Sorted()
}

// invalidChosen fails the Subscription of a chosen bundle that its catalog could read but not
// render (catalog.Bundle.Invalid).
func invalidChosen(sel *Selection) diag.Problems {
	if len(sel.Bundle.Invalid) == 0 {
		return nil
	}
	s := sel.Subscription
	p := diag.Problem{Severity: diag.Error, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name, Field: "spec.name",
		Message: fmt.Sprintf("bundle %s of CatalogSource %s, chosen for this Subscription, cannot be rendered (%s); fix the bundle, or pin another one with spec.startingCSV or the lock",
			sel.Bundle.Name, sel.Catalog.Key(), firstMessage(sel.Bundle.Invalid))}
	if sel.Generated {
		p.Object = "Subscription/" + strings.Join(sel.RequiredBy, ", ")
		p.Message = fmt.Sprintf("dependency %s: bundle %s of CatalogSource %s, chosen to satisfy it, cannot be rendered (%s); fix the bundle or remove it from the snapshot",
			s.Name, sel.Bundle.Name, sel.Catalog.Key(), firstMessage(sel.Bundle.Invalid))
	}
	return diag.Problems{p}
}

// brokenFor lists the broken bundles of pkg in c as problems of the Subscription: errors, or
// warnings for those whose directory names a version older than the chosen bundle's.
func brokenFor(s *inputs.Subscription, c *inputs.Catalog, pkg, requiredBy string, chosen *catalog.Bundle) diag.Problems {
	if c == nil || c.Catalog == nil {
		return nil
	}
	var out diag.Problems
	for _, b := range brokenOf(c.Catalog, pkg) {
		p := diag.Problem{Severity: diag.Error, Origin: s.Origin, Object: "Subscription/" + s.Namespace + "/" + s.Name, Field: "spec.name",
			Message: fmt.Sprintf("package %q of CatalogSource %s has a bundle that cannot be loaded (%s); OLM could choose it, so nothing is rendered for this package until it is fixed or removed from the snapshot",
				pkg, c.Key(), brokenWhy(b))}
		if chosen != nil && b.Version != nil && b.Version.LT(chosen.Version) {
			p.Severity = diag.Warning
			p.Message = fmt.Sprintf("package %q of CatalogSource %s has a bundle that cannot be loaded (%s); left out: its directory names version %s, older than the chosen %s",
				pkg, c.Key(), brokenWhy(b), b.Version, chosen.Name)
		}
		if requiredBy != "" {
			p.Object = "Subscription/" + requiredBy
			p.Message = fmt.Sprintf("dependency %s: %s", s.Name, p.Message)
		}
		out.Add(p)
	}
	return out
}

// brokenOf lists the broken bundles of c that belong to pkg, or might: one whose package cannot
// be told could be any package's.
func brokenOf(c *catalog.Catalog, pkg string) []catalog.Broken {
	var out []catalog.Broken
	for _, b := range c.Broken {
		if b.Package == pkg || b.Package == "" {
			out = append(out, b)
		}
	}
	return out
}

// brokenWhy says which bundle directory could not be loaded and why, naming the directory once.
func brokenWhy(b catalog.Broken) string {
	msg := firstMessage(b.Problems)
	if strings.HasPrefix(msg, b.Dir+": ") {
		return msg
	}
	return b.Dir + ": " + msg
}

func firstMessage(ps diag.Problems) string {
	if len(ps) == 0 {
		return "unknown problem"
	}
	p := ps.Sorted()[0]
	msg := p.Error()
	if len(ps) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(ps)-1)
	}
	return msg
}

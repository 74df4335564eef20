package resolver

import (
	"fmt"
	"slices"
)

// choice is how a Subscription's candidates were chosen, kept to explain the result.
type choice struct {
	pinned      bool
	startingCSV bool
	channel     string
	current     *entry
	// candidates are the Subscription's entries in OLM's preference order; upgrades those that
	// replace the installed bundle (all of them on a fresh install).
	candidates, upgrades []*entry
}

func (r *resolution) record(sub string, c *choice) {
	if r.why == nil {
		r.why = map[string]*choice{}
	}
	r.why[sub] = c
}

// explain sets a declared Subscription's selection's Reason and Alternatives.
func (r *resolution) explain(sel *Selection) {
	c := r.why[sel.Subscription.Name]
	switch {
	case c == nil:
		return
	case c.pinned:
		sel.Reason = fmt.Sprintf("locked: %s is the bundle the lock records", sel.Bundle.Name)
		return
	case c.current != nil && sel.Bundle.Name == c.current.bundle.Name:
		sel.Reason = fmt.Sprintf("installed: no bundle of the channel replaces %s", sel.Bundle.Name)
	case c.current != nil:
		sel.Reason = fmt.Sprintf("upgrade: %s replaces the installed %s (%s)", sel.Bundle.Name, c.current.bundle.Name, edgeOf(sel, c.current.bundle.Name))
	case c.startingCSV:
		sel.Reason = fmt.Sprintf("startingCSV: the Subscription asks for %s", sel.Bundle.Name)
	default:
		sel.Reason = fmt.Sprintf("channel head: %s heads channel %s%s", sel.Bundle.Name, sel.Channel, defaultNote(c.channel))
	}
	sel.Reason += catalogNote(sel, c.candidates)
	sel.Alternatives = alternatives(sel, c)
}

// edgeOf names the upgrade edge from installed to the chosen entry.
func edgeOf(sel *Selection, installed string) string {
	p := sel.Catalog.Catalog.Package(sel.Bundle.Package)
	if p == nil {
		return "replaces"
	}
	ch := p.Channel(sel.Channel)
	if ch == nil {
		return "replaces"
	}
	e := ch.Entry(sel.Bundle.Name)
	switch {
	case e == nil:
		return "replaces"
	case e.Replaces == installed:
		return "replaces"
	case slices.Contains(e.Skips, installed):
		return "skips"
	case e.SkipRange != "":
		return "skipRange " + e.SkipRange
	}
	return "replaces"
}

func defaultNote(asked string) string {
	if asked == "" {
		return " (the package's default channel)"
	}
	return ""
}

// catalogNote says which catalog won when the package is in several.
func catalogNote(sel *Selection, candidates []*entry) string {
	for _, e := range candidates {
		if e.catalog.Key() != sel.Catalog.Key() {
			return fmt.Sprintf("; from CatalogSource %s (priority %d), which OLM prefers", sel.Catalog.Key(), sel.Catalog.Priority)
		}
	}
	return ""
}

// alternatives lists the candidates not chosen, with why.
func alternatives(sel *Selection, c *choice) []Alternative {
	var out []Alternative
	for _, e := range c.candidates {
		if e.bundle == sel.Bundle && e.catalog == sel.Catalog {
			continue
		}
		a := Alternative{Bundle: e.bundle.Name, Catalog: e.catalog.Key()}
		switch {
		case c.startingCSV:
			a.Reason = "not the startingCSV"
		case c.current != nil && !slices.Contains(c.upgrades, e):
			a.Reason = "does not replace, skip or skipRange-match the installed " + c.current.bundle.Name
		case c.current != nil:
			a.Reason = "a later step: OLM moves one upgrade at a time (olm-render upgrade --to-head takes them all)"
		default:
			a.Reason = "OLM prefers the channel head"
		}
		out = append(out, a)
	}
	return out
}

// explainDependency sets the Reason of a bundle pulled in as a dependency.
func explainDependency(sel *Selection, by *Selection, pred predicate) {
	if sel.Reason != "" {
		return
	}
	sel.Reason = fmt.Sprintf("dependency: %s (for Subscription %s) requires an operator %s", by.Bundle.Name, by.Subscription.Name, pred)
}

package resolver

import (
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Result is what resolution chose, per namespace.
type Result struct {
	// Namespaces are sorted by name.
	Namespaces []*NamespaceResult
	// Warnings are things worth knowing that do not fail the run (deprecations, for one).
	Warnings diag.Problems
}

// NamespaceResult holds the selections of one namespace.
type NamespaceResult struct {
	Namespace string
	// Selections: one per declared Subscription (sorted by name), then one per Subscription OLM
	// would generate for a bundle pulled in only as a dependency (sorted by name).
	Selections []*Selection
}

// Selection is the bundle chosen for one Subscription.
type Selection struct {
	// Subscription is the declared Subscription, or, when Generated, the one OLM would create
	// for a dependency: named <package>-<channel>-<catalogName>-<catalogNamespace>, spec
	// {source, sourceNamespace, name, channel, startingCSV: <bundle>, installPlanApproval:
	// Automatic}.
	Subscription *inputs.Subscription
	// Generated is true for a dependency's Subscription.
	Generated bool
	// Catalog is the catalog the bundle came from.
	Catalog *inputs.Catalog
	// Bundle is the chosen bundle.
	Bundle *catalog.Bundle
	// Channel is the channel the bundle was chosen from.
	Channel string
	// Replaces is spec.replaces as OLM sets it on the CSV: the installed CSV on an upgrade,
	// otherwise the channel entry's replaces.
	Replaces string
	// Installed is the CSV that was installed before (status.installedCSV or the lock), if any.
	Installed string
	// Properties are the bundle's properties as OLM's resolver holds them (the source of the
	// CSV's operatorframework.io/properties annotation).
	Properties []catalog.Property
	// RequiredBy names the Subscriptions whose bundles depend on this one, sorted.
	RequiredBy []string
	// Reason says why this bundle was chosen, in words: the lock pin, the channel head, the
	// startingCSV, the upgrade step from the installed bundle, or the dependency it satisfies.
	Reason string
	// Alternatives are the other bundles the Subscription could have had, in OLM's preference
	// order, each with why it was not chosen.
	Alternatives []Alternative
	// WithoutDependencies is OLM v0's error resolving the Subscription's namespace when the
	// bundle was chosen without any bundle's dependencies, as OLM v1 chooses
	// (Options.ForOLMv1); empty otherwise. OLM v0 cannot install it.
	WithoutDependencies string
}

// Alternative is a bundle a Subscription could have had, and why it did not.
type Alternative struct {
	Bundle  string `json:"bundle"`
	Catalog string `json:"catalog"`
	Reason  string `json:"reason"`
}

// Bundles returns every chosen bundle once, in selection order.
func (r *Result) Bundles() []*catalog.Bundle {
	var out []*catalog.Bundle
	seen := map[*catalog.Bundle]bool{}
	for _, ns := range r.Namespaces {
		for _, s := range ns.Selections {
			if !seen[s.Bundle] {
				seen[s.Bundle] = true
				out = append(out, s.Bundle)
			}
		}
	}
	return out
}

// Package resolver resolves Subscriptions to bundles exactly as OLM v0's resolver does
// (pkg/controller/registry/resolver): per namespace with one OperatorGroup, candidates from the
// catalog a Subscription names, channels ordered by their replaces chains, dependencies by
// olm.gvk.required, olm.package.required, olm.label.required and olm.constraint (with CEL)
// expanded with OLM's catalog preference, one bundle per package and one provider per API, all
// decided by the SAT solver of package solver.
//
// # Deliberate differences
//
// OLM's resolver iterates Go maps, so some outcomes vary between runs; this one is deterministic:
// a Subscription without a channel takes the default channel's copy of a bundle listed in
// several channels, and every list is sorted. A CEL constraint has a cost limit, so a hostile
// catalog cannot hang a render. Results hold every chosen bundle (OLM returns only new or changed
// ones), because a render renders everything.
package resolver

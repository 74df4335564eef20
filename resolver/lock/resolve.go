package lock

import (
	"context"
	"slices"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/catalog"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// Resolve resolves set against its lock as OLM resolves a cluster in the state the lock records
// (a nil lock is a fresh install):
//
//   - a locked Subscription whose intent is unchanged keeps its bundle exactly, from its catalog;
//   - one whose package, channel, source or startingCSV changed takes the step OLM would take
//     from its locked bundle, and moves nothing else;
//   - a changed installPlanApproval moves nothing (only the intent recorded changes);
//   - a new Subscription resolves afresh, the locked ones staying as they are;
//   - a dependency OLM created stays installed, pinned while every Subscription requiring it is,
//     as the Subscription OLM generated for it would.
//
// It returns the resolution, the lock to write and the changes from l. Only catalog metadata is
// read: a chosen bundle's manifests are read (concurrently) only when its digest needs them, and
// a bundle image named by digest is never pulled (see Digest).
func Resolve(ctx context.Context, set *inputs.Set, l *Lock, opts resolver.Options) (*resolver.Result, *Lock, []Change, error) {
	resolved := set
	if l != nil {
		resolved = withDependencies(set, l)
		opts.Installed, opts.Pinned = installedState(resolved, l)
		opts.InstalledFrom = l.Origin
	}
	res, err := resolver.Resolve(ctx, resolved, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	next, err := Of(set, res)
	if err != nil {
		return nil, nil, nil, err
	}
	return res, next, Diff(l, next), nil
}

// Of builds the lock of a resolution: the chosen bundles whose digest needs their manifests have
// them read concurrently (see Digest), and the index images of set's catalogs are pinned.
func Of(set *inputs.Set, res *resolver.Result) (*Lock, error) {
	catalog.ReadManifests(slices.DeleteFunc(res.Bundles(), func(b *catalog.Bundle) bool { return !NeedsManifests(b) }))
	l, err := FromResult(res)
	if err != nil {
		return nil, err
	}
	PinCatalogs(l, set)
	return l, nil
}

// installedState returns the locked bundle of every Subscription of set the lock has, and which of
// them keep it exactly.
func installedState(set *inputs.Set, l *Lock) (map[string]string, map[string]bool) {
	installed, pinned := map[string]string{}, map[string]bool{}
	for _, s := range set.Subscriptions {
		key := s.Namespace + "/" + s.Name
		e := l.Entry(s.Namespace, s.Name)
		if e == nil {
			continue
		}
		installed[key] = e.Bundle
		if s.Generated || resolvesAlike(e.Intent, IntentOf(s)) {
			pinned[key] = true
		}
	}
	for _, s := range set.Subscriptions {
		if s.Generated && !allPinned(l.Entry(s.Namespace, s.Name).RequiredBy, s.Namespace, pinned) {
			delete(pinned, s.Namespace+"/"+s.Name)
		}
	}
	return installed, pinned
}

// resolvesAlike reports whether two intents resolve alike: they differ at most in
// installPlanApproval, which OLM uses only to decide whether an InstallPlan runs.
func resolvesAlike(a, b Intent) bool {
	a.InstallPlanApproval, b.InstallPlanApproval = "", ""
	return a == b
}

func allPinned(requiredBy []string, ns string, pinned map[string]bool) bool {
	for _, r := range requiredBy {
		if !pinned[ns+"/"+r] {
			return false
		}
	}
	return true
}

// withDependencies returns set plus the Subscriptions OLM created for the locked dependencies that
// a declared Subscription still requires, as they would exist in the cluster.
func withDependencies(set *inputs.Set, l *Lock) *inputs.Set {
	declared := map[string]bool{}
	for _, s := range set.Subscriptions {
		declared[s.Namespace+"/"+s.Name] = true
	}
	out := *set
	out.Subscriptions = slices.Clone(set.Subscriptions)
	for _, ns := range l.Namespaces {
		for _, e := range ns.Subscriptions {
			if !e.Generated || declared[ns.Namespace+"/"+e.Subscription] || !requiredByDeclared(e, ns.Namespace, declared) {
				continue
			}
			s := generated(ns.Namespace, e)
			s.Origin = diag.Origin{File: l.Origin}
			out.Subscriptions = append(out.Subscriptions, s)
		}
	}
	return &out
}

func requiredByDeclared(e Entry, ns string, declared map[string]bool) bool {
	return slices.ContainsFunc(e.RequiredBy, func(r string) bool { return declared[ns+"/"+r] })
}

// generated is the Subscription OLM created for a locked dependency.
func generated(ns string, e Entry) *inputs.Subscription {
	s := &inputs.Subscription{Generated: true}
	s.APIVersion, s.Kind = v1alpha1.SchemeGroupVersion.String(), v1alpha1.SubscriptionKind
	s.Name, s.Namespace = e.Subscription, ns
	s.Spec = &v1alpha1.SubscriptionSpec{
		Package: e.Intent.Package, Channel: e.Intent.Channel, CatalogSource: e.Intent.Source,
		CatalogSourceNamespace: e.Intent.SourceNamespace, StartingCSV: e.Intent.StartingCSV,
		InstallPlanApproval: v1alpha1.Approval(e.Intent.InstallPlanApproval),
	}
	return s
}

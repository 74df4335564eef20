package importer

import (
	"context"
	"errors"
	"fmt"

	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/resolver/lock"
	"github.com/olm-render/olm-render/schemas/diag"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// observedLock pins every Subscription with an installed CSV to it.
func (s *snapshot) observedLock() *lock.Lock {
	l := &lock.Lock{APIVersion: lock.APIVersion, Kind: lock.Kind, Catalogs: s.catalogPins(), Namespaces: []lock.Namespace{}}
	byNamespace := map[string]int{}
	for _, sub := range s.subscriptions {
		if sub.Status.InstalledCSV == "" {
			continue
		}
		i, ok := byNamespace[sub.Namespace]
		if !ok {
			i = len(l.Namespaces)
			byNamespace[sub.Namespace] = i
			l.Namespaces = append(l.Namespaces, lock.Namespace{Namespace: sub.Namespace, Subscriptions: []lock.Entry{}})
		}
		l.Namespaces[i].Subscriptions = append(l.Namespaces[i].Subscriptions, s.entry(sub))
	}
	l.Sort()
	return l
}

// entry is the lock entry of an installed Subscription, as far as the cluster tells it.
func (s *snapshot) entry(sub *subscription) lock.Entry {
	e := lock.Entry{
		Subscription: sub.Name,
		Intent:       lock.IntentOf(&inputs.Subscription{Subscription: *sub.Subscription}),
		Package:      sub.Spec.Package,
		Channel:      sub.Spec.Channel,
		Bundle:       sub.Status.InstalledCSV,
		Catalog:      lock.CatalogRef{Namespace: sourceNamespace(sub), Name: sub.Spec.CatalogSource},
	}
	if c := s.installedCSV(sub.Namespace, sub.Status.InstalledCSV); c != nil {
		e.Version = c.Version
	}
	return e
}

// Complete resolves the imported inputs (set, loaded from Result.Objects with their catalogs)
// against the observed lock, as `olm-render lock` does: every installed CSV stays pinned, and the
// lock gains the bundles' content digests, images, channels and the dependencies OLM pulled in.
// It fails, naming each, when a catalog resolves a Subscription to anything but its installed
// CSV (the catalog no longer holds it, or is not the one the cluster reads). It returns the
// complete lock and the resolution's warnings.
func Complete(ctx context.Context, set *inputs.Set, observed *lock.Lock, opts resolver.Options) (*lock.Lock, diag.Problems, error) {
	res, next, _, err := lock.Resolve(ctx, set, observed, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("resolving the imported Subscriptions with their installed CSVs: %w", err)
	}
	if err := checkPinned(observed, next); err != nil {
		return nil, nil, err
	}
	return next, res.Warnings, nil
}

// checkPinned reports every Subscription whose resolved bundle is not the installed one.
func checkPinned(observed, next *lock.Lock) error {
	var errs []error
	for _, ns := range observed.Namespaces {
		for _, want := range ns.Subscriptions {
			got := next.Entry(ns.Namespace, want.Subscription)
			if got != nil && got.Bundle == want.Bundle {
				continue
			}
			resolved := "nothing"
			if got != nil {
				resolved = got.Bundle
			}
			errs = append(errs, fmt.Errorf("Subscription %s/%s: OLM installed %s, but catalog %s resolves %s: bind the catalog the cluster reads (--catalog %s=PATH, or an index image by digest) that holds %s",
				ns.Namespace, want.Subscription, want.Bundle, want.Catalog, resolved, want.Catalog, want.Bundle))
		}
	}
	return errors.Join(errs...)
}

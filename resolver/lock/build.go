package lock

import (
	"github.com/olm-render/olm-render/resolver"
	"github.com/olm-render/olm-render/schemas/inputs"
)

// FromResult builds the lock of a resolution.
func FromResult(res *resolver.Result) (*Lock, error) {
	l := &Lock{APIVersion: APIVersion, Kind: Kind, Namespaces: []Namespace{}}
	for _, ns := range res.Namespaces {
		n := Namespace{Namespace: ns.Namespace, Subscriptions: []Entry{}}
		for _, s := range ns.Selections {
			e, err := entry(s)
			if err != nil {
				return nil, err
			}
			n.Subscriptions = append(n.Subscriptions, e)
		}
		l.Namespaces = append(l.Namespaces, n)
	}
	l.Sort()
	return l, nil
}

func entry(s *resolver.Selection) (Entry, error) {
	digest, of, err := Digest(s.Bundle)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{
		Subscription: s.Subscription.Name,
		Intent:       IntentOf(s.Subscription),
		Package:      s.Bundle.Package,
		Channel:      s.Channel,
		Bundle:       s.Bundle.Name,
		Version:      s.Bundle.Version.String(),
		Digest:       digest,
		DigestOf:     of,
		Image:        ImageDigest(s.Bundle),
		Generated:    s.Generated,
		RequiredBy:   s.RequiredBy,
	}
	if s.Catalog != nil {
		e.Catalog = CatalogRef{Namespace: s.Catalog.Namespace, Name: s.Catalog.Name}
	}
	return e, nil
}

// IntentOf returns what a Subscription asks for.
func IntentOf(sub *inputs.Subscription) Intent {
	var in Intent
	if sub == nil || sub.Spec == nil {
		return in
	}
	return Intent{
		Package:             sub.Spec.Package,
		Channel:             sub.Spec.Channel,
		Source:              sub.Spec.CatalogSource,
		SourceNamespace:     sub.Spec.CatalogSourceNamespace,
		StartingCSV:         sub.Spec.StartingCSV,
		InstallPlanApproval: string(sub.Spec.InstallPlanApproval),
	}
}

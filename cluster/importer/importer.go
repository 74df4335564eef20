package importer

import (
	"context"
	"fmt"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/olm-render/olm-render/render/emit"
	"github.com/olm-render/olm-render/resolver/lock"
)

// Options select what Read imports.
type Options struct {
	// Namespaces limits the import to the Subscriptions, OperatorGroups, CatalogSources and CSVs
	// of these namespaces (CatalogSources their Subscriptions name elsewhere are read too); every
	// namespace when empty.
	Namespaces []string
}

// Result is what an import read from the cluster.
type Result struct {
	// Objects are the inputs: Namespaces, OperatorGroups, Subscriptions, CatalogSources and
	// OLMConfigs as declared, sorted in apply order.
	Objects []*unstructured.Unstructured
	// Lock pins every installed Subscription to its installed CSV and every CatalogSource given
	// by image to the digest its pods run. It holds no bundle digests: Complete adds them.
	Lock *lock.Lock
	// Reports list what the inputs and the lock cannot reproduce, sorted.
	Reports []Report
}

// Subscriptions counts the Subscriptions among the objects.
func (r *Result) Subscriptions() int {
	n := 0
	for _, o := range r.Objects {
		if o.GetKind() == v1alpha1.SubscriptionKind {
			n++
		}
	}
	return n
}

// Connect returns a dynamic client for the cluster of a REST config.
func Connect(cfg *rest.Config) (dynamic.Interface, error) {
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", cfg.Host, err)
	}
	return c, nil
}

// Read reads what OLM installed in the cluster (see the package documentation).
func Read(ctx context.Context, client dynamic.Interface, opts Options) (*Result, error) {
	r := &reader{client: client, namespaces: sortedUnique(opts.Namespaces)}
	s, err := r.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("importing: %w", err)
	}
	return s.result(), nil
}

// result builds the import's inputs, lock and reports.
func (s *snapshot) result() *Result {
	return &Result{Objects: s.objects(), Lock: s.observedLock(), Reports: s.reports()}
}

// objects returns the cleaned inputs, sorted.
func (s *snapshot) objects() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	add := func(items ...*unstructured.Unstructured) {
		for _, u := range items {
			out = append(out, clean(u))
		}
	}
	add(s.namespaces...)
	add(s.groups...)
	add(s.configs...)
	for _, sub := range s.subscriptions {
		add(sub.raw)
	}
	for _, cs := range s.catalogSources {
		add(cs.raw)
	}
	emit.Sort(out)
	return out
}

// Package managedcache is a stand-in for boxcutter's tracking cache (see the module's
// README.md). operator-controller creates one whatever its runtime, and its Helm applier asks it
// to watch what a release installed, for drift detection only. This one watches nothing: Watch
// says so with an error (which operator-controller logs, leaving drift detection off), the
// source it gives never sends an event, and reading through it panics, since only the Boxcutter
// runtime reads it.
package managedcache

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"pkg.package-operator.run/boxcutter/internal/unavailable"
)

// TrackingCache is the part of boxcutter's tracking cache operator-controller uses.
type TrackingCache interface {
	client.Reader
	// Start runs the cache until ctx is done (a manager's Runnable).
	Start(ctx context.Context) error
	// Source returns a source of events about watched objects, for a controller.
	Source(handler handler.EventHandler, predicates ...predicate.Predicate) source.Source
	// Watch asks for the objects of gvks to be watched on behalf of user.
	Watch(ctx context.Context, user client.Object, gvks sets.Set[schema.GroupVersionKind]) error
	// Free drops user's watches.
	Free(ctx context.Context, user client.Object) error
}

// ErrNoDriftDetection is Watch's error: the stand-in watches nothing.
var ErrNoDriftDetection = errors.New(unavailable.Message + ": the stand-in tracking cache watches nothing, so drift detection is off")

// NewTrackingCache returns the stand-in tracking cache; its arguments are not used.
func NewTrackingCache(log logr.Logger, config *rest.Config, opts cache.Options) (TrackingCache, error) {
	return inert{}, nil
}

// inert is the stand-in tracking cache.
type inert struct{}

// Start waits for ctx to be done: there is nothing to run.
func (inert) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Source returns a source that never sends an event.
func (inert) Source(handler.EventHandler, ...predicate.Predicate) source.Source {
	return source.Func(func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		return nil
	})
}

// Watch watches nothing and says so.
func (inert) Watch(context.Context, client.Object, sets.Set[schema.GroupVersionKind]) error {
	return ErrNoDriftDetection
}

// Free has nothing to free.
func (inert) Free(context.Context, client.Object) error { return nil }

// Get panics: only the Boxcutter runtime reads through the cache.
func (inert) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	unavailable.Panic("TrackingCache.Get")
	return nil
}

// List panics: only the Boxcutter runtime reads through the cache.
func (inert) List(context.Context, client.ObjectList, ...client.ListOption) error {
	unavailable.Panic("TrackingCache.List")
	return nil
}

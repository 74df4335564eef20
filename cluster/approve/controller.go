package approve

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// resync is how often the Controller reconciles every namespace even when nothing changed.
const resync = 10 * time.Minute

// Controller approves InstallPlans as they come: it watches InstallPlans, Subscriptions, CSVs
// and contract ConfigMaps with informers, and reconciles a namespace (as Once does) whenever one
// of its objects changes. In a dry run it logs what it would do and writes nothing.
type Controller struct {
	actor  *actor
	queue  workqueue.TypedRateLimitingInterface[string]
	scopes []*watched
}

// watched are the informers of one scope: a namespace, or every namespace ("").
type watched struct {
	namespace              string
	plans, subs, csvs, cms cache.SharedIndexInformer
}

// NewController returns a Controller; Run starts it.
func NewController(clients Clients, opts Options) *Controller {
	c := &Controller{
		actor: newActor(clients, opts),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: Component}),
	}
	for _, ns := range opts.scopes() {
		c.scopes = append(c.scopes, c.watch(clients, ns))
	}
	return c
}

// watch creates the informers of one scope, each enqueueing the namespace of what changed.
func (c *Controller) watch(clients Clients, ns string) *watched {
	indexers := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	olm := func(gvr schema.GroupVersionResource, selector string) cache.SharedIndexInformer {
		return dynamicinformer.NewFilteredDynamicInformer(clients.Dynamic, gvr, ns, resync, indexers,
			func(o *metav1.ListOptions) { o.LabelSelector = selector }).Informer()
	}
	w := &watched{namespace: ns,
		plans: olm(installPlansResource, ""), subs: olm(subscriptionsResource, ""), csvs: olm(csvsResource, notCopied),
		cms: coreinformers.NewFilteredConfigMapInformer(clients.Kube, ns, resync, indexers, contractsOnly)}
	for _, inf := range w.informers() {
		_ = inf.SetTransform(transform)
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueue,
			UpdateFunc: func(_, obj any) { c.enqueue(obj) },
			DeleteFunc: c.enqueue,
		})
	}
	return w
}

func (w *watched) informers() []cache.SharedIndexInformer {
	return []cache.SharedIndexInformer{w.plans, w.subs, w.csvs, w.cms}
}

// enqueue queues the namespace of an object (or of a deleted one's last state).
func (c *Controller) enqueue(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetNamespace() != "" {
		c.queue.Add(m.GetNamespace())
	}
}

// Run runs the Controller until ctx ends. It fails only when its informers cannot sync.
func (c *Controller) Run(ctx context.Context) error {
	if !c.actor.dryRun {
		c.actor.events = NewEvents(c.actor.clients.Kube)
		defer c.actor.events.Shutdown()
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	var synced []cache.InformerSynced
	for _, w := range c.scopes {
		for _, inf := range w.informers() {
			go inf.RunWithContext(ctx)
			synced = append(synced, inf.HasSynced)
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("the InstallPlan, Subscription, CSV and ConfigMap informers did not sync")
	}
	fmt.Fprintf(c.actor.log, "watching InstallPlans%s%s\n", c.where(), c.dryRunNote())
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		for c.next(ctx) {
		}
	}, time.Second)
	return nil
}

// where says which namespaces the Controller watches, for its log.
func (c *Controller) where() string {
	if len(c.scopes) == 1 && c.scopes[0].namespace == "" {
		return " in every namespace"
	}
	out := " in namespaces"
	for i, w := range c.scopes {
		if i > 0 {
			out += ","
		}
		out += " " + w.namespace
	}
	return out
}

// dryRunNote says in the log that a dry run writes nothing.
func (c *Controller) dryRunNote() string {
	if c.actor.dryRun {
		return " (dry run: approving nothing, posting no Event, writing no health)"
	}
	return ""
}

// next reconciles the next namespace of the queue; false once the queue shut down.
func (c *Controller) next(ctx context.Context) bool {
	ns, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(ns)
	if err := c.reconcile(ctx, ns); err != nil {
		fmt.Fprintf(c.actor.log, "error: namespace %s: %v (retrying)\n", ns, err)
		c.queue.AddRateLimited(ns)
		return true
	}
	c.queue.Forget(ns)
	return true
}

// reconcile reconciles one namespace from the informers' caches.
func (c *Controller) reconcile(ctx context.Context, ns string) error {
	s, err := c.state(ns)
	if err != nil || s == nil {
		return err
	}
	_, _, err = c.actor.reconcile(ctx, s)
	return err
}

// state reads a namespace's state from the caches of the scope watching it; nil when no scope
// watches it.
func (c *Controller) state(ns string) (*State, error) {
	var w *watched
	for _, sc := range c.scopes {
		if sc.namespace == "" || sc.namespace == ns {
			w = sc
		}
	}
	if w == nil {
		return nil, nil
	}
	cms, err := byNamespace(w.cms, ns)
	if err != nil {
		return nil, err
	}
	var among []*corev1.ConfigMap
	for _, o := range cms {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			among = append(among, cm)
		}
	}
	s := newState(ns, contractAmong(among))
	for _, inf := range []cache.SharedIndexInformer{w.plans, w.subs, w.csvs} {
		objs, err := byNamespace(inf, ns)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if u, ok := o.(*unstructured.Unstructured); ok {
				if err := s.add(u); err != nil {
					return nil, err
				}
			}
		}
	}
	return s, nil
}

// byNamespace lists an informer's cached objects of one namespace.
func byNamespace(inf cache.SharedIndexInformer, ns string) ([]any, error) {
	objs, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
	if err != nil {
		return nil, fmt.Errorf("reading the cache of namespace %s: %w", ns, err)
	}
	return objs, nil
}

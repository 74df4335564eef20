package oracle

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// eventTracker is a fake clientset's object tracker whose watches never block and never
// panic. client-go's tracker sends each event, under its lock, to every watcher's channel of
// 100 and panics ("channel full") when one is full, which happens as soon as a consumer falls
// behind the writers (an informer whose handler is busy while OLM's controllers write in a
// burst, on a loaded machine). This tracker stores objects in client-go's tracker but serves
// watches itself: every write goes through it, under one lock, and is queued, in order, on
// every matching watch's unbounded queue. A fake clientset uses it through its reactors
// (useEventTracker).
type eventTracker struct {
	inner clienttesting.ObjectTracker

	mu       sync.Mutex
	watchers map[schema.GroupVersionResource][]*queuedWatch
}

var _ clienttesting.ObjectTracker = &eventTracker{}

// newEventTracker wraps a tracker.
func newEventTracker(inner clienttesting.ObjectTracker) *eventTracker {
	return &eventTracker{inner: inner, watchers: map[schema.GroupVersionResource][]*queuedWatch{}}
}

// useEventTracker makes a fake clientset serve every request from t (its reactors take
// precedence over the fake's own, which serve the same tracker without t's watches).
func useEventTracker(f *clienttesting.Fake, t *eventTracker) {
	f.PrependReactor("*", "*", clienttesting.ObjectReaction(t))
	f.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		w, err := t.Watch(action.GetResource(), action.GetNamespace(), watchOptions(action)...)
		if err != nil {
			return true, nil, err
		}
		return true, w, nil
	})
}

// watchOptions returns the list options of a watch action, as the fakes' own watch reactors
// pass them to the tracker (their resourceVersion selects the existing objects the watch
// delivers first).
func watchOptions(action clienttesting.Action) []metav1.ListOptions {
	if a, ok := action.(clienttesting.WatchActionImpl); ok {
		return []metav1.ListOptions{a.ListOptions}
	}
	return nil
}

// Add implements clienttesting.ObjectTracker.
func (t *eventTracker) Add(obj runtime.Object) error {
	// Add is only used to seed a tracker, before any watch.
	return t.inner.Add(obj)
}

// Get implements clienttesting.ObjectTracker.
func (t *eventTracker) Get(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.GetOptions) (runtime.Object, error) {
	return t.inner.Get(gvr, ns, name, opts...)
}

// List implements clienttesting.ObjectTracker.
func (t *eventTracker) List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error) {
	return t.inner.List(gvr, gvk, ns, opts...)
}

// Create implements clienttesting.ObjectTracker.
func (t *eventTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	return t.write(gvr, ns, nameOf(obj), watch.Added, func() error { return t.inner.Create(gvr, obj, ns, opts...) })
}

// Update implements clienttesting.ObjectTracker.
func (t *eventTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	return t.write(gvr, ns, nameOf(obj), watch.Modified, func() error { return t.inner.Update(gvr, obj, ns, opts...) })
}

// Patch implements clienttesting.ObjectTracker.
func (t *eventTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.write(gvr, ns, nameOf(obj), watch.Modified, func() error { return t.inner.Patch(gvr, obj, ns, opts...) })
}

// Apply implements clienttesting.ObjectTracker.
func (t *eventTracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	return t.write(gvr, ns, nameOf(applyConfiguration), "", func() error { return t.inner.Apply(gvr, applyConfiguration, ns, opts...) })
}

// Delete implements clienttesting.ObjectTracker.
func (t *eventTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, err := t.inner.Get(gvr, ns, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := t.inner.Delete(gvr, ns, name, opts...); err != nil {
		return err
	}
	if last != nil {
		t.send(gvr, ns, watch.Event{Type: watch.Deleted, Object: last})
	}
	return nil
}

// write runs a write of one object under the lock and sends the stored object to the watches;
// an empty event type means Added when the object did not exist, Modified when it did.
func (t *eventTracker) write(gvr schema.GroupVersionResource, ns, name string, typ watch.EventType, do func() error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if typ == "" {
		typ = watch.Modified
		if _, err := t.inner.Get(gvr, ns, name); apierrors.IsNotFound(err) {
			typ = watch.Added
		}
	}
	if err := do(); err != nil {
		return err
	}
	stored, err := t.inner.Get(gvr, ns, name)
	if err != nil {
		return nil
	}
	if m, err := meta.Accessor(stored); err == nil {
		ns = m.GetNamespace()
	}
	t.send(gvr, ns, watch.Event{Type: typ, Object: stored})
	return nil
}

// send queues an event of an object in namespace ns on the watches that select it. The
// caller holds the lock.
func (t *eventTracker) send(gvr schema.GroupVersionResource, ns string, e watch.Event) {
	for _, w := range t.watchers[gvr] {
		if w.namespace == "" || w.namespace == ns {
			w.push(watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
		}
	}
}

// Watch implements clienttesting.ObjectTracker. It delivers first the existing objects the
// client-go tracker delivers (those written since the resourceVersion of the options; every
// object when it is empty), taken from a watch of the client-go tracker that is stopped at
// once, under the lock, so that no write falls between them and the watch's own events. (Such
// a watch holds at most 100 objects: the informers' reflectors watch from the resourceVersion
// of the list they just made, so only the writes in between are delivered.)
func (t *eventTracker) Watch(gvr schema.GroupVersionResource, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	inner, err := t.inner.Watch(gvr, ns, opts...)
	if err != nil {
		return nil, err
	}
	w := newQueuedWatch(ns, func(w *queuedWatch) { t.unwatch(gvr, w) })
	for pending := true; pending; {
		select {
		case e := <-inner.ResultChan():
			w.push(e)
		default:
			pending = false
		}
	}
	inner.Stop()
	t.watchers[gvr] = append(t.watchers[gvr], w)
	go w.run()
	return w, nil
}

// unwatch forgets a stopped watch.
func (t *eventTracker) unwatch(gvr schema.GroupVersionResource, w *queuedWatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws := t.watchers[gvr]
	for i := range ws {
		if ws[i] == w {
			t.watchers[gvr] = append(ws[:i:i], ws[i+1:]...)
			return
		}
	}
}

// nameOf returns an object's name.
func nameOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetName()
}

// queuedWatch is a watch fed from an unbounded queue.
type queuedWatch struct {
	namespace string
	onStop    func(*queuedWatch)

	mu     sync.Mutex
	queue  []watch.Event
	signal chan struct{}
	out    chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

// newQueuedWatch returns a watch of a namespace ("" for all) that calls onStop when stopped.
func newQueuedWatch(namespace string, onStop func(*queuedWatch)) *queuedWatch {
	return &queuedWatch{namespace: namespace, onStop: onStop, signal: make(chan struct{}, 1),
		out: make(chan watch.Event), stop: make(chan struct{})}
}

// push queues an event; it never blocks.
func (w *queuedWatch) push(e watch.Event) {
	w.mu.Lock()
	w.queue = append(w.queue, e)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

// run hands the queued events on to the consumer, in order, until the watch is stopped.
func (w *queuedWatch) run() {
	defer close(w.out)
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.mu.Unlock()
			select {
			case <-w.signal:
				continue
			case <-w.stop:
				return
			}
		}
		e := w.queue[0]
		w.queue[0] = watch.Event{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		select {
		case w.out <- e:
		case <-w.stop:
			return
		}
	}
}

// Stop implements watch.Interface.
func (w *queuedWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		if w.onStop != nil {
			w.onStop(w)
		}
	})
}

// ResultChan implements watch.Interface.
func (w *queuedWatch) ResultChan() <-chan watch.Event { return w.out }

package approve

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// Component is the source of the approver's Events, and the field manager of its patches.
const Component = "olm-render-approve"

// The reasons of the Events posted on InstallPlans.
const (
	ReasonApproved = "InstallPlanApproved"
	ReasonHeld     = "InstallPlanHeld"
)

// Events posts the approver's Events through client-go's event broadcaster, and can wait until
// those recorded so far were written, for a run that exits right after (Once).
type Events struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever written grows
	recorded int
	written  int
}

// NewEvents returns Events posting through kube's core/v1 Events.
func NewEvents(kube kubernetes.Interface) *Events {
	e := &Events{broadcaster: record.NewBroadcaster(), changed: make(chan struct{})}
	sink := &typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")}
	e.broadcaster.StartRecordingToSink(&countingSink{EventSink: sink, events: e})
	e.recorder = e.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: Component})
	return e
}

// Eventf records an Event on obj.
func (e *Events) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	e.mu.Lock()
	e.recorded++
	e.mu.Unlock()
	e.recorder.Eventf(obj, eventType, reason, format, args...)
}

// Flush waits until every Event recorded so far was sent to the API server once (its write
// may have failed), or ctx ends.
func (e *Events) Flush(ctx context.Context) {
	for {
		e.mu.Lock()
		done, changed := e.written >= e.recorded, e.changed
		e.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// Shutdown stops the broadcaster; Events recorded after it are lost.
func (e *Events) Shutdown() {
	e.broadcaster.Shutdown()
}

// wrote counts one Event sent.
func (e *Events) wrote() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.written++
	close(e.changed)
	e.changed = make(chan struct{})
}

// countingSink counts the Events the broadcaster sends: the first write of each (a retry or an
// update of a repeated Event counts again, so Flush may end early, never late).
type countingSink struct {
	record.EventSink
	events *Events
}

// Create creates an Event, counting it.
func (s *countingSink) Create(ev *corev1.Event) (*corev1.Event, error) {
	defer s.events.wrote()
	return s.EventSink.Create(ev)
}

// Update updates an Event, counting it.
func (s *countingSink) Update(ev *corev1.Event) (*corev1.Event, error) {
	defer s.events.wrote()
	return s.EventSink.Update(ev)
}

// Patch patches an Event (a repeated one's count), counting it.
func (s *countingSink) Patch(ev *corev1.Event, data []byte) (*corev1.Event, error) {
	defer s.events.wrote()
	return s.EventSink.Patch(ev, data)
}

// flushTimeout bounds how long Once waits for its Events.
const flushTimeout = 10 * time.Second

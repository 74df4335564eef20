package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultStallTimeout is how long a registry may keep a request waiting without sending a byte
// before the pull fails. Argo CD stops a plugin after 90 seconds by default; a registry that
// accepts a connection and never answers must not hang a render past that.
const DefaultStallTimeout = 60 * time.Second

// errStalled is the cause of a request cancelled by its watchdog.
var errStalled = errors.New("the registry stopped sending")

// watchdog cancels a request when it makes no progress for a while: a slow but steady
// download of a large layer goes on, a registry that stops answering does not hang the run.
type watchdog struct {
	timer   *time.Timer
	timeout time.Duration
}

// watch returns a context cancelled after timeout without progress, and a function that stops
// the watch (call it when the request is done).
func watch(ctx context.Context, timeout time.Duration) (context.Context, *watchdog, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{timeout: timeout}
	w.timer = time.AfterFunc(timeout, func() { cancel(errStalled) })
	return ctx, w, func() {
		w.timer.Stop()
		cancel(nil)
	}
}

// progress restarts the wait.
func (w *watchdog) progress() { w.timer.Reset(w.timeout) }

// reader restarts the wait on every read that returns data.
func (w *watchdog) reader(r io.Reader) io.Reader { return &watchedReader{r: r, w: w} }

type watchedReader struct {
	r io.Reader
	w *watchdog
}

func (r *watchedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.w.progress()
	}
	return n, err
}

// stalled rewrites the error of a request its watchdog cancelled to say so.
func (c *Client) stalled(ctx context.Context, what string, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errStalled) {
		return fmt.Errorf("%s: no answer from the registry for %s (raise --registry-timeout for a slow registry)", what, c.stall)
	}
	return err
}

package refresh

import (
	"context"
	"sync"
)

// flight makes refreshes single-flight and lets a caller wait for the one
// running: begin starts a refresh unless one runs, end finishes it, wait
// blocks until no refresh runs.
type flight struct {
	mu   sync.Mutex
	done chan struct{} // closed when the running refresh ends; nil when none runs
}

// begin starts a refresh; false means one is already running.
func (f *flight) begin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done != nil {
		return false
	}
	f.done = make(chan struct{})
	return true
}

// end finishes the refresh begin started.
func (f *flight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.done)
	f.done = nil
}

// wait blocks until the running refresh, if any, ends, or ctx ends.
func (f *flight) wait(ctx context.Context) error {
	f.mu.Lock()
	done := f.done
	f.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Hold marks a refresh as running, as one that takes long would, until
// release is called; false when one already runs. Tests use it to check
// what waits for a running refresh.
func (r *Refresher) Hold() (release func(), ok bool) {
	if !r.flight.begin() {
		return nil, false
	}
	return r.flight.end, true
}

package skillsd

import (
	"context"
	"errors"
	"sync"
	"time"
)

// skipCacheFetchTimeout bounds the synchronisation of the git sources that a
// skip_cache read starts: a remote slower than that, or unreachable, does not
// hold the read longer; the read is then served from the checkout on disk.
const skipCacheFetchTimeout = 20 * time.Second

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

// reloadForRead is what a read with skip_cache does before it is served.
// Local sources only: the catalog is rebuilt from disk. With git sources:
// they are synchronised and the catalog rebuilt (refresh); when a refresh
// is already running the read waits for it and is served what it built. A
// git source that cannot be synchronised (unreachable, slower than
// skipCacheFetchTimeout) does not fail the read: it is logged and the read
// is served the checkout on disk. Only the read's own context ending fails
// it.
func (s *Server) reloadForRead(ctx context.Context) error {
	if len(s.fresh.git) == 0 {
		return s.rebuild(ctx)
	}
	fctx, cancel := context.WithTimeout(ctx, skipCacheFetchTimeout)
	rep, err := s.refresh(fctx)
	cancel()
	switch {
	case err == nil && rep.Busy:
		if err := s.fresh.flight.wait(ctx); err != nil {
			return err
		}
		return nil
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	// The refresh gave up (its time limit) or its rebuild failed: serve
	// what is on disk.
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("skip_cache: the git sources were not synchronised in time; serving their last checkout",
			"timeout", skipCacheFetchTimeout)
	} else {
		s.log.Warn("skip_cache: refreshing the git sources failed; serving their last checkout", "error", err)
	}
	return s.rebuild(ctx)
}

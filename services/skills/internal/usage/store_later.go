package usage

import (
	"context"
	"errors"
	"sync"
)

// errStoreClosed is what a deferred store gives once the Recorder is
// closed before anything opened it.
var errStoreClosed = errors.New("usage: the store is closed")

// laterStore is a Store opened on its first use (Options.StoreAfter): the
// first Ingest or Stats opens it, and every call after gets that store or
// that opening's error. Close before the first use keeps it from opening.
type laterStore struct {
	open func(context.Context) (Store, error)
	// failed is told the opening's error, once.
	failed func(error)
	// opened is closed once the store was opened or failed to open (or
	// was closed unopened): the work that waits for the store may start.
	opened chan struct{}
	once   sync.Once
	st     Store
	err    error
}

func newLaterStore(open func(context.Context) (Store, error), failed func(error)) *laterStore {
	return &laterStore{open: open, failed: failed, opened: make(chan struct{})}
}

// get opens the store the first time; it returns it, or why it did not open.
func (l *laterStore) get() (Store, error) {
	l.once.Do(func() {
		defer close(l.opened)
		// Not the caller's context: the store outlives the call that
		// happened to open it.
		if l.st, l.err = l.open(context.Background()); l.err != nil && l.failed != nil {
			l.failed(l.err)
		}
	})
	return l.st, l.err
}

func (l *laterStore) Ingest(ctx context.Context, events []Event) (int, int, error) {
	st, err := l.get()
	if err != nil {
		return 0, 0, err
	}
	return st.Ingest(ctx, events)
}

func (l *laterStore) Stats(ctx context.Context, w Window) (*Stats, error) {
	st, err := l.get()
	if err != nil {
		return nil, err
	}
	return st.Stats(ctx, w)
}

func (l *laterStore) Close() error {
	l.once.Do(func() {
		l.err = errStoreClosed
		close(l.opened)
	})
	if l.st != nil {
		return l.st.Close()
	}
	return nil
}

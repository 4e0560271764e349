package catalog

import (
	"slices"
	"sync"
	"time"
)

// Change is what one swap of the Store changed.
type Change struct {
	// Generation is the new snapshot's generation.
	Generation uint64
	// At is when the new snapshot was swapped in.
	At time.Time
	// Added, Changed and Removed are skill paths, sorted: skills that
	// appeared, skills whose skill file, companion files or source changed,
	// and skills that disappeared.
	Added, Changed, Removed []string
	// Previous and Current are the snapshots before and after the swap
	// (Previous is nil for the first one).
	Previous, Current *Snapshot
}

// Empty reports whether no skill was added, changed or removed.
func (c Change) Empty() bool {
	return len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// Diff compares two snapshots skill by skill. A nil prev is an empty
// catalog. A skill counts as changed when its skill file was parsed again (or
// its size or time moved), its companion files differ (path, size or digest),
// or it moved to another source.
func Diff(prev, next *Snapshot) Change {
	c := Change{Previous: prev, Current: next, Added: []string{}, Changed: []string{}, Removed: []string{}}
	if next == nil {
		return c
	}
	if prev == nil {
		for _, sk := range next.skills {
			c.Added = append(c.Added, sk.Path)
		}
		return c
	}
	for _, sk := range next.skills {
		old := prev.byPath[sk.Path]
		switch {
		case old == nil:
			c.Added = append(c.Added, sk.Path)
		case !sameSkill(old, sk):
			c.Changed = append(c.Changed, sk.Path)
		}
	}
	for _, sk := range prev.skills {
		if next.byPath[sk.Path] == nil {
			c.Removed = append(c.Removed, sk.Path)
		}
	}
	return c
}

func sameSkill(a, b *Skill) bool {
	if a.Doc != b.Doc || a.File != b.File || a.Size != b.Size || !a.ModTime.Equal(b.ModTime) ||
		a.Source.Name != b.Source.Name || a.Source.Dir != b.Source.Dir || len(a.Files) != len(b.Files) ||
		a.Quarantined() != b.Quarantined() {
		return false
	}
	for i := range a.Files {
		fa, fb := &a.Files[i], &b.Files[i]
		if fa.Path != fb.Path || fa.Size != fb.Size || fa.Digest != fb.Digest {
			return false
		}
	}
	return true
}

// Same reports whether next serves exactly what prev serves: the same skills
// (Diff is empty), the same diagnostics, the same sources and the same ID
// (a git source at a new commit that changed no file is a change). A rebuild that
// finds nothing new need not be swapped in.
func Same(prev, next *Snapshot) bool {
	if prev == nil || next == nil {
		return prev == next
	}
	if prev.id != next.id || !Diff(prev, next).Empty() || !slices.Equal(prev.diags, next.diags) || len(prev.sources) != len(next.sources) {
		return false
	}
	for i := range prev.sources {
		if !prev.sources[i].equal(next.sources[i]) {
			return false
		}
	}
	return true
}

// subscriberBuffer is how many changes a subscriber may lag behind before it
// is dropped (its channel closed).
const subscriberBuffer = 64

// feed hands each Change to the Store's subscribers.
type feed struct {
	mu     sync.Mutex
	subs   map[chan Change]struct{}
	closed bool
}

// Subscribe returns a channel that receives every Change from now on, in
// generation order, and a function that ends the subscription. A subscriber
// that lets 64 changes pile up is dropped: the changes it had not read are
// discarded and its channel is closed. Close closes every channel (after
// the changes already in it). A closed channel means "subscribe again and
// re-read the catalog". The Store must not be copied after the first call.
func (st *Store) Subscribe() (<-chan Change, func()) {
	f := &st.feed
	ch := make(chan Change, subscriberBuffer)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		close(ch)
		return ch, func() {}
	}
	if f.subs == nil {
		f.subs = map[chan Change]struct{}{}
	}
	f.subs[ch] = struct{}{}
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.subs[ch]; ok {
			delete(f.subs, ch)
			close(ch)
		}
	}
}

// Closed reports whether Close was called: a closed subscription channel
// then means the server is stopping, not that its reader fell behind.
func (st *Store) Closed() bool {
	f := &st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// Close closes every subscription and refuses new ones (they get a closed
// channel); swaps still work. It is how a stopping server ends its change
// streams.
func (st *Store) Close() {
	f := &st.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for ch := range f.subs {
		close(ch)
	}
	f.subs = nil
}

// publish sends c to every subscriber, dropping those whose buffer is full.
func (f *feed) publish(c Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- c:
		default:
			delete(f.subs, ch)
			discard(ch)
			close(ch)
		}
	}
}

// discard empties the buffer of a dropped subscriber: it must re-read the
// catalog anyway, and the changes it did not read hold two snapshots each,
// which a reader stalled for good (a watch client that never reads) would
// otherwise keep alive for as long as it holds the channel.
func discard(ch chan Change) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

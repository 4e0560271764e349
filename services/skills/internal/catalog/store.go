package catalog

import (
	"sync"
	"sync/atomic"
	"time"
)

// Store holds the snapshot being served. Readers never lock: Current is one
// atomic load. The zero Store is ready to use and holds no snapshot.
type Store struct {
	mu  sync.Mutex // serialises Swap
	gen uint64
	cur atomic.Pointer[Snapshot]
	// feed tells subscribers about each swap (see Subscribe).
	feed feed
}

// Current returns the snapshot being served; nil before the first Swap.
func (st *Store) Current() *Snapshot { return st.cur.Load() }

// Swap makes s the snapshot being served, gives it the next generation number
// (1 for the first), and returns the snapshot it replaces (nil the first time).
// Swap(nil) changes nothing and returns the current snapshot. Subscribers
// receive the Change (see Subscribe) before Swap returns.
func (st *Store) Swap(s *Snapshot) (previous *Snapshot) {
	if s == nil {
		return st.cur.Load()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.gen++
	s.gen.Store(st.gen)
	previous = st.cur.Swap(s)
	c := Diff(previous, s)
	c.Generation, c.At = st.gen, time.Now()
	st.feed.publish(c)
	return previous
}

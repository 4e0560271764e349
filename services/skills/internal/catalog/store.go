package catalog

import (
	"sync"
	"sync/atomic"
)

// Store holds the snapshot being served. Readers never lock: Current is one
// atomic load. The zero Store is ready to use and holds no snapshot.
type Store struct {
	mu  sync.Mutex // serialises Swap
	gen uint64
	cur atomic.Pointer[Snapshot]
}

// Current returns the snapshot being served; nil before the first Swap.
func (st *Store) Current() *Snapshot { return st.cur.Load() }

// Swap makes s the snapshot being served, gives it the next generation number
// (1 for the first), and returns the snapshot it replaces (nil the first time).
// Swap(nil) changes nothing and returns the current snapshot.
func (st *Store) Swap(s *Snapshot) (previous *Snapshot) {
	if s == nil {
		return st.cur.Load()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.gen++
	s.gen.Store(st.gen)
	return st.cur.Swap(s)
}

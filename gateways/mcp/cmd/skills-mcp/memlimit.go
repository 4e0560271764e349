package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// skills-mcp runs beside an editor on developer machines, for hours: without
// a limit the heap may grow to twice what is live before the collector runs.
// A fixed soft limit (it was 128 MiB) bounds that for small catalogs but makes
// the collector run almost without pause once the catalog itself needs more
// (10,000 skills). So the limit follows the live heap instead:
//
//   - none while the catalog loads (the collector paces itself by GOGC);
//   - once it is loaded, and again after every collection, the live heap plus
//     half of it as headroom, plus what the runtime holds outside the heap
//     (stacks, metadata), and never below minMemoryLimit.
//
// The collector then runs at most about twice as often as GOGC=100 alone
// would make it, at any catalog size, and the limit grows with the catalog
// (the search index built on the first search, a reload with more skills) and
// shrinks back to the floor when it shrinks. GOMEMLIMIT (a Go runtime
// setting) overrides all of it, "off" removes it.

// minMemoryLimit is the floor of the limit: under it small catalogs are paced
// by GOGC alone, as without a limit.
const minMemoryLimit = 128 << 20

// memoryLimit is the soft limit for a live heap of live bytes when the
// runtime holds other bytes outside the heap: live + live/2 + other, at least
// minMemoryLimit. It never falls below what is live: the limit is what the
// collector aims at, and aiming below the live heap is what makes it thrash.
func memoryLimit(live, other uint64) int64 {
	const ceiling = math.MaxInt64 / 2
	if live > ceiling/2 || other > ceiling/2 {
		return ceiling
	}
	limit := int64(live + live/2 + other)
	if limit < minMemoryLimit {
		return minMemoryLimit
	}
	return limit
}

// memoryLimitSet says the user chose the limit: GOMEMLIMIT is set (a size or
// "off"), and skills-mcp leaves the runtime's limit alone.
func memoryLimitSet(getenv func(string) string) bool {
	return getenv("GOMEMLIMIT") != ""
}

// trackMemoryLimit sets the limit from the live heap now (call it once the
// catalog is loaded) and after every collection from then on; it does nothing
// when GOMEMLIMIT is set.
func trackMemoryLimit(getenv func(string) string) {
	if memoryLimitSet(getenv) {
		return
	}
	applyMemoryLimit()
	armGCHook(applyMemoryLimit)
}

// memSamples are the runtime metrics applyMemoryLimit reads.
var memSamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// applyMemoryLimit sets the limit from the live heap as of the last
// collection. Before any collection it is 0: the floor applies, and the first
// collection corrects it.
func applyMemoryLimit() {
	metrics.Read(memSamples)
	v := make([]uint64, len(memSamples))
	for i, s := range memSamples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	live, total, released, objects, unused, free := v[0], v[1], v[2], v[3], v[4], v[5]
	var other uint64 // what the limit counts outside the heap: stacks, metadata, buffers
	if heap := released + objects + unused + free; total > heap {
		other = total - heap
	}
	debug.SetMemoryLimit(memoryLimit(live, other))
}

// gcTick is an object that lives until the next collection; its finalizer
// runs fn and arms the next one. The pointer field keeps it out of the tiny
// allocator, whose objects may never be finalized.
type gcTick struct {
	fn func()
	_  *int
}

// armGCHook runs fn after each collection from now on, for the life of the
// process.
func armGCHook(fn func()) {
	t := &gcTick{fn: fn}
	runtime.SetFinalizer(t, func(t *gcTick) {
		t.fn()
		armGCHook(t.fn)
	})
}

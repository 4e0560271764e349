package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// skills-mcp runs beside an editor on developer machines, for hours: without
// a limit the heap may grow to twice what is live before the collector runs.
// A fixed soft limit (it was 128 MiB) bounds that for small catalogs but makes
// the collector run almost without pause once the catalog itself needs more
// (10,000 skills). So the limit follows the live heap instead:
//
//   - from the start, and again after every collection, the live heap plus
//     headroom, plus what the runtime holds outside the heap (stacks,
//     metadata), and never below minMemoryLimit (under which GOGC paces the
//     collector, as without a limit: small catalogs, and the start of a
//     large one).
//
// It once started after the catalog's load, leaving the load to GOGC: a
// warm start of 10,000 skills then peaked 70–85 MB higher (VmHWM 400–416
// against 328–332 MB, the same code but for when the limit starts, two
// starts each), with no less CPU; a cold start's figures did not move.
//
// The headroom depends on how busy the collector is. While collections come
// less than settleAfter apart (a build: a cold start's scan and analysis, the
// index of a new snapshot) it is half the live heap: the collector runs at
// most about twice as often as GOGC=100 alone would make it (a quarter made
// a cold 10,000-skill start take three times as long). Once a collection
// comes later than that, or none has come for settleAfter since the last
// busy one, the process is serving: the headroom is a quarter of the live
// heap, which a search's few allocations take long to fill, and when a busy
// spell ends the heap is collected once more and what it no longer uses is
// returned to the system (debug.FreeOSMemory), so that a build's peak does
// not stay resident. The limit grows with the catalog (the search index built
// on the first search, a reload with more skills) and shrinks back to the
// floor when it shrinks. GOMEMLIMIT (a Go runtime setting) overrides all of
// it, "off" removes it.

// minMemoryLimit is the floor of the limit: under it small catalogs are paced
// by GOGC alone, as without a limit.
const minMemoryLimit = 128 << 20

// The headroom above the live heap is 1/busyShare of it while the collector
// is busy, 1/idleShare once it is not.
const (
	busyShare = 2
	idleShare = 4
)

// settleAfter is how far apart two collections are for the collector to
// count as idle, and how long after a busy one the process settles.
const settleAfter = time.Second

// memoryLimit is the soft limit for a live heap of live bytes when the
// runtime holds other bytes outside the heap, with 1/share of the live heap
// as headroom: live + live/share + other, at least minMemoryLimit. It never
// falls below what is live: the limit is what the collector aims at, and
// aiming below the live heap is what makes it thrash.
func memoryLimit(live, other uint64, share uint64) int64 {
	const ceiling = math.MaxInt64 / 2
	if live > ceiling/2 || other > ceiling/2 {
		return ceiling
	}
	limit := int64(live + live/share + other)
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

// trackMemoryLimit sets the limit from the live heap now (call it at the
// start) and after every collection from then on; it does nothing when
// GOMEMLIMIT is set.
func trackMemoryLimit(getenv func(string) string) {
	if memoryLimitSet(getenv) {
		return
	}
	t := &limitTracker{settleAfter: settleAfter, apply: applyMemoryLimit, release: debug.FreeOSMemory}
	t.collected()
	armGCHook(t.collected)
	settleLoad = t.settleAfterLoad
	if mayCollectAtLimit(getenv) {
		collectAtLimit = func() func() { return atLimit(debug.SetGCPercent) }
	}
}

// mayCollectAtLimit says whether a start may have its heap collected at the
// limit only (collectAtLimit): not when the user set GOGC, nor GOMEMLIMIT
// (then there is no tracker, and no limit of ours to collect at).
func mayCollectAtLimit(getenv func(string) string) bool {
	return !memoryLimitSet(getenv) && getenv("GOGC") == ""
}

// collectAtLimit, when set (trackMemoryLimit, unless GOGC is set), has the
// heap collected only when it reaches the memory limit until the function
// it returns is called, which gives the collector its pacing back. A warm
// start of the embedded service runs under it (serve.go): its load reads
// back what the last process kept and leaves little garbage, its heap stays
// far below the limit's floor at a few hundred skills, and the collections
// GOGC would make on its young heap on the way were 13 ms of the 90 ms to
// its first search at 387 skills (GOGC=off against the default, alternated,
// 10 starts each). A first start is left to GOGC: its build leaves garbage
// enough to reach the limit (a first start of 387 skills answered at 150 MB
// instead of 91). The limit (this tracker's, at least minMemoryLimit)
// bounds the heap all the same: at 10,000 skills, whose live heap is above
// the floor, nothing changes.
var collectAtLimit func() (end func())

// atLimit turns the collector's pacing off with setPercent
// (debug.SetGCPercent(-1): collections at the memory limit only) and
// returns the function that sets it back, once.
func atLimit(setPercent func(int) int) (end func()) {
	prev := setPercent(-1)
	var once sync.Once
	return func() { once.Do(func() { setPercent(prev) }) }
}

// settleLoad, when set (trackMemoryLimit), is told how long the embedded
// catalog's first load took, once it is ready and before the first call
// that waited for it is served.
var settleLoad func(took time.Duration)

// longLoad is how long a first load takes for its end to be settled before
// the first answer: a build that long (a first start of thousands of
// skills) leaves behind as much garbage as the headroom it was given, which
// the tracker would return a second later anyway; returned before the
// first answer instead, it costs a fraction of a second after the load,
// and the process serves at its live size from its first answer (a cold
// 10,000-skill start: about 300 MB instead of 330–400). A short load (a
// warm start) is not held up.
const longLoad = 5 * time.Second

// settleAfterLoad settles at once after a first load of took, when it was
// a long one.
func (t *limitTracker) settleAfterLoad(took time.Duration) {
	if took < longLoad {
		return
	}
	t.mu.Lock()
	t.settling = false
	t.mu.Unlock()
	t.apply(idleShare)
	t.release()
}

// limitTracker chooses the headroom after each collection (collected) and
// settles the process once the collector is no longer busy. Its fields
// besides mu are set before its first use.
type limitTracker struct {
	settleAfter time.Duration
	// apply sets the limit with 1/share of the live heap as headroom;
	// release collects and returns unused memory to the system.
	apply   func(share uint64)
	release func()

	mu sync.Mutex
	// last is when collected last ran; settling says a settle is due.
	last     time.Time
	settling bool
}

// collected runs after each collection: close to the one before, the
// collector is busy (wide headroom, and a settle once it is not); else the
// process is serving (narrow headroom).
func (t *limitTracker) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	busy := t.last.IsZero() || now.Sub(t.last) < t.settleAfter
	t.last = now
	if !busy {
		t.apply(idleShare)
		return
	}
	t.apply(busyShare)
	if !t.settling {
		t.settling = true
		time.AfterFunc(t.settleAfter, t.settle)
	}
}

// settle narrows the headroom and releases unused memory once no
// collection has come for settleAfter; until then it waits.
func (t *limitTracker) settle() {
	t.mu.Lock()
	if wait := t.settleAfter - time.Since(t.last); wait > 0 {
		t.mu.Unlock()
		time.AfterFunc(wait, t.settle)
		return
	}
	t.settling = false
	t.mu.Unlock()
	// The collection release makes runs collected, which finds it idle.
	t.apply(idleShare)
	t.release()
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
// collection, with 1/share of it as headroom. Before any collection it is 0:
// the floor applies, and the first collection corrects it.
func applyMemoryLimit(share uint64) {
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
	debug.SetMemoryLimit(memoryLimit(live, other, share))
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

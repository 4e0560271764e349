package main

import (
	"context"
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name        string
		live, other uint64
		share       uint64
		want        int64
	}{
		{"before any collection: the floor", 0, 0, busyShare, minMemoryLimit},
		{"387 skills: the floor", 30 * mib, 8 * mib, busyShare, minMemoryLimit},
		{"just under the floor", 80 * mib, 7 * mib, busyShare, minMemoryLimit},
		{"3,000 skills, busy: above the floor", 90 * mib, 10 * mib, busyShare, 145 * mib},
		{"3,000 skills, idle: above the floor", 120 * mib, 10 * mib, idleShare, 160 * mib},
		{"10,000 skills, busy: live and a half, plus the rest", 300 * mib, 20 * mib, busyShare, 470 * mib},
		{"10,000 skills, idle: live and a quarter, plus the rest", 300 * mib, 20 * mib, idleShare, 395 * mib},
		{"absurd sizes saturate", math.MaxUint64 / 2, 0, idleShare, math.MaxInt64 / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memoryLimit(tc.live, tc.other, tc.share)
			if got != tc.want {
				t.Errorf("memoryLimit(%d, %d, %d) = %d, want %d", tc.live, tc.other, tc.share, got, tc.want)
			}
		})
	}
}

// TestMemoryLimitNeverBelowLive checks the policy never aims the collector
// below the live heap and what the runtime holds beside it, and that it grows
// with the live heap, so a bigger catalog never makes the collector thrash.
func TestMemoryLimitNeverBelowLive(t *testing.T) {
	for _, share := range []uint64{busyShare, idleShare} {
		prev := int64(0)
		for live := uint64(0); live < 64<<30; live = live*2 + 1<<20 {
			for _, other := range []uint64{0, 1 << 20, 64 << 20} {
				got := memoryLimit(live, other, share)
				if got < int64(live+live/share+other) || got < minMemoryLimit {
					t.Fatalf("memoryLimit(%d, %d, %d) = %d: below live+live/%d+other or the floor", live, other, share, got, share)
				}
			}
			got := memoryLimit(live, 0, share)
			if got < prev {
				t.Fatalf("memoryLimit(%d, 0, %d) = %d, smaller than for a smaller heap (%d)", live, share, got, prev)
			}
			prev = got
		}
	}
}

// TestLimitTracker drives a tracker by hand: collections close together
// keep the wide headroom; once none comes for settleAfter it settles once
// (narrow headroom, memory released), and a lone collection later keeps
// the narrow one without settling again.
func TestLimitTracker(t *testing.T) {
	// Long beside the 10 ms between a busy spell's collections, so that a
	// stall of the test on a loaded machine (CI runs modules side by side,
	// with the race detector) does not end the spell early.
	const settle = time.Second
	var mu sync.Mutex
	var shares []uint64
	released := make(chan struct{}, 4)
	tr := &limitTracker{settleAfter: settle,
		apply:   func(share uint64) { mu.Lock(); shares = append(shares, share); mu.Unlock() },
		release: func() { released <- struct{}{} },
	}
	last := func() uint64 { mu.Lock(); defer mu.Unlock(); return shares[len(shares)-1] }
	tr.collected() // the catalog is loaded
	for range 5 {  // a build: collections 10 ms apart
		time.Sleep(10 * time.Millisecond)
		tr.collected()
		if got := last(); got != busyShare {
			t.Fatalf("during a busy spell the headroom is 1/%d, want 1/%d", got, busyShare)
		}
		select {
		case <-released:
			t.Fatal("memory released during a busy spell")
		default:
		}
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("no settle within 5 s of the last collection")
	}
	if got := last(); got != idleShare {
		t.Fatalf("settled, the headroom is 1/%d, want 1/%d", got, idleShare)
	}
	tr.collected() // the collection release makes
	if got := last(); got != idleShare {
		t.Fatalf("after the settle's collection the headroom is 1/%d, want 1/%d", got, idleShare)
	}
	time.Sleep(settle + settle/2)
	tr.collected() // a lone collection while serving
	if got := last(); got != idleShare {
		t.Fatalf("a lone collection: the headroom is 1/%d, want 1/%d", got, idleShare)
	}
	time.Sleep(settle + settle/2)
	select {
	case <-released:
		t.Fatal("released again without a busy spell")
	default:
	}
}

func TestMemoryLimitSet(t *testing.T) {
	for v, want := range map[string]bool{"": false, "off": true, "512MiB": true} {
		getenv := func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		}
		if got := memoryLimitSet(getenv); got != want {
			t.Errorf("GOMEMLIMIT=%q: memoryLimitSet = %v, want %v", v, got, want)
		}
	}
}

// TestTrackMemoryLimit checks the limit is left alone when GOMEMLIMIT is set,
// and otherwise set at once and followed after collections.
func TestTrackMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })

	const userSet = 3 << 30
	debug.SetMemoryLimit(userSet)
	trackMemoryLimit(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "3GiB"
		}
		return ""
	})
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != userSet {
		t.Fatalf("with GOMEMLIMIT set, the limit became %d, want %d (untouched)", got, userSet)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	trackMemoryLimit(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got < minMemoryLimit || got == math.MaxInt64 {
		t.Fatalf("after trackMemoryLimit the limit is %d, want at least %d and set", got, minMemoryLimit)
	}
	// After a collection the hook sets it again: move it away and wait.
	debug.SetMemoryLimit(math.MaxInt64)
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) == math.MaxInt64 {
		if time.Now().After(deadline) {
			t.Fatal("no collection hook set the limit again within 5 s")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSettleAfterLoad: a first load of longLoad or more is settled at once
// (narrow headroom, memory released); a shorter one is left to the timer.
func TestSettleAfterLoad(t *testing.T) {
	var shares []uint64
	released := 0
	tr := &limitTracker{settleAfter: time.Hour,
		apply:   func(share uint64) { shares = append(shares, share) },
		release: func() { released++ },
	}
	tr.settleAfterLoad(longLoad - time.Millisecond)
	if released != 0 || len(shares) != 0 {
		t.Fatalf("a short load: released %d times, headroom set %v", released, shares)
	}
	tr.settleAfterLoad(longLoad)
	if released != 1 || len(shares) != 1 || shares[0] != idleShare {
		t.Fatalf("a long load: released %d times, headroom set %v, want once and 1/%d", released, shares, idleShare)
	}
}

// TestSettledAfterLoad: the first call that waits for the catalog is
// served once the settle, told how long the load took from the start, has
// run; later calls do not settle again; a wait that fails settles nothing.
func TestSettledAfterLoad(t *testing.T) {
	ready := make(chan struct{})
	wait := func(ctx context.Context) error {
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var tooks []time.Duration
	settled := make(chan struct{})
	settle := func(took time.Duration) {
		tooks = append(tooks, took)
		close(settled)
	}
	start := time.Now().Add(-time.Minute)
	w := settledAfterLoad(wait, start, settle)
	done := make(chan error, 1)
	go func() { done <- w(t.Context()) }()
	select {
	case <-done:
		t.Fatal("served before the load ended")
	case <-time.After(50 * time.Millisecond):
	}
	close(ready)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-settled:
	default:
		t.Fatal("served before the settle")
	}
	if err := w(t.Context()); err != nil || len(tooks) != 1 || tooks[0] < time.Minute {
		t.Fatalf("settles %v (err %v), want one of at least a minute", tooks, err)
	}

	failing := settledAfterLoad(func(context.Context) error { return errors.New("closed") }, start, func(time.Duration) { t.Error("settled after a failed load") })
	if failing(t.Context()) == nil {
		t.Error("the wait's error was lost")
	}
	if got := settledAfterLoad(wait, start, nil); got == nil || got(t.Context()) != nil {
		t.Error("without a settle, not the wait itself")
	}
}

// TestAtLimit: the collector's pacing is off (-1) until the end, which sets
// back what was there, once.
func TestAtLimit(t *testing.T) {
	percent, calls := 150, 0
	set := func(p int) int {
		calls++
		prev := percent
		percent = p
		return prev
	}
	end := atLimit(set)
	if percent != -1 {
		t.Fatalf("during the start: GC percent %d, want -1", percent)
	}
	end()
	if percent != 150 {
		t.Fatalf("after the end: GC percent %d, want 150 back", percent)
	}
	percent = 300 // set by someone else since
	end()
	if percent != 300 || calls != 2 {
		t.Errorf("a second end set the percent again (%d, %d calls)", percent, calls)
	}
}

// TestMayCollectAtLimit: a GOGC the user set is left alone, as is a
// GOMEMLIMIT (no tracker, so no limit of ours to collect at).
func TestMayCollectAtLimit(t *testing.T) {
	for env, want := range map[string]bool{"": true, "GOGC=200": false, "GOGC=off": false, "GOMEMLIMIT=1GiB": false, "GOMEMLIMIT=off": false} {
		k, v, _ := strings.Cut(env, "=")
		getenv := func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
		if got := mayCollectAtLimit(getenv); got != want {
			t.Errorf("%q: mayCollectAtLimit = %v, want %v", env, got, want)
		}
	}
}

package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name        string
		live, other uint64
		want        int64
	}{
		{"before any collection: the floor", 0, 0, minMemoryLimit},
		{"387 skills: the floor", 30 * mib, 8 * mib, minMemoryLimit},
		{"just under the floor", 80 * mib, 7 * mib, minMemoryLimit},
		{"3,000 skills: above the floor", 90 * mib, 10 * mib, 145 * mib},
		{"10,000 skills: live and a half, plus the rest", 300 * mib, 20 * mib, 470 * mib},
		{"absurd sizes saturate", math.MaxUint64 / 2, 0, math.MaxInt64 / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := memoryLimit(tc.live, tc.other)
			if got != tc.want {
				t.Errorf("memoryLimit(%d, %d) = %d, want %d", tc.live, tc.other, got, tc.want)
			}
		})
	}
}

// TestMemoryLimitNeverBelowLive checks the policy never aims the collector
// below the live heap and what the runtime holds beside it, and that it grows
// with the live heap, so a bigger catalog never makes the collector thrash.
func TestMemoryLimitNeverBelowLive(t *testing.T) {
	prev := int64(0)
	for live := uint64(0); live < 64<<30; live = live*2 + 1<<20 {
		for _, other := range []uint64{0, 1 << 20, 64 << 20} {
			got := memoryLimit(live, other)
			if got < int64(live+live/2+other) || got < minMemoryLimit {
				t.Fatalf("memoryLimit(%d, %d) = %d: below live+live/2+other or the floor", live, other, got)
			}
		}
		got := memoryLimit(live, 0)
		if got < prev {
			t.Fatalf("memoryLimit(%d, 0) = %d, smaller than for a smaller heap (%d)", live, got, prev)
		}
		prev = got
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

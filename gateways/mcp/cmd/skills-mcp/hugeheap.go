package main

import (
	"runtime"
	"strings"
	"unsafe"
)

// A start of the embedded service fills a fresh heap: the catalog cache's
// skills, the walk's records, the search index, the handshake. Each 4 KiB
// page of it costs a page fault when it is first touched, and on the
// virtual machines we measure on (docs/performance.md) such a fault costs
// about 3 µs: a warm start of 387 skills faults in some 40 MB, a large part
// of its CPU time. A 2 MiB page costs one fault for 512 of them.
//
// Linux gives a process such transparent huge pages, where its settings are
// "madvise" (the common default), only for the memory it asks them for
// (madvise MADV_HUGEPAGE). The Go runtime no longer asks, and it maps its
// heap as it grows, so advice given to memory it has not mapped yet is lost.
// So before the service starts, hugeStartHeap has the runtime map
// startHeapBytes of heap at once (one allocation, never touched, which the
// collection it starts frees, waited for), and asks for huge pages over it;
// the start then fills that range, a huge page at a time, and the runtime
// returns the rest to the system in the background.
//
// The advice is withdrawn (MADV_NOHUGEPAGE) once the start is over
// (endStart: the host's first search answered): huge pages already in use
// stay, but the kernel's background collapsing (khugepaged) is not to
// refill the pages the runtime returns to the system later, which would
// keep memory resident that the process no longer uses.
//
// Measured (warm starts alternated with the same build without it, docs/
// performance.md, stop 33): 387 skills, start to first search 116 -> 90 ms
// and CPU 150 -> 110 ms; 3,000 skills 420 -> 328 ms; 10,000 skills 1,127 ->
// 889 ms; resident memory within 3 MB.
//
// GODEBUG=disablethp=1, the Go runtime's own switch against huge pages for
// its heap, turns it off. Where the system offers no transparent huge pages
// (elsewhere than Linux, a kernel without them, or them set to "never":
// hugePagesOffered) nothing is done.

// startHeapBytes is how much heap hugeStartHeap maps for the start: the
// whole start of a few hundred skills, the first part of larger ones. It is
// three quarters of the memory limit's floor (memlimit.go), so that the
// allocation that maps it stays within the limit the process starts with;
// 128 MB did no better (10,000 skills: 934 against 889 ms to the first
// search, warm, 3 starts each; 387 skills: 93 against 90 ms).
const startHeapBytes = minMemoryLimit / 4 * 3

// hugePageBytes is the size of a transparent huge page (x86-64 and arm64
// with 4 KiB pages).
const hugePageBytes = 2 << 20

// startHeap, when set (main), maps the heap of the embedded service's start
// and asks for huge pages over it; the function it returns withdraws that
// advice. Tests leave it nil: the process's memory is left as it is.
var startHeap func() (end func())

// hugeHeapWanted says whether hugeStartHeap is to run: not when GODEBUG has
// disablethp=1 (the last setting of it wins, as in the runtime).
func hugeHeapWanted(getenv func(string) string) bool {
	on := true
	for _, kv := range strings.Split(getenv("GODEBUG"), ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "disablethp" {
			on = v != "1"
		}
	}
	return on
}

// hugeStartHeap has the runtime map size bytes of heap (one allocation,
// dropped at once: the collection it starts frees it, and hugeStartHeap
// waits for that) and asks the kernel for huge pages over the whole 2 MiB
// pages of it. It returns the function that withdraws the advice, and the
// range it gave it for (lo == hi when none: the allocation held no whole
// huge page, or the system refused).
func hugeStartHeap(size int) (end func(), lo, hi uintptr) {
	start := heapBlock(size)
	lo = (start + hugePageBytes - 1) &^ (hugePageBytes - 1)
	hi = (start + uintptr(size)) &^ (hugePageBytes - 1)
	if lo >= hi || adviseHuge(lo, hi, true) != nil {
		lo, hi = 0, 0
	}
	// The allocation started a collection (the heap jumped past its goal),
	// which frees the block. It is waited for here: the start's allocations
	// then take the range from its low end (the runtime reuses its lowest
	// free pages first), faulted in as huge pages. Left to finish in the
	// background, the collection lost the race to the start's first
	// megabytes, which went to fresh 4 KiB pages above the block, and a
	// FreeOSMemory run beside the start (to return what the start would not
	// take) split huge pages of the range it was filling: a warm start of
	// 387 skills took 1,200-1,900 faults in the heap, 430-490 of them in the
	// advised range, at 10 µs each on the machine of stop 38
	// (docs/performance.md). Waiting costs a collection of a heap of a few
	// megabytes. What the start does not take is left to the runtime's
	// scavenger, which returns it in the background: a
	// FreeOSMemory once the start was over made the searches after it wait
	// for its collection and fault in again the pages it had returned
	// (search p50 over the first 100 calls 0.65 -> 1.0 ms), for no less
	// resident memory a few seconds later.
	runtime.GC()
	return func() {
		if lo < hi {
			_ = adviseHuge(lo, hi, false)
		}
	}, lo, hi
}

// heapBlock allocates size bytes of heap and returns only their address: a
// pointer into them would keep them allocated.
//
//go:noinline
func heapBlock(size int) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(make([]byte, size))))
}

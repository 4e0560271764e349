package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// vmFlags returns the VmFlags of each mapping of this process that overlaps
// [lo, hi), from /proc/self/smaps.
func vmFlags(t *testing.T, lo, hi uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if start, end, ok := mappingRange(line); ok {
			in = start < hi && lo < end
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			out = append(out, strings.TrimSpace(flags))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mappingRange parses the range of an smaps mapping line ("lo-hi perms ...").
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	field, _, _ := strings.Cut(line, " ")
	a, b, ok := strings.Cut(field, "-")
	if !ok {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(x), uintptr(y), true
}

func hasFlag(flags, flag string) bool {
	for _, f := range strings.Fields(flags) {
		if f == flag {
			return true
		}
	}
	return false
}

// hugeHeapChild marks the process TestHugeStartHeap runs its check in.
const hugeHeapChild = "SKILLS_MCP_TEST_HUGE_HEAP_CHILD"

// TestHugeStartHeap: the range is advised for huge pages (VmFlags hg), the
// heap's next allocations land in it (the block was freed, not kept), and
// the end withdraws the advice (nh). It checks in a process of its own,
// whose heap is as fresh as skills-mcp's at its start: in this one, the
// free pages that earlier tests left below the block (or an earlier run of
// this test, with -count=2) rightly take those allocations first, and the
// check failed.
func TestHugeStartHeap(t *testing.T) {
	if os.Getenv(hugeHeapChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHugeStartHeap$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), hugeHeapChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the check in a fresh process failed: %v\n%s", err, out)
		}
		if bytes.Contains(out, []byte("--- SKIP")) {
			t.Skipf("skipped in the fresh process:\n%s", out)
		}
		if !bytes.Contains(out, []byte("--- PASS: TestHugeStartHeap")) {
			t.Fatalf("the fresh process did not run the check:\n%s", out)
		}
		return
	}
	const size = 32 << 20
	end, lo, hi := hugeStartHeap(size)
	if lo >= hi {
		t.Skip("the kernel refused MADV_HUGEPAGE (built without transparent huge pages)")
	}
	if lo%hugePageBytes != 0 || hi%hugePageBytes != 0 || hi-lo < size-2*hugePageBytes {
		t.Fatalf("range %#x-%#x: not whole huge pages of a %d-byte block", lo, hi, size)
	}
	flags := vmFlags(t, lo, hi)
	if len(flags) == 0 {
		t.Fatalf("no mapping covers %#x-%#x", lo, hi)
	}
	for _, f := range flags {
		if !hasFlag(f, "hg") {
			t.Fatalf("a mapping in %#x-%#x is not advised for huge pages: VmFlags %s", lo, hi, f)
		}
	}
	// hugeStartHeap waited for the collection the allocation started: the
	// start's first allocations take the freed block, with no collection
	// in between (left to the background, it came after them).
	var kept [][]byte
	inside := 0
	for range 64 {
		b := make([]byte, 256<<10)
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p >= lo && p < hi {
			inside++
		}
		kept = append(kept, b)
	}
	if inside == 0 {
		t.Errorf("none of 64 allocations of 256 KiB landed in the advised range %#x-%#x: the block was not freed", lo, hi)
	}
	end()
	for _, f := range vmFlags(t, lo, hi) {
		if hasFlag(f, "hg") || !hasFlag(f, "nh") {
			t.Fatalf("after the end, a mapping in %#x-%#x has VmFlags %s, want nh and no hg", lo, hi, f)
		}
	}
	runtime.KeepAlive(kept)
}

// withdrawnRanges returns the sizes of pid's mappings that carry VmFlags nh
// (huge pages withdrawn), from /proc/PID/smaps.
func withdrawnRanges(t *testing.T, pid int) []uintptr {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []uintptr
	var size uintptr
	for line := range strings.Lines(string(data)) {
		if lo, hi, ok := mappingRange(line); ok {
			size = hi - lo
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && hasFlag(flags, "nh") {
			out = append(out, size)
		}
	}
	return out
}

// TestStartHeapOfTheBinary: skills-mcp's start asks for huge pages over its
// start's heap and withdraws that once its catalog is in; the withdrawn
// range is left in its mappings, marked nh. With GODEBUG=disablethp=1 the
// runtime marks every heap mapping nh itself, so that case is only checked
// by TestHugeHeapWanted.
func TestStartHeapOfTheBinary(t *testing.T) {
	if !hugePagesOffered() {
		t.Skipf("this kernel offers no transparent huge pages (%s): skills-mcp leaves its heap alone", thpEnabled)
	}
	cmd := command(t, nil, "--skills-dir", writeSkills(t))
	cs := connectStdio(t, cmd)
	defer cs.Close()
	if _, isErr, text := callJSON[map[string]any](t, cs, "search_skills", map[string]any{"query": "pdf"}); isErr {
		t.Fatalf("search_skills: %s", text)
	}
	pid := cmd.Process.Pid
	for range 100 { // the end follows the load in the background
		for _, size := range withdrawnRanges(t, pid) {
			if size >= startHeapBytes-2*hugePageBytes {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("skills-mcp (pid %d) has no mapping of about %d bytes with huge pages withdrawn (VmFlags nh) after its load: %v",
		pid, startHeapBytes, withdrawnRanges(t, pid))
}

func TestTHPOffered(t *testing.T) {
	for setting, want := range map[string]bool{
		"always [madvise] never\n": true,
		"[always] madvise never\n": true,
		"always madvise [never]\n": false,
		"":                         false,
		"madvise never":            false,
		"[madvise":                 false,
	} {
		if got := thpOffered(setting); got != want {
			t.Errorf("thpOffered(%q) = %v, want %v", setting, got, want)
		}
	}
}

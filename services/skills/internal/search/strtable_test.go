package search

import (
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"
	"testing"
)

// asMap returns the table as a map of each key to its id.
func (t *strTable) asMap() map[string]int32 {
	m := make(map[string]int32, t.len())
	for id, k := range t.byID() {
		m[k] = id
	}
	return m
}

// surfaceMap returns the surfaces mapped to their terms (terms: the term of
// each surface, by its id).
func surfaceMap(surfaces strTable, terms []int32) map[string]int32 {
	m := make(map[string]int32, surfaces.len())
	for id, s := range surfaces.byID() {
		m[s] = terms[id]
	}
	return m
}

// checkTable fails t unless tab holds exactly the keys of want, each with
// its id there, and finds none of absent.
func checkTable(t *testing.T, tab *strTable, want map[string]int32, absent ...string) {
	t.Helper()
	if tab.len() != len(want) {
		t.Fatalf("%d keys, want %d", tab.len(), len(want))
	}
	for k, id := range want {
		if got, ok := tab.id(k); !ok || got != id {
			t.Errorf("id(%q) = %d, %v; want %d, true", k, got, ok, id)
		}
		if got := tab.key(id); got != k {
			t.Errorf("key(%d) = %q, want %q", id, got, k)
		}
	}
	for _, k := range absent {
		if got, ok := tab.id(k); ok || got != -1 {
			t.Errorf("id(%q) = %d, %v; want -1, false", k, got, ok)
		}
	}
	if !maps.Equal(tab.asMap(), want) {
		t.Errorf("byID yields %v, want %v", tab.asMap(), want)
	}
}

// TestStrTable: ids in the order of first addition, a key added again keeps
// its id, the empty string is a key like another, and absent keys are not
// found, in a zero table and in a grown one.
func TestStrTable(t *testing.T) {
	var tab strTable
	checkTable(t, &tab, map[string]int32{}, "", "a")
	want := map[string]int32{}
	for i, k := range []string{"pdf", "", "form", "pdf", "", "fill", "FORM"} {
		id, added := tab.add(k)
		wid, seen := want[k]
		if !seen {
			wid = int32(len(want))
			want[k] = wid
		}
		if id != wid || added == seen {
			t.Fatalf("add #%d %q = %d, %v; want %d, %v", i, k, id, added, wid, !seen)
		}
	}
	checkTable(t, &tab, want, "pd", "pdf ", "fills", "Form", "\x00")
}

// TestStrTableGrowth adds enough keys to grow a presized table several
// times; every key keeps its id and at most half of the slots are used.
func TestStrTableGrowth(t *testing.T) {
	for _, size := range []int{0, 1, 7, 100} {
		tab := newStrTable(size)
		want := map[string]int32{}
		for i := range 5000 {
			k := fmt.Sprintf("w%d", i)
			if id, added := tab.add(k); !added || id != int32(i) {
				t.Fatalf("size %d: add %q = %d, %v", size, k, id, added)
			}
			want[k] = int32(i)
			if n := len(tab.slots); 2*tab.len() > n || n&(n-1) != 0 {
				t.Fatalf("size %d: %d keys in %d slots", size, tab.len(), n)
			}
		}
		checkTable(t, &tab, want, "w5000", "w-1", "", "w")
	}
}

// TestStrTableCollisions: keys that hash to the same slot, and an absent
// key that does too, in a table that does not grow.
func TestStrTableCollisions(t *testing.T) {
	tab := newStrTable(4) // 8 slots
	mask := uint64(len(tab.slots) - 1)
	var same []string
	for i := 0; len(same) < 5; i++ {
		if k := strings.Repeat("x", i%7) + fmt.Sprint(i); maphash.String(strSeed, k)&mask == 6 {
			same = append(same, k)
		}
	}
	want := map[string]int32{}
	for i, k := range same[:4] {
		tab.add(k)
		want[k] = int32(i)
	}
	if len(tab.slots) != 8 {
		t.Fatalf("%d slots, want 8", len(tab.slots))
	}
	checkTable(t, &tab, want, same[4])
	// The probe wraps around the end of the slots: 6, 7, 0, 1.
	if used := []int32{tab.slots[6], tab.slots[7], tab.slots[0], tab.slots[1]}; slices.Contains(used, 0) || tab.slots[2] != 0 {
		t.Errorf("slots %v: want ids in 6, 7, 0, 1 and none in 2", tab.slots)
	}
}

// FuzzStrTable adds and looks up keys from the fuzzer's bytes and compares
// every answer with a map's.
func FuzzStrTable(f *testing.F) {
	f.Add([]byte("a\x00b\x00\x00a\x00ccc"), uint8(3))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, every uint8) {
		var tab strTable
		want := map[string]int32{}
		for i, k := range strings.Split(string(data), "\x00") {
			if every != 0 && i%int(every) == 0 {
				if got, ok := tab.id(k); ok != (want[k] != 0) || ok && got != want[k]-1 {
					t.Fatalf("id(%q) = %d, %v before its addition", k, got, ok)
				}
			}
			id, added := tab.add(k)
			if w, seen := want[k]; seen == added || seen && id != w-1 || added && id != int32(len(want)) {
				t.Fatalf("add %q = %d, %v; map has %d", k, id, added, w-1)
			}
			if added {
				want[k] = id + 1
			}
		}
		for k, id := range want {
			want[k] = id - 1
		}
		checkTable(t, &tab, want, string(data)+"\x00")
	})
}

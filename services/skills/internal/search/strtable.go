package search

import (
	"hash/maphash"
	"iter"
)

// strTable numbers distinct strings: the strings added are ids 0, 1, 2 …
// in the order they were first added, and id finds a string's id. It
// stands for a map[string]int32 (and a slice of the keys by id) in less
// memory and time to fill: the strings are kept once, in one slice, and
// looked up through an open-addressed hash table of int32 ids (linear
// probing, a power-of-two number of slots, at most half of them used), so
// a key costs its string header (16 bytes) and 8 to 16 bytes of slots,
// where a map's entry costs 35 to 52 bytes.
//
// Its zero value is an empty table. Lookups (id, key, len) may run
// concurrently; add must not run concurrently with anything else. The ids
// do not depend on the hash seed, so nothing built from a table (its keys
// in id order) depends on it either.
type strTable struct {
	keys []string // by id
	// slots holds each key's id+1 in the first slot that was empty from
	// its hash's on (linear probing); 0 marks an empty slot.
	slots []int32
}

// strSeed seeds the tables' hashes, the same in every table of the
// process.
var strSeed = maphash.MakeSeed()

// newStrTable returns an empty table with room for n keys before it grows.
func newStrTable(n int) strTable {
	return strTable{keys: make([]string, 0, n), slots: make([]int32, slotCount(n))}
}

// slotCount is the number of slots for n keys: a power of two, at least 2n
// and at least 8.
func slotCount(n int) int {
	size := 8
	for size < 2*n {
		size <<= 1
	}
	return size
}

// len is the number of keys.
func (t *strTable) len() int { return len(t.keys) }

// key returns the string whose id is id, which must be below len.
func (t *strTable) key(id int32) string { return t.keys[id] }

// byID yields every key with its id, in the order of the ids.
func (t *strTable) byID() iter.Seq2[int32, string] {
	return func(yield func(int32, string) bool) {
		for id, k := range t.keys {
			if !yield(int32(id), k) {
				return
			}
		}
	}
}

// id returns the id of s and true, or -1 and false when s was never added.
func (t *strTable) id(s string) (int32, bool) {
	if len(t.slots) == 0 {
		return -1, false
	}
	v := t.slots[t.slot(s)]
	return v - 1, v != 0
}

// add gives s the next id unless it has one; it returns s's id and whether
// s was added.
func (t *strTable) add(s string) (id int32, added bool) {
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
	}
	i := t.slot(s)
	if v := t.slots[i]; v != 0 {
		return v - 1, false
	}
	t.keys = append(t.keys, s)
	id = int32(len(t.keys) - 1)
	t.slots[i] = id + 1
	return id, true
}

// slot returns the index of the slot that holds s's id, or of the empty
// slot where it would go. There is always an empty slot (add keeps half of
// them empty), so the probe ends.
func (t *strTable) slot(s string) uint64 {
	mask := uint64(len(t.slots) - 1)
	i := maphash.String(strSeed, s) & mask
	for {
		v := t.slots[i]
		if v == 0 || t.keys[v-1] == s {
			return i
		}
		i = (i + 1) & mask
	}
}

// grow doubles the slots (or makes the first ones) and places every key
// again.
func (t *strTable) grow() {
	t.slots = make([]int32, max(8, 2*len(t.slots)))
	for id, k := range t.keys {
		t.slots[t.slot(k)] = int32(id) + 1
	}
}

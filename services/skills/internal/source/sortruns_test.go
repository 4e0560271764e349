package source

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRuns checks sortRuns against a stable sort, on slices made of
// sorted runs (as a walk that reused folders gathers them) and on random
// ones, with equal keys told apart by their original position.
func TestSortRuns(t *testing.T) {
	type rec struct{ key, pos int }
	byKey := func(a, b rec) int { return cmp.Compare(a.key, b.key) }
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		for _, runs := range []int{1, 2, 3, 7, n + 1} {
			s := make([]rec, 0, n)
			for r := range runs {
				size := n / runs
				if r == runs-1 {
					size = n - len(s)
				}
				run := make([]int, size)
				for i := range run {
					run[i] = rng.IntN(n/2 + 1)
				}
				slices.Sort(run)
				for _, k := range run {
					s = append(s, rec{key: k, pos: len(s)})
				}
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, byKey)
			got := slices.Clone(s)
			sortRuns(got, byKey)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d runs=%d: got %v, want %v", n, runs, got, want)
			}
		}
	}
}

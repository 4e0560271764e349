package search

import (
	"math"
	"testing"
)

// TestIDFTable checks that the table gives exactly what idf computes, in
// it and past it.
func TestIDFTable(t *testing.T) {
	for _, n := range []float64{0, 1, 387, 10000} {
		tab := newIDFTable(n)
		for df := range 200 {
			if got, want := tab.of(df), idf(float64(df), n); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("n %v, df %d: %v, want %v", n, df, got, want)
			}
		}
	}
}

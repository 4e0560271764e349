package defaults

import (
	"testing"
	"time"
)

func TestSet(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{0, time.Second},
		{-1, time.Second},
		{time.Minute, time.Minute},
	} {
		v := tc.in
		Set(&v, time.Second)
		if v != tc.want {
			t.Errorf("Set(%v, 1s) = %v, want %v", tc.in, v, tc.want)
		}
	}
	f := 0.0
	Set(&f, 0.5)
	if f != 0.5 {
		t.Errorf("Set(0.0, 0.5) = %v, want 0.5", f)
	}
	n := 3
	Set(&n, 7)
	if n != 3 {
		t.Errorf("Set(3, 7) = %v, want 3", n)
	}
}

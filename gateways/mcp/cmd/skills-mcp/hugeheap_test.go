package main

import "testing"

func TestHugeHeapWanted(t *testing.T) {
	for godebug, want := range map[string]bool{
		"":                           true,
		"disablethp=0":               true,
		"disablethp=1":               false,
		"gctrace=1,disablethp=1":     false,
		"disablethp=1, disablethp=0": true,
		"madvdontneed=1":             true,
		" disablethp=1 ":             false,
	} {
		getenv := func(k string) string {
			if k == "GODEBUG" {
				return godebug
			}
			return ""
		}
		if got := hugeHeapWanted(getenv); got != want {
			t.Errorf("GODEBUG=%q: hugeHeapWanted = %v, want %v", godebug, got, want)
		}
	}
}

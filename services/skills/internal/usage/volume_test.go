package usage

import "testing"

// volumeTest skips a data-volume test under the race detector. Such a test
// pushes thousands of events through a store and compares every answer with
// a reference; it starts no goroutine of its own, so -race finds nothing in
// it, while it makes SQLite (C compiled to Go) ten times slower: most of make
// unit's time in this package. make unit runs the tests named TestVolume*
// again without -race (scripts/unit.sh), so they still run on every change.
func volumeTest(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("a data-volume test with no concurrency of its own: it runs without -race (scripts/unit.sh runs TestVolume* so)")
	}
}

//go:build !race

package skill

// raceEnabled turns off wall-clock checks: the race detector makes byte loops
// many times slower.
const raceEnabled = false

//go:build !race

package mcpgw

// raceEnabled widens the wall-clock bounds of notification tests: the race
// detector makes the rebuild and the fan-out several times slower. The bound
// itself is checked on the real, uninstrumented binaries by the end-to-end
// test (tests/e2e TestNotificationsEveryTransportAndMode).
const raceEnabled = false

package main

import "runtime/debug"

// defaultMemoryLimit is the soft limit of the Go runtime's memory that
// skills-mcp sets when GOMEMLIMIT is not set. skills-mcp runs beside an
// editor on developer machines, for hours: without a limit the heap may grow
// to twice what is live before the collector runs (3,000 skills: about 75 MB
// live, 165 MB resident); with it, the collector runs earlier as the limit
// nears (3,000 skills: 142 MB resident at most). A catalog that needs more
// than the limit still loads: the limit is soft, and the runtime caps the
// collector's share of the CPU. GOMEMLIMIT (a Go runtime setting) overrides
// it, "off" removes it.
const defaultMemoryLimit = 128 << 20

// setMemoryLimit applies defaultMemoryLimit unless GOMEMLIMIT is set.
func setMemoryLimit(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

//go:build !linux

package usage

import "time"

// cpuTime is not measured here.
func cpuTime(int) (time.Duration, bool) { return 0, false }

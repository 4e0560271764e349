//go:build !unix

package catalog

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }

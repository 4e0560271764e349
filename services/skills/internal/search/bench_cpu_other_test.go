//go:build !unix

package search

import (
	"testing"
	"time"
)

// cpuTime is 0 where the process's CPU time is not measured.
func cpuTime(testing.TB) time.Duration { return 0 }

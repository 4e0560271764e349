//go:build unix

package search

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used (user and system, every
// thread).
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

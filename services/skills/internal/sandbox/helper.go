package sandbox

import (
	"os"
	"sync/atomic"
	"syscall"
)

// helperArg is the first argument of a process started as the sandbox
// helper: the service's own binary, re-executed.
const helperArg = "__skillsd-sandbox-helper__"

// helperStatusFD is the helper's file descriptor for its status pipe: it
// writes why it failed there, and the pipe closes without a word when the
// helper becomes the process (it is close-on-exec).
const helperStatusFD = 3

// hooked records that this process's main called Helper. It is the one
// process-wide fact of the package: whether the binary can confine its
// children is a property of the binary, not of a Runner.
var hooked atomic.Bool

// Helper must be the first call of main in every binary that can run
// scripts or commands (and of TestMain in their test packages). Started
// normally, it records that the binary has the hook and returns. Started as
// the sandbox helper (the binary re-executed by a Runner), it confines
// itself with Landlock and becomes the script or command, and never returns.
//
// Landlock confines the thread that asks and its future children, and the
// helper confines every thread of its process: the serving process itself
// is never confined, only the short-lived helper that becomes the script. A
// binary that does not call Helper still runs scripts, but every result and
// the catalog status say that Landlock is missing, and
// scripts.require_isolation refuses to run them.
func Helper() {
	hooked.Store(true)
	if len(os.Args) < 3 || os.Args[1] != helperArg {
		return
	}
	// The helper ends with the exit system call itself, not os.Exit: it has
	// nothing to flush (its one message went to the status pipe, unbuffered),
	// and os.Exit in a binary built with -race first waits a second for late
	// race reports (GORACE atexit_sleep_ms), which made every probe of the
	// kernel by a -race test binary last over a second.
	syscall.Exit(helperMain(os.Args[2]))
}

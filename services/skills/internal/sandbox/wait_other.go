//go:build unix && !linux

package sandbox

import "os/exec"

// waitExit blocks until the process of cmd has exited, and reaps it: this
// platform has no portable way to wait without reaping, so the group sweep
// that follows runs after the process group id is released (a reuse of that
// id in the moment between is possible, though unlikely). It reports true.
func waitExit(cmd *exec.Cmd) (reaped bool) {
	_ = cmd.Wait()
	return true
}

//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// terminate is the signal that asks a server to stop; gracefulStop says a
// server must then exit with status 0.
var terminate = syscall.SIGTERM

const gracefulStop = true

// ownGroup starts cmd in a new process group whose id is its pid.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process left in cmd's group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// groupAlive reports whether any process is left in cmd's group.
func groupAlive(cmd *exec.Cmd) bool {
	return cmd.Process != nil && syscall.Kill(-cmd.Process.Pid, 0) == nil
}

//go:build !unix

package e2e

import (
	"os"
	"os/exec"
)

// terminate is the signal that asks a server to stop (only Kill exists
// here, so a stopped server does not exit with status 0).
var terminate = os.Kill

const gracefulStop = false

// ownGroup does nothing: process groups are a Unix notion.
func ownGroup(*exec.Cmd) {}

// killGroup kills the process itself.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// groupAlive cannot tell: it reports false.
func groupAlive(*exec.Cmd) bool { return false }

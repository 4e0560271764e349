//go:build !linux

package sandbox

import (
	"runtime"
	"syscall"
)

// Namespaces exist on Linux only.
const (
	cloneNewUser = 0
	cloneNewNet  = 0
)

// selfExe is unused where there is no helper.
const selfExe = ""

// probeHost reports every protection missing: Landlock and namespaces are
// Linux features.
func probeHost(string) host {
	why := "Landlock and namespaces are Linux features; this server runs on " + runtime.GOOS
	return host{landlockWhy: why, userNS: why, netNS: why}
}

func namespaceAttr(*syscall.SysProcAttr, uintptr) {}

// helperMain fails: no Runner starts the helper outside Linux.
func helperMain(string) int { return 126 }

//go:build unix

package contract

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// processAlive reports whether pid is a running process. A zombie (dead,
// waiting for whoever inherited it to reap it) is not running.
func processAlive(pid int) bool {
	if runtime.GOOS == "linux" {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		return len(f) > 0 && f[0] != "Z" && f[0] != "X"
	}
	return syscall.Kill(pid, 0) == nil
}

// killProcess kills a process a failed test left behind.
func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

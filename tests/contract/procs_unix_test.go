//go:build unix

package contract

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
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

// processesIn lists the running processes whose working directory is dir;
// false where /proc cannot tell.
func processesIn(t *testing.T, dir string) ([]int, bool) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return nil, false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && cwd == real && processAlive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

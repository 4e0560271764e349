package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
	"unsafe"
)

// pPID is waitid's P_PID id type.
const pPID = 1

// waitExit blocks until the process of cmd has exited, without reaping it
// (waitid with WNOWAIT): while it is a zombie, its pid, which is also its
// process group id, cannot be given to another process, so the group can be
// killed safely afterwards. It reports false: the caller reaps with
// cmd.Wait. Should waitid fail, it reaps with cmd.Wait itself and reports
// true.
func waitExit(cmd *exec.Cmd) (reaped bool) {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno == 0 {
			return false
		}
		if !errors.Is(errno, syscall.EINTR) {
			_ = cmd.Wait()
			return true
		}
	}
}

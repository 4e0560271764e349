//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// supported says scripts can run on this platform.
const supported = true

// drainTimeout bounds how long output is read after the process group is
// gone: only a process that left the group can still hold the pipes open.
const drainTimeout = time.Second

// run runs c in a process group of its own and returns once the group is
// gone (or, for processes that left it, once drainTimeout has passed). At
// the time limit, or when ctx ends, the group gets SIGTERM and, c.grace
// later, SIGKILL; when the script ends, whatever is left of its group is
// killed. An error means the process did not start: for a process started
// through the sandbox helper, that the helper could not confine it or
// execute its program (it says why on its status pipe).
func run(ctx context.Context, c command) (*outcome, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	closeAll := func() {
		for _, f := range []*os.File{outR, outW, errR, errW} {
			f.Close()
		}
	}
	cmd := exec.Command(c.path, c.args...)
	var status chan string // what the helper says on its status pipe
	var statusW *os.File
	if c.policy != nil {
		pol, err := json.Marshal(c.policy)
		if err != nil {
			closeAll()
			return nil, err
		}
		statusR, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		statusW = w
		cmd = exec.Command(selfExe, helperArg, string(pol))
		cmd.ExtraFiles = []*os.File{statusW} // helperStatusFD
		status = make(chan string, 1)
		go func() {
			msg, _ := io.ReadAll(io.LimitReader(statusR, 64<<10))
			statusR.Close()
			status <- string(msg)
		}()
	}
	cmd.Dir = c.dir
	cmd.Env = c.env
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = outW
	cmd.Stderr = errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	namespaceAttr(cmd.SysProcAttr, c.cloneflags)
	start := time.Now()
	err = cmd.Start()
	if statusW != nil {
		statusW.Close() // the helper holds its own copy until it executes the program
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	// The child holds its own copies of the write ends.
	outW.Close()
	errW.Close()

	o := &outcome{stdout: newCapped(c.maxOutput), stderr: newCapped(c.maxOutput), pgid: cmd.Process.Pid}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); _, _ = io.Copy(o.stdout, outR) }()
	go func() { defer readers.Done(); _, _ = io.Copy(o.stderr, errR) }()

	// exited closes when the script (the group leader) has exited. On Linux
	// it is not reaped yet, so its process group id cannot be reused before
	// the sweep below.
	exited := make(chan struct{})
	var reaped bool
	go func() {
		reaped = waitExit(cmd)
		close(exited)
	}()

	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	select {
	case <-exited:
	case <-timer.C:
		o.timedOut = true
		terminate(o.pgid, exited, c.grace)
	case <-ctx.Done():
		o.cancelled = true
		terminate(o.pgid, exited, c.grace)
	}
	o.duration = time.Since(start)
	// Whatever the script left running in its group goes with it.
	killGroup(o.pgid, syscall.SIGKILL)
	if !reaped {
		_ = cmd.Wait()
	}
	o.exitCode = exitCode(cmd.ProcessState)

	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		// A process outside the group holds the pipes: stop reading.
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	if status != nil {
		if msg := <-status; msg != "" {
			return nil, errors.New(msg)
		}
	}
	return o, nil
}

// terminate sends SIGTERM to the group, then SIGKILL after grace unless the
// leader has exited by then, and returns once it has.
func terminate(pgid int, exited <-chan struct{}, grace time.Duration) {
	killGroup(pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		killGroup(pgid, syscall.SIGKILL)
		<-exited
	}
}

// killGroup signals every process of the group pgid.
func killGroup(pgid int, sig syscall.Signal) {
	if pgid <= 1 {
		return // never signal every process
	}
	_ = syscall.Kill(-pgid, sig) // ESRCH: the group is gone already
}

// exitCode is the exit status, or 128+n when signal n ended the process.
func exitCode(st *os.ProcessState) int {
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

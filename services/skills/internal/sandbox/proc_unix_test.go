//go:build unix

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bash returns the path of bash, or skips the test.
func bash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	return p
}

// script writes a bash script into a temporary folder and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(p, []byte("set -u\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runScript(t *testing.T, ctx context.Context, body string, timeout time.Duration, maxOutput int64) *outcome {
	t.Helper()
	p := script(t, body)
	o, err := run(ctx, command{
		path: bash(t), args: []string{p}, dir: filepath.Dir(p),
		env:     []string{"PATH=" + DefaultPath, "LANG=C"},
		timeout: timeout, grace: 300 * time.Millisecond, maxOutput: maxOutput,
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Cleanup(func() { killGroup(o.pgid, syscall.SIGKILL) })
	return o
}

// alive lists the processes of group pgid that are still running (zombies,
// which only wait to be reaped by whoever inherited them, are not running).
func alive(t *testing.T, pgid int) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		if err := syscall.Kill(-pgid, 0); err == nil {
			return []string{"group " + strconv.Itoa(pgid)}
		}
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg == pgid {
			out = append(out, e.Name()+" "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return out
}

// pidAlive reports whether pid is a running (non-zombie) process.
func pidAlive(pid int) bool {
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

// waitGone waits a little for the group to disappear (the kernel delivers
// SIGKILL asynchronously) and fails if it does not.
func waitGone(t *testing.T, pgid int, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := alive(t, pgid)
		for _, p := range pids {
			if pidAlive(p) {
				left = append(left, "pid "+strconv.Itoa(p))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes survived the run: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pidsIn returns the numbers printed on lines "pid N".
func pidsIn(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for line := range strings.SplitSeq(out, "\n") {
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			p, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil {
				t.Fatalf("bad pid line %q", line)
			}
			pids = append(pids, p)
		}
	}
	return pids
}

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name, body     string
		code           int
		stdout, stderr string
	}{
		{"ok", "echo out; echo err >&2", 0, "out\n", "err\n"},
		{"failure", "echo 'Error: no clientId' >&2; exit 3", 3, "", "Error: no clientId\n"},
		{"own signal", "kill -KILL $$", 137, "", ""},
		{"stdin is closed", "cat; echo read-done", 0, "read-done\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := runScript(t, t.Context(), tc.body, 10*time.Second, 1<<20)
			r := o.result("s.sh", 1<<20)
			if r.ExitCode != tc.code || r.Stdout != tc.stdout || r.Stderr != tc.stderr || r.TimedOut || r.Success != (tc.code == 0) {
				t.Errorf("got exit %d success %v stdout %q stderr %q timed out %v; want %d %q %q", r.ExitCode, r.Success, r.Stdout, r.Stderr, r.TimedOut, tc.code, tc.stdout, tc.stderr)
			}
			waitGone(t, o.pgid)
		})
	}
}

// TestTimeoutKillsTheWholeTree: a script forks grandchildren, one of which
// ignores SIGTERM, and outlives its time limit. No process may survive.
func TestTimeoutKillsTheWholeTree(t *testing.T) {
	o := runScript(t, t.Context(), `
sleep 300 &
echo "pid $!"
( trap '' TERM; sleep 300 ) &
echo "pid $!"
bash -c 'trap "" TERM; sleep 300' &
echo "pid $!"
echo partial
echo "some error" >&2
sleep 300
echo never
`, 2*time.Second, 1<<20)
	r := o.result("long.sh", 1<<20)
	if !r.TimedOut || r.Success || r.ExitCode != 137 {
		t.Errorf("got timed out %v success %v exit %d, want true false 137", r.TimedOut, r.Success, r.ExitCode)
	}
	if !strings.Contains(r.Stdout, "partial\n") || strings.Contains(r.Stdout, "never") {
		t.Errorf("stdout: got %q, want the partial output", r.Stdout)
	}
	if !strings.HasSuffix(r.Stderr, "some error\n"+TimeoutLine) {
		t.Errorf("stderr: got %q, want the partial output then %q as last line", r.Stderr, TimeoutLine)
	}
	if r.Duration < 2*time.Second || r.Duration > 8*time.Second {
		t.Errorf("duration: got %v", r.Duration)
	}
	pids := pidsIn(t, r.Stdout)
	if len(pids) != 3 {
		t.Fatalf("got pids %v, want 3", pids)
	}
	waitGone(t, o.pgid, pids...)
}

// TestLeftoversDieWithTheScript: a script that exits at once but leaves a
// background child (holding its output pipe) does not leave it running, and
// the run does not wait for it.
func TestLeftoversDieWithTheScript(t *testing.T) {
	start := time.Now()
	o := runScript(t, t.Context(), "sleep 300 &\necho \"pid $!\"\nnohup sleep 300 >/dev/null 2>&1 &\necho \"pid $!\"\necho bye\n", 30*time.Second, 1<<20)
	r := o.result("bg.sh", 1<<20)
	if r.ExitCode != 0 || !r.Success || !strings.HasSuffix(r.Stdout, "bye\n") {
		t.Errorf("got %+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("run took %v, want it to end with the script", d)
	}
	waitGone(t, o.pgid, pidsIn(t, r.Stdout)...)
}

// TestEscapedProcessDoesNotHangTheRun: a process that leaves the group
// (setsid) is beyond the sandbox (documented), but it cannot make the run
// wait for it by holding the pipes.
func TestEscapedProcessDoesNotHangTheRun(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	start := time.Now()
	o := runScript(t, t.Context(), "setsid bash -c 'echo \"pid $$\"; exec sleep 300' &\nsleep 0.3\necho done\n", 30*time.Second, 1<<20)
	r := o.result("escape.sh", 1<<20)
	pids := pidsIn(t, r.Stdout)
	for _, p := range pids {
		t.Cleanup(func() { _ = syscall.Kill(p, syscall.SIGKILL) })
	}
	if d := time.Since(start); d > drainTimeout+5*time.Second {
		t.Errorf("run took %v", d)
	}
	if !strings.Contains(r.Stdout, "done") || len(pids) != 1 {
		t.Errorf("stdout: got %q", r.Stdout)
	}
	waitGone(t, o.pgid)
}

func TestOutputFlood(t *testing.T) {
	t.Run("until the time limit", func(t *testing.T) {
		o := runScript(t, t.Context(), "yes 'flood flood flood' & yes 'err' >&2 & wait", 700*time.Millisecond, 1000)
		r := o.result("flood.sh", 1000)
		if !r.StdoutTruncated || !r.StderrTruncated || !r.TimedOut {
			t.Errorf("got truncated %v/%v timed out %v", r.StdoutTruncated, r.StderrTruncated, r.TimedOut)
		}
		if n := len(r.Stdout); n < 1000 || n > 1200 {
			t.Errorf("stdout: %d bytes, want the 1000 kept and a marker", n)
		}
		if !strings.Contains(r.Stdout, "[skillsd] Output truncated:") || !strings.HasSuffix(r.Stderr, TimeoutLine) {
			t.Errorf("markers missing: stdout ends %q, stderr ends %q", r.Stdout[max(0, len(r.Stdout)-120):], r.Stderr[max(0, len(r.Stderr)-120):])
		}
		waitGone(t, o.pgid)
	})
	t.Run("then exit", func(t *testing.T) {
		o := runScript(t, t.Context(), "head -c 5000000 /dev/zero | tr '\\0' 'é'; printf 'ééé' >&2; exit 0", 30*time.Second, 1001)
		r := o.result("flood.sh", 1001)
		if !r.StdoutTruncated || r.StderrTruncated || r.ExitCode != 0 || r.Stderr != "ééé" {
			t.Errorf("got truncated %v/%v exit %d stderr %q", r.StdoutTruncated, r.StderrTruncated, r.ExitCode, r.Stderr)
		}
		waitGone(t, o.pgid)
	})
	t.Run("cut inside a character", func(t *testing.T) {
		o := runScript(t, t.Context(), "printf 'aéé'", 30*time.Second, 2)
		r := o.result("cut.sh", 2)
		if !strings.HasPrefix(r.Stdout, "a\n[skillsd] Output truncated: 4 more bytes") {
			t.Errorf("stdout: got %q", r.Stdout)
		}
	})
}

func TestCancelledRunEndsTheTree(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(300*time.Millisecond, cancel)
	o := runScript(t, ctx, "sleep 300 &\necho \"pid $!\"\nsleep 300\n", 30*time.Second, 1<<20)
	if !o.cancelled || o.timedOut {
		t.Errorf("got cancelled %v timed out %v", o.cancelled, o.timedOut)
	}
	waitGone(t, o.pgid, pidsIn(t, o.stdout.text(1<<20))...)
}

func TestStartFailure(t *testing.T) {
	p := filepath.Join(t.TempDir(), "not-a-program")
	if err := os.WriteFile(p, []byte("\x00\x01\x02"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t.Context(), command{path: p, timeout: time.Second, grace: time.Second, maxOutput: 10}); err == nil {
		t.Errorf("running a file that is not a program: want an error")
	}
}

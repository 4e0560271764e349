package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Time limits of the harness.
const (
	readyTimeout = 30 * time.Second // from start to ready
	stopTimeout  = 10 * time.Second // from SIGTERM to exit
)

// process is a started command. It runs in its own process group, so that
// stopping it also ends whatever it started.
type process struct {
	name   string
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	exited chan struct{} // closed when Wait returned
	err    error         // Wait's error, once exited is closed
}

// syncBuffer is a bytes.Buffer safe for the command's writers and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// cleanEnv is the environment of every started command: no SKILLS_DIR,
// LOG_LEVEL or other setting of the machine running the tests, and a home
// folder of the test's own, so that default discovery finds nothing.
func cleanEnv(t *testing.T) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}
}

// startEnv starts bin with args, in the clean environment plus env. The
// process is stopped when the test ends (SIGTERM, then SIGKILL to its whole
// group), and its stderr is logged when the test failed.
func startEnv(t *testing.T, env []string, bin string, args ...string) *process {
	t.Helper()
	p := &process{
		name:   strings.TrimSuffix(bin[strings.LastIndexByte(bin, '/')+1:], ".exe"),
		cmd:    exec.Command(bin, args...),
		stdout: &syncBuffer{},
		stderr: &syncBuffer{},
		exited: make(chan struct{}),
	}
	p.cmd.Env = append(cleanEnv(t), env...)
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	ownGroup(p.cmd)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", p.name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("%s %s stderr:\n%s", p.name, strings.Join(args, " "), tail(p.stderr.String(), 4000))
		}
	})
	return p
}

// running reports whether the process has not exited yet.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop asks the process to stop (SIGTERM) and waits; a process that does not
// exit in stopTimeout is killed, and so is anything left in its group. A
// server stopped by SIGTERM must exit with status 0.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if p.running() {
		_ = p.cmd.Process.Signal(terminate)
		select {
		case <-p.exited:
			if gracefulStop && p.err != nil {
				t.Errorf("%s: after SIGTERM, exit: got %v, want status 0", p.name, p.err)
			}
		case <-time.After(stopTimeout):
			t.Errorf("%s did not exit within %v of SIGTERM; killing it", p.name, stopTimeout)
			killGroup(p.cmd)
			<-p.exited
		}
	}
	killGroup(p.cmd) // whatever it started and left behind
}

// waitReady polls ready until it returns nil, the process exits, or
// readyTimeout passes.
func (p *process) waitReady(t *testing.T, ready func(ctx context.Context) error) error {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := ready(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if !p.running() {
			return fmt.Errorf("%s exited before it was ready (%v): %s", p.name, p.err, tail(p.stderr.String(), 2000))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %v: %v", p.name, readyTimeout, err)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-t.Context().Done():
			return t.Context().Err()
		}
	}
}

// startOnFreePort starts a server that listens on the address given on its
// command line: it picks a free loopback port (listen on 127.0.0.1:0, close,
// reuse the port), starts the server and waits until ready answers. When
// another program took the port in between, it tries again with a new one.
func startOnFreePort(t *testing.T, bin string, args func(addr string) []string, ready func(ctx context.Context, addr string) error) (*process, string) {
	t.Helper()
	return startOnFreePortEnv(t, nil, bin, args, ready)
}

// startOnFreePortEnv is startOnFreePort with env added to the clean environment.
func startOnFreePortEnv(t *testing.T, env []string, bin string, args func(addr string) []string, ready func(ctx context.Context, addr string) error) (*process, string) {
	t.Helper()
	const attempts = 3
	for i := 1; ; i++ {
		addr := freeAddr(t)
		p := startEnv(t, env, bin, args(addr)...)
		err := p.waitReady(t, func(ctx context.Context) error { return ready(ctx, addr) })
		if err == nil {
			return p, addr
		}
		if !p.running() && strings.Contains(p.stderr.String(), "address already in use") && i < attempts {
			t.Logf("%s: port of %s taken meanwhile; trying another", p.name, addr)
			continue
		}
		t.Fatal(err)
	}
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	addr := lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

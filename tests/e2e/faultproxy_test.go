package e2e

import (
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// faultProxy is a TCP proxy on a loopback port, in front of a server the
// test owns (a git remote, PostgreSQL), that the test turns into a fault: it
// forwards (proxyPass), cuts every connection and resets new ones
// (proxyDown: the server looks unreachable), holds connections without
// forwarding a byte (proxyStall: a remote that hangs), or forwards the
// server's bytes at a trickle (proxyThrottle: a transfer that takes as long
// as the test wants). It never touches the server itself.
type faultProxy struct {
	t      *testing.T
	lis    net.Listener
	target string

	mu    sync.Mutex
	mode  proxyMode
	conns map[net.Conn]struct{}
	// wake is closed (and replaced) when the mode changes, releasing
	// stalled and throttled copies.
	wake chan struct{}

	// down counts the bytes forwarded from the server to clients.
	down atomic.Int64
}

type proxyMode int

const (
	proxyPass proxyMode = iota
	proxyDown
	proxyStall
	proxyThrottle
)

// throttleRate is the server-to-client rate in proxyThrottle mode.
const throttleRate = 16 << 10 // bytes per second

// startFaultProxy starts a proxy to target in proxyPass mode; it stops when
// the test ends.
func startFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{t: t, lis: lis, target: target, conns: map[net.Conn]struct{}{}, wake: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() { p.accept(&wg) })
	t.Cleanup(func() {
		_ = lis.Close()
		p.setMode(proxyDown) // closes every connection
		wg.Wait()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *faultProxy) Addr() string { return p.lis.Addr().String() }

// setMode switches the fault. Going down closes every open connection.
func (p *faultProxy) setMode(m proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	close(p.wake)
	p.wake = make(chan struct{})
	if m == proxyDown {
		for c := range p.conns {
			_ = c.Close()
		}
	}
}

func (p *faultProxy) state() (proxyMode, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode, p.wake
}

// track registers c; it reports false (and closes c) when the proxy is down.
func (p *faultProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == proxyDown {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, not a polite close
		}
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *faultProxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
	_ = c.Close()
}

func (p *faultProxy) accept(wg *sync.WaitGroup) {
	for {
		c, err := p.lis.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		wg.Go(func() { p.serve(c) })
	}
}

func (p *faultProxy) serve(client net.Conn) {
	defer p.untrack(client)
	// A stalled proxy holds the connection before dialing anything.
	for {
		mode, wake := p.state()
		if mode != proxyStall {
			break
		}
		<-wake
	}
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return
	}
	if !p.track(server) {
		return
	}
	defer p.untrack(server)
	done := make(chan struct{}, 2)
	go func() { p.copy(server, client, false); done <- struct{}{} }()
	go func() { p.copy(client, server, true); done <- struct{}{} }()
	<-done // either side ending ends both
}

// copy forwards src to dst, as the mode says; down marks the server-to-
// client direction (the one throttled and counted).
func (p *faultProxy) copy(dst, src net.Conn, down bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		data := buf[:n]
		for len(data) > 0 {
			mode, wake := p.state()
			switch mode {
			case proxyDown:
				return
			case proxyStall:
				<-wake
				continue
			}
			chunk := data
			if mode == proxyThrottle && down {
				chunk = data[:min(len(data), throttleRate/10)]
				select {
				case <-time.After(100 * time.Millisecond):
				case <-wake:
					continue
				}
			}
			if _, werr := dst.Write(chunk); werr != nil {
				return
			}
			if down {
				p.down.Add(int64(len(chunk)))
			}
			data = data[len(chunk):]
		}
		if err != nil {
			return // EOF or a failure: either ends the connection
		}
	}
}

// gitHTTPBackend is git's smart HTTP server program (Debian's git package).
const gitHTTPBackend = "/usr/lib/git-core/git-http-backend"

// serveGitHTTP serves the repository at dir (a work tree with .git) over
// git's smart HTTP protocol, with the real git http-backend, on a loopback
// port, and returns the server's host:port and the repository's path on it.
// Commits made in dir are served at once.
func serveGitHTTP(t *testing.T, dir string) (addr, path string) {
	t.Helper()
	if _, err := os.Stat(gitHTTPBackend); err != nil {
		missingTool(t, "git http-backend is not installed at %s (apt-get install git)", gitHTTPBackend)
	}
	h := &cgi.Handler{Path: gitHTTPBackend, Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), "/" + filepath.Base(dir)
}

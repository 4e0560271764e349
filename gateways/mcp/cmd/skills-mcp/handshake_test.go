package main

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHandshake: the embedded catalog's load waits for the host to list the
// tools (opened after tools/list is answered), not for initialize or its
// notification; any other request opens it before it is served (a tool
// call waits for the catalog); and without any, the wait ends by itself.
func TestHandshake(t *testing.T) {
	isOpen := func(h *handshake) bool {
		select {
		case <-h.done:
			return true
		default:
			return false
		}
	}
	call := func(h *handshake, method string, during func()) {
		next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
			if during != nil {
				during()
			}
			return nil, nil
		}
		if _, err := h.middleware(next)(t.Context(), method, nil); err != nil {
			t.Fatal(err)
		}
	}

	h := newHandshake(time.Hour)
	call(h, "initialize", nil)
	call(h, "notifications/initialized", nil)
	if isOpen(h) {
		t.Fatal("open after initialize: the load would compete with the handshake")
	}
	call(h, "tools/list", func() {
		if isOpen(h) {
			t.Error("open while tools/list was answered")
		}
	})
	if !isOpen(h) {
		t.Fatal("not open after tools/list")
	}
	call(h, "tools/list", nil) // again: no second close

	h = newHandshake(time.Hour)
	var waited []string
	h.ready = func(ctx context.Context) error {
		waited = append(waited, "ready")
		return nil
	}
	for _, m := range []string{"initialize", "notifications/initialized", "ping", "tools/list", "notifications/cancelled"} {
		call(h, m, nil)
	}
	if len(waited) != 0 {
		t.Errorf("waited for the catalog before %d requests that need none", len(waited))
	}
	answered := func() bool {
		select {
		case <-h.answered:
			return true
		default:
			return false
		}
	}
	if answered() {
		t.Error("answered before any request needed the catalog")
	}
	call(h, "tools/call", func() {
		if !isOpen(h) {
			t.Error("a tool call ran before the load could start")
		}
		if len(waited) != 1 {
			t.Error("a tool call ran before the catalog was ready")
		}
		if answered() {
			t.Error("answered while the first tool call was still running")
		}
	})
	if !answered() {
		t.Error("not answered after the first tool call")
	}
	call(h, "tools/call", nil) // again: no second close
	h.ready = func(context.Context) error { return errors.New("closed") }
	if _, err := h.middleware(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		t.Error("resources/list ran although the catalog never came")
		return nil, nil
	})(t.Context(), "resources/list", nil); err == nil {
		t.Error("resources/list: no error when the catalog never came")
	}

	h = newHandshake(10 * time.Millisecond)
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end by itself")
	}
	h.open() // after the timer: no second close
}

// TestWarmStartLoadsAtOnce: a start with the catalog cache of an earlier
// one loads its catalog without waiting for the host's tools/list (its load
// is short, and the host's first search waits for it); a first start waits.
func TestWarmStartLoadsAtOnce(t *testing.T) {
	env := map[string]string{"SKILLSD_HOME": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	skills := writeSkills(t)
	start := func() (service, *handshake) {
		t.Helper()
		o := options{skillsDirs: []string{skills}, handshake: newHandshake(time.Hour)}
		svc, err := startEmbedded(t.Context(), o, getenv, slog.New(slog.DiscardHandler), logVars{})
		if err != nil {
			t.Fatal(err)
		}
		return svc, o.handshake
	}
	loads := func(svc service, within time.Duration) bool {
		ctx, cancel := context.WithTimeout(t.Context(), within)
		defer cancel()
		return svc.waitScanned(ctx) == nil
	}

	svc, h := start()
	if loads(svc, 300*time.Millisecond) {
		t.Fatal("a first start loaded before the host listed the tools")
	}
	h.open()
	if !loads(svc, 30*time.Second) {
		t.Fatal("the first start did not load")
	}
	svc.close() // writes the catalog cache

	svc, _ = start()
	defer svc.close()
	if !loads(svc, 30*time.Second) {
		t.Error("a warm start waits for the host's tools/list to load")
	}
}

// TestEndStart: the start's tuning ends after the catalog is in and the
// first request that needed it is answered; without such a request, the
// grace after the catalog; at once when the catalog never comes.
func TestEndStart(t *testing.T) {
	run := func(wait func(context.Context) error, answered chan struct{}, grace time.Duration) chan struct{} {
		ended := make(chan struct{})
		go endStart(t.Context(), wait, answered, grace, []func(){func() {}, func() { close(ended) }}, nil, quietGap, nil)
		return ended
	}
	isClosed := func(ch chan struct{}, within time.Duration) bool {
		select {
		case <-ch:
			return true
		case <-time.After(within):
			return false
		}
	}

	loaded := make(chan struct{})
	wait := func(ctx context.Context) error {
		select {
		case <-loaded:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	answered := make(chan struct{})
	ended := run(wait, answered, time.Hour)
	if isClosed(ended, 50*time.Millisecond) {
		t.Fatal("ended before the catalog was in")
	}
	close(loaded)
	if isClosed(ended, 50*time.Millisecond) {
		t.Fatal("ended when the catalog came in, before the first answer")
	}
	close(answered)
	if !isClosed(ended, 5*time.Second) {
		t.Fatal("not ended after the first answer")
	}

	// No request: the grace.
	if !isClosed(run(wait, make(chan struct{}), 10*time.Millisecond), 5*time.Second) {
		t.Fatal("not ended after the grace")
	}
	// The catalog never comes: at once.
	failed := func(context.Context) error { return errors.New("closed") }
	if !isClosed(run(failed, make(chan struct{}), time.Hour), 5*time.Second) {
		t.Fatal("not ended when the wait failed")
	}
}

// TestEndStartWaitsForQuiet: after the first answer, the start's tuning
// ends at once, and its later work runs once no request has been in
// progress for the gap, not while the host's first searches come one after
// the other; and after the grace whatever they do. The gap is longer than
// quietGap, so that a busy machine's pause between two calls of the test's
// burst does not pass for quiet.
func TestEndStartWaitsForQuiet(t *testing.T) {
	const gap = 250 * time.Millisecond
	h := newHandshake(time.Hour)
	h.open()
	ready := func(context.Context) error { return nil }
	answered := make(chan struct{})
	close(answered)
	tuned, ended := make(chan struct{}), make(chan struct{})
	go endStart(t.Context(), ready, answered, time.Hour, []func(){func() { close(tuned) }}, h.quiet, gap, []func(){func() { close(ended) }})
	select {
	case <-tuned:
	case <-time.After(5 * time.Second):
		t.Fatal("the start's tuning did not end after the first answer")
	}

	// A burst: a request in progress at nearly every moment for 4 gaps.
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		time.Sleep(5 * time.Millisecond)
		return nil, nil
	}
	for deadline := time.Now().Add(4 * gap); time.Now().Before(deadline); {
		if _, err := h.middleware(next)(t.Context(), "ping", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ended:
			t.Fatal("the start ended during a burst of requests")
		default:
		}
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the start did not end once the requests stopped")
	}

	// Requests that never stop: the grace ends the start.
	busy := func() time.Duration { return 0 }
	ended = make(chan struct{})
	go endStart(t.Context(), ready, answered, 50*time.Millisecond, nil, busy, gap, []func(){func() { close(ended) }})
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the grace did not end the start")
	}
}

// TestQuiet: quiet is 0 while a request is in progress, and grows from the
// end of the last one.
func TestQuiet(t *testing.T) {
	h := newHandshake(time.Hour)
	h.open()
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		if q := h.quiet(); q != 0 {
			t.Errorf("quiet = %v while a request is in progress", q)
		}
		return nil, nil
	}
	if _, err := h.middleware(next)(t.Context(), "tools/list", nil); err != nil {
		t.Fatal(err)
	}
	if q := h.quiet(); q < 0 || q > time.Second {
		t.Errorf("quiet = %v just after a request", q)
	}
	time.Sleep(2 * time.Millisecond)
	if q := h.quiet(); q < 2*time.Millisecond {
		t.Errorf("quiet = %v 2 ms after the last request", q)
	}
}

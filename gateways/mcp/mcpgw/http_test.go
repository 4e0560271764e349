package mcpgw

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// httpServer serves the MCP server of a small catalog through handler and
// returns its URL.
func newMCPServer(t *testing.T) *mcp.Server {
	t.Helper()
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{newTestCatalog(t).skillsDir}})
	server, err := New(conn, Options{Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	return server
}

func serveMux(t *testing.T, streamable, sse http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	if sse != nil {
		mux.Handle("/sse", sse)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// initialize opens a session (and never closes it) and returns the status,
// the session ID and the body.
func initialize(t *testing.T, url string, header ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(body)
}

// liveSessions counts the server's sessions that have an ID.
func liveSessions(s *mcp.Server) int {
	n := 0
	for ss := range s.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// waitFor polls cond until it holds or 10 s pass (a bound for a loaded
// machine, not a measure: the test asserts the state, not the time).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so after 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSDKHandlerKeepsEverySession reproduces issue 16's session growth:
// the SDK's Streamable HTTP handler with the options skills-mcp used keeps
// every session a client opens and never closes, so live sessions grow with
// every initialize.
func TestSDKHandlerKeepsEverySession(t *testing.T) {
	server := newMCPServer(t)
	url := serveMux(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{}), nil)
	const n = 40
	for range n {
		if code, _, body := initialize(t, url); code != http.StatusOK {
			t.Fatalf("initialize: %d %s", code, body)
		}
	}
	if got := liveSessions(server); got != n {
		t.Fatalf("live sessions after %d initialize without DELETE: %d, want %d (all kept)", n, got, n)
	}
}

// TestHTTPBoundsSessions: NewHTTP keeps at most MaxSessions; one more gets
// 503 with a message naming the setting; closing one makes room.
func TestHTTPBoundsSessions(t *testing.T) {
	server := newMCPServer(t)
	h, err := NewHTTP(server, HTTPOptions{MaxSessions: 5, SessionIdleTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	url := serveMux(t, h.Streamable(), h.SSE())
	var ids []string
	for range 5 {
		code, id, body := initialize(t, url)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %q %s", code, id, body)
		}
		ids = append(ids, id)
	}
	for range 10 {
		code, _, body := initialize(t, url)
		if code != http.StatusServiceUnavailable || !strings.Contains(body, "mcp.http.max_sessions") || !strings.Contains(body, `"jsonrpc":"2.0"`) {
			t.Fatalf("initialize beyond the limit: %d %s, want 503 with a JSON-RPC error naming mcp.http.max_sessions", code, body)
		}
	}
	if got := h.Sessions(); got != 5 {
		t.Fatalf("live sessions: %d, want 5", got)
	}
	// A legacy SSE stream is a session too: refused at the limit.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /sse at the limit: %d, want 503", resp.StatusCode)
	}

	// DELETE closes a session, which makes room for one more.
	del, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, url+"/mcp", nil)
	del.Header.Set("Mcp-Session-Id", ids[0])
	resp, err = http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, "four sessions after a DELETE", func() bool { return h.Sessions() == 4 })
	if code, _, body := initialize(t, url); code != http.StatusOK {
		t.Errorf("initialize after a DELETE: %d %s", code, body)
	}
	if got := h.Sessions(); got != 5 {
		t.Errorf("live sessions: %d, want 5", got)
	}
}

// TestHTTPSSESessionsCount: open SSE streams count against the limit for as
// long as they are open.
func TestHTTPSSESessionsCount(t *testing.T) {
	server := newMCPServer(t)
	h, err := NewHTTP(server, HTTPOptions{MaxSessions: 1})
	if err != nil {
		t.Fatal(err)
	}
	url := serveMux(t, h.Streamable(), h.SSE())
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/sse", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %d", resp.StatusCode)
	}
	if got := h.Sessions(); got != 1 {
		t.Errorf("sessions with one SSE stream open: %d, want 1", got)
	}
	if code, _, _ := initialize(t, url); code != http.StatusServiceUnavailable {
		t.Errorf("initialize while the SSE stream holds the only session: %d, want 503", code)
	}
	cancel()
	resp.Body.Close()
	waitFor(t, "no session once the SSE stream closed", func() bool { return h.Sessions() == 0 })
	if code, _, body := initialize(t, url); code != http.StatusOK {
		t.Errorf("initialize after the stream closed: %d %s", code, body)
	}
}

// TestHTTPIdleSessionsExpire: a session without requests for the idle
// timeout is closed; its client gets 404 (and starts a new session).
func TestHTTPIdleSessionsExpire(t *testing.T) {
	server := newMCPServer(t)
	h, err := NewHTTP(server, HTTPOptions{SessionIdleTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url := serveMux(t, h.Streamable(), nil)
	var id string
	for range 3 {
		_, id, _ = initialize(t, url)
	}
	if id == "" {
		t.Fatal("no session ID")
	}
	waitFor(t, "every idle session closed", func() bool { return h.Sessions() == 0 })
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request of an expired session: %d, want 404", resp.StatusCode)
	}
}

func TestHTTPOrigin(t *testing.T) {
	server := newMCPServer(t)
	for _, tc := range []struct {
		allowed []string
		origin  string
		want    int
	}{
		{nil, "", http.StatusOK},
		{nil, "http://localhost:3000", http.StatusOK},
		{nil, "http://127.0.0.1:5173", http.StatusOK},
		{nil, "https://[::1]:8443", http.StatusOK},
		{nil, "https://evil.example.com", http.StatusForbidden},
		{nil, "http://localhost.evil.example.com", http.StatusForbidden},
		{nil, "null", http.StatusForbidden},
		{[]string{"https://console.example.com"}, "https://console.example.com", http.StatusOK},
		{[]string{"https://console.example.com"}, "https://console.example.com:443", http.StatusOK},
		{[]string{"https://console.example.com"}, "http://console.example.com", http.StatusForbidden},
		{[]string{"https://console.example.com"}, "https://console.example.com:8443", http.StatusForbidden},
		{[]string{"https://console.example.com"}, "http://localhost:3000", http.StatusForbidden},
		{[]string{"*"}, "https://anything.example.org", http.StatusOK},
		{[]string{"*"}, "null", http.StatusOK},
	} {
		t.Run(fmt.Sprintf("%v %s", tc.allowed, tc.origin), func(t *testing.T) {
			h, err := NewHTTP(server, HTTPOptions{AllowedOrigins: tc.allowed})
			if err != nil {
				t.Fatal(err)
			}
			url := serveMux(t, h.Streamable(), nil)
			var hdr []string
			if tc.origin != "" {
				hdr = []string{"Origin", tc.origin}
			}
			code, _, body := initialize(t, url, hdr...)
			if code != tc.want {
				t.Errorf("Origin %q: %d %s, want %d", tc.origin, code, body, tc.want)
			}
			if tc.want == http.StatusForbidden && !strings.Contains(body, "mcp.http.allowed_origins") {
				t.Errorf("refusal %s does not say which setting allows it", body)
			}
		})
	}
	if _, err := NewHTTP(server, HTTPOptions{AllowedOrigins: []string{"console.example.com"}}); err == nil {
		t.Error("an origin without a scheme: no error")
	}
}

// FuzzOrigin: parsing an allowed origin and checking a request's Origin
// never panic, and a refusal is always 403.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"http://localhost:*", "https://a.example.com:8443", "*", "null", "http://[::1]:*", "http://%zz", ""} {
		f.Add(s, "http://localhost:3000")
	}
	f.Fuzz(func(t *testing.T, allowed, header string) {
		o, err := parseOrigin(allowed)
		if err != nil {
			return
		}
		h := &HTTP{origins: []origin{o}, log: slog.New(slog.DiscardHandler)}
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Origin", header)
		rec := httptest.NewRecorder()
		if !h.originAllowed(rec, req) && rec.Code != http.StatusForbidden {
			t.Fatalf("refused %q with %d", header, rec.Code)
		}
	})
}

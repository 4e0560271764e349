package main

import (
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestRequestIDReachesSkillsd: the gateway answers the caller's
// X-Request-Id, or one it made, and passes it on to the remote skillsd,
// whose access line carries the same id.
func TestRequestIDReachesSkillsd(t *testing.T) {
	binary(t)
	var logs lockedBuffer
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{skillsDir(t)}, Cwd: t.TempDir(), Home: t.TempDir(),
		AccessLog: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()
	base := start(t, nil, "--server", lis.Addr().String(), "--http", "127.0.0.1:0")

	get := func(id string) []string {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/v1/skills/pdf", nil)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /v1/skills/pdf: %s", resp.Status)
		}
		return resp.Header.Values("X-Request-Id")
	}
	waitLogged := func(id string) {
		t.Helper()
		want := "request_id=" + id
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), want); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("skillsd's log has no %s:\n%s", want, logs.String())
			}
		}
	}
	if got := get("req-99"); len(got) != 1 || got[0] != "req-99" {
		t.Errorf("X-Request-Id answered: %q, want [req-99]", got)
	}
	waitLogged("req-99")
	got := get("")
	if len(got) != 1 || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(got[0]) {
		t.Fatalf("X-Request-Id made by the gateway: %q, want one of 32 hex digits", got)
	}
	waitLogged(got[0])
}

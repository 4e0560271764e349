//lint:file-ignore SA1019 the tests drive MCP roots, deprecated from protocol 2026-07-28 but still declared by hosts.

package mcpgw

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// legacyProtocol is the newest protocol version with the initialize handshake,
// the one on which clients declare roots.
const legacyProtocol = "2025-11-25"

// fileURI returns the file URI of a local absolute path.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// rootsServer returns an MCP server whose OnClientRoots sends each report to
// the returned channel.
func rootsServer(t *testing.T) (*mcp.Server, <-chan []string) {
	t.Helper()
	reports := make(chan []string, 16)
	conn := skillstest.Start(t, skillsd.Options{})
	server, err := New(conn, Options{
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnClientRoots: func(ctx context.Context, roots []string) {
			if ctx.Err() != nil {
				t.Errorf("OnClientRoots called with a finished context: %v", ctx.Err())
			}
			reports <- roots
		},
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return server, reports
}

// connectRoots connects client to server in memory at the given protocol
// version ("" is the SDK's latest).
func connectRoots(t *testing.T, server *mcp.Server, client *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), serverTransport, nil)
	if err != nil {
		t.Fatalf("server.Connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := client.Connect(t.Context(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client.Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// nextReport waits for the next report of OnClientRoots.
func nextReport(t *testing.T, reports <-chan []string) []string {
	t.Helper()
	select {
	case got := <-reports:
		return got
	case <-time.After(10 * time.Second):
		t.Fatal("OnClientRoots was not called")
		return nil
	}
}

// countRootsList makes client count the roots/list requests it receives, and
// fail them while fail is true.
func countRootsList(client *mcp.Client, fail *atomic.Bool) *atomic.Int32 {
	var n atomic.Int32
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				n.Add(1)
				if fail != nil && fail.Load() {
					return nil, errors.New("roots are not available")
				}
			}
			return next(ctx, method, req)
		}
	})
	return &n
}

func TestClientRoots(t *testing.T) {
	server, reports := rootsServer(t)
	base := t.TempDir()
	alpha, beta := filepath.Join(base, "alpha project"), filepath.Join(base, "beta")

	client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "0"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(alpha)}, &mcp.Root{URI: "https://example.com/repo"})
	if uri := fileURI(alpha); !strings.Contains(uri, "%20") {
		t.Fatalf("test setup: %q should hold a percent-encoded space", uri)
	}
	connectRoots(t, server, client, legacyProtocol)
	if got, want := nextReport(t, reports), []string{alpha}; !cmp.Equal(got, want) {
		t.Errorf("after initialize: got roots %q, want %q", got, want)
	}

	client.AddRoots(&mcp.Root{URI: fileURI(beta)})
	if got, want := nextReport(t, reports), []string{alpha, beta}; !cmp.Equal(got, want) {
		t.Errorf("after adding a root: got roots %q, want %q", got, want)
	}
	client.RemoveRoots(fileURI(alpha))
	if got, want := nextReport(t, reports), []string{beta}; !cmp.Equal(got, want) {
		t.Errorf("after removing a root: got roots %q, want %q", got, want)
	}
}

// TestClientRootsCoalesced announces several changes in a row: the last
// report holds them all, and no report comes out of order.
func TestClientRootsCoalesced(t *testing.T) {
	server, reports := rootsServer(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "0"}, nil)
	connectRoots(t, server, client, legacyProtocol)
	if got := nextReport(t, reports); len(got) != 0 {
		t.Fatalf("after initialize: got roots %q, want none", got)
	}
	base := t.TempDir()
	var want []string
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		want = append(want, filepath.Join(base, name))
		client.AddRoots(&mcp.Root{URI: fileURI(want[len(want)-1])})
	}
	for prev := 0; ; {
		got := nextReport(t, reports)
		if len(got) < prev {
			t.Fatalf("reports out of order: %q after %d roots", got, prev)
		}
		if prev = len(got); cmp.Equal(got, want) {
			break
		}
	}
}

// TestClientRootsRetriedOnChange: a client that fails roots/list is asked
// again when it announces a change.
func TestClientRootsRetriedOnChange(t *testing.T) {
	server, reports := rootsServer(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "0"}, nil)
	var fail atomic.Bool
	fail.Store(true)
	asked := countRootsList(client, &fail)
	cs := connectRoots(t, server, client, legacyProtocol)
	deadline := time.Now().Add(10 * time.Second)
	for asked.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if asked.Load() == 0 {
		t.Fatal("the server never asked for roots")
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("the session after a failed roots/list: %v", err)
	}
	select {
	case got := <-reports:
		t.Fatalf("a failed roots/list was reported as %q", got)
	default:
	}

	fail.Store(false)
	dir := t.TempDir()
	client.AddRoots(&mcp.Root{URI: fileURI(dir)})
	if got, want := nextReport(t, reports), []string{dir}; !cmp.Equal(got, want) {
		t.Errorf("after a change: got roots %q, want %q", got, want)
	}
}

func TestClientRootsNotAsked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		caps    *mcp.ClientCapabilities
		version string
	}{
		{"client without the roots capability", &mcp.ClientCapabilities{}, legacyProtocol},
		{"session without the initialize handshake", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server, reports := rootsServer(t)
			client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "0"}, &mcp.ClientOptions{Capabilities: tc.caps})
			client.AddRoots(&mcp.Root{URI: fileURI(t.TempDir())})
			asked := countRootsList(client, nil)
			cs := connectRoots(t, server, client, tc.version)
			client.AddRoots(&mcp.Root{URI: fileURI(t.TempDir())})
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			// Requests would go out on goroutines of their own: give them time.
			time.Sleep(200 * time.Millisecond)
			if n := asked.Load(); n != 0 {
				t.Errorf("the server sent roots/list %d times, want never", n)
			}
			select {
			case got := <-reports:
				t.Errorf("OnClientRoots called with %q, want never", got)
			default:
			}
		})
	}
}

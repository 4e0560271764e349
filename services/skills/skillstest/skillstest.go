// Package skillstest starts a real skillsd service for tests: the full gRPC
// server with its interceptors, on an in-memory listener, torn down when the
// test ends.
package skillstest

import (
	"log/slog"
	"testing"

	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/services/skills/internal/testfs"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// Start builds a server from opts, waits for its first catalog, and returns a
// client connection to it over bufconn. With no Logger the server logs to the test's output; with no Cwd and
// Home, discovery is confined to a temporary folder so the test never reads the
// machine's own skills.
func Start(t testing.TB, opts skillsd.Options) *grpc.ClientConn {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	srv, err := skillsd.New(t.Context(), opts)
	if err != nil {
		t.Fatalf("skillstest: starting skillsd: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := srv.WaitReady(t.Context()); err != nil { // a first clone loads in the background
		t.Fatalf("skillstest: waiting for the catalog: %v", err)
	}
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatalf("skillstest: dialing skillsd: %v", err)
	}
	return conn
}

// MountTmpfs mounts a tmpfs of size bytes on dir, unmounted when the test
// ends: a real file system that fills up. Where the kernel refuses (not
// root, not Linux) the test is skipped, saying why.
func MountTmpfs(t testing.TB, dir string, size int64) { testfs.MountTmpfs(t, dir, size) }

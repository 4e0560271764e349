package skillsclient_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestDialTLS: Dial reaches a skillsd serving TLS with the CA file and the
// token; without the CA or the token, calls fail; half a client
// certificate is refused at once.
func TestDialTLS(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: PDF files.\n---\nUse it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ca := skillstest.NewCA(t, "client")
	pair := ca.Server("skillsd")
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), AuthTokens: []string{"s3cret"},
		Edge: skillsd.EdgeOptions{Flags: edge.Flags{TLS: edge.TLSFiles{CertFile: pair.CertFile, KeyFile: pair.KeyFile}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()

	for _, tc := range []struct {
		name string
		opts skillsclient.DialOptions
		ok   bool
	}{
		{"CA and token", skillsclient.DialOptions{CAFile: ca.File, Token: "s3cret"}, true},
		{"no token", skillsclient.DialOptions{CAFile: ca.File}, false},
		{"system roots", skillsclient.DialOptions{TLS: true, Token: "s3cret"}, false},
		{"plaintext", skillsclient.DialOptions{Token: "s3cret"}, false},
	} {
		conn, err := skillsclient.Dial(lis.Addr().String(), tc.opts)
		if err != nil {
			t.Fatalf("%s: Dial: %v", tc.name, err)
		}
		_, err = skillsclient.New(conn).Skill(t.Context(), "pdf")
		_ = conn.Close()
		if (err == nil) != tc.ok {
			t.Errorf("%s: Skill: %v, want success %v", tc.name, err, tc.ok)
		}
	}
	if _, err := skillsclient.Dial(lis.Addr().String(), skillsclient.DialOptions{CertFile: pair.CertFile}); err == nil || !strings.Contains(err.Error(), "KeyFile") {
		t.Errorf("a certificate without its key: %v", err)
	}
	if _, err := skillsclient.Dial(lis.Addr().String(), skillsclient.DialOptions{CAFile: "/nonexistent.pem"}); err == nil {
		t.Error("a missing CA file: no error")
	}
}

// TestDialReplicas: a comma-separated list of two skillsd serving TLS is
// dialed with the CA file and the token, each replica checked against its
// own host, and calls reach both; a malformed list is refused at once.
func TestDialReplicas(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: PDF files.\n---\nUse it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ca := skillstest.NewCA(t, "client")
	pair := ca.Server("skillsd")
	var addrs []string
	for _, host := range []string{"127.0.0.1", "localhost"} {
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), AuthTokens: []string{"s3cret"}, NoUsage: true, NoWatch: true,
			Edge: skillsd.EdgeOptions{Flags: edge.Flags{TLS: edge.TLSFiles{CertFile: pair.CertFile, KeyFile: pair.KeyFile}}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = srv.Serve(t.Context(), lis) }()
		if err := srv.WaitReady(t.Context()); err != nil {
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(lis.Addr().String())
		addrs = append(addrs, net.JoinHostPort(host, port))
	}
	var mu sync.Mutex
	served := map[string]int{}
	count := grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		var p peer.Peer
		err := invoker(ctx, method, req, reply, cc, append(opts, grpc.Peer(&p))...)
		if p.Addr != nil {
			mu.Lock()
			served[p.Addr.String()]++
			mu.Unlock()
		}
		return err
	})
	conn, err := skillsclient.Dial(strings.Join(addrs, ","), skillsclient.DialOptions{CAFile: ca.File, Token: "s3cret", Extra: []grpc.DialOption{count}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := skillsclient.New(conn)
	deadline := time.Now().Add(10 * time.Second)
	for len(served) < 2 {
		if _, err := client.Skill(t.Context(), "pdf"); err != nil {
			t.Fatalf("Skill: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, calls reached %v, want both replicas", served)
		}
	}

	for _, bad := range []string{"127.0.0.1:1,,127.0.0.1:2", "127.0.0.1:1,127.0.0.1"} {
		if _, err := skillsclient.Dial(bad, skillsclient.DialOptions{}); err == nil || !strings.Contains(err.Error(), "skillsclient: target") {
			t.Errorf("Dial(%q) = %v, want an error naming the target", bad, err)
		}
	}
}

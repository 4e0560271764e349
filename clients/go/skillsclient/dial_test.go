package skillsclient_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

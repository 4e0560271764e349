package edge_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNewResolvesTheMode(t *testing.T) {
	tests := []struct {
		name     string
		settings edge.Settings
		env      map[string]string
		legacy   string
		mode     string // edge.Guard.Mode
		unset    bool
		err      string
	}{
		{name: "nothing asked", mode: "none", unset: true},
		{name: "default tokens variable", env: map[string]string{"SKILLSD_AUTH_TOKENS": "a,b"}, mode: "token"},
		{name: "legacy variable", legacy: "SKILLS_MCP_AUTH_TOKEN", env: map[string]string{"SKILLS_MCP_AUTH_TOKEN": "a"}, mode: "token"},
		{name: "explicit none", settings: edge.Settings{AuthMode: "none"}, mode: "none"},
		{name: "token from a named variable", settings: edge.Settings{AuthMode: "token", TokensEnv: "TEAM"}, env: map[string]string{"TEAM": " x , y "}, mode: "token"},
		{name: "a named variable alone means token", settings: edge.Settings{TokensEnv: "TEAM", TokensEnvFrom: "auth.tokens_env"}, env: map[string]string{"TEAM": "x"}, mode: "token"},
		{
			name:     "token with no tokens",
			settings: edge.Settings{AuthMode: "token", AuthModeFrom: "auth.mode in c.yaml"},
			err:      "auth.mode in c.yaml asks for token authentication, but the variable SKILLSD_AUTH_TOKENS (SKILLSD_AUTH_TOKENS) is empty or unset",
		},
		{
			name:     "named variable empty",
			settings: edge.Settings{AuthMode: "token", AuthModeFrom: "SKILLSD_AUTH_MODE", TokensEnv: "CFGTOK", TokensEnvFrom: "auth.tokens_env in c.yaml"},
			err:      "the variable CFGTOK (auth.tokens_env in c.yaml) is empty or unset",
		},
		{
			name:     "none with tokens set",
			settings: edge.Settings{AuthMode: "none", AuthModeFrom: "--auth"},
			env:      map[string]string{"SKILLSD_AUTH_TOKENS": "a"},
			err:      "--auth is none, but SKILLSD_AUTH_TOKENS holds bearer tokens",
		},
		{
			name:     "none with a named variable",
			settings: edge.Settings{AuthMode: "none", AuthModeFrom: "--auth", TokensEnv: "T", TokensEnvFrom: "auth.tokens_env"},
			err:      "--auth is none, but auth.tokens_env names a tokens variable (T)",
		},
		{name: "github without repositories", settings: edge.Settings{AuthMode: "github", AuthModeFrom: "SKILLSD_AUTH_MODE"}, err: "SKILLSD_AUTH_MODE is github, but there is no repository"},
		{name: "github", settings: edge.Settings{AuthMode: "github", GitHubRepos: []string{"octo/skills"}}, mode: "github"},
		{name: "unknown mode", settings: edge.Settings{AuthMode: "basic", AuthModeFrom: "--auth"}, err: `--auth: unknown value "basic"`},
		{name: "unknown hide", settings: edge.Settings{HidePaths: "maybe", HidePathsFrom: "SKILLSD_HIDE_PATHS"}, err: `SKILLSD_HIDE_PATHS: unknown value "maybe"`},
		{name: "certificate missing", settings: edge.Settings{TLS: edge.TLSFiles{CertFile: "/nonexistent/c.pem", KeyFile: "/nonexistent/k.pem"}, TLSFrom: "tls.cert_file in c.yaml"}, err: "tls.cert_file in c.yaml: reading TLS file"},
		{name: "key missing", settings: edge.Settings{TLS: edge.TLSFiles{CertFile: "c.pem"}, TLSFrom: "--tls-cert"}, err: "--tls-cert: TLS needs both a certificate and its key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := edge.New(edge.Options{Settings: tt.settings, Getenv: env(tt.env), LegacyTokensEnv: tt.legacy})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("New: got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if g.Mode() != tt.mode || g.Unset() != tt.unset {
				t.Errorf("mode %s (unset %v), want %s (unset %v)", g.Mode(), g.Unset(), tt.mode, tt.unset)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	parse := func(args ...string) (edge.Flags, error) {
		var f edge.Flags
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs, "token-env", "auth-token-env")
		if err := fs.Parse(args); err != nil {
			return f, err
		}
		return f, f.Check(env(map[string]string{"T": "tok", "U": "tok"}))
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--token-env", "T"}, ""},
		{[]string{"--token-env", "T", "--auth-token-env", "T"}, ""},
		{[]string{"--token-env", "T", "--auth-token-env", "U"}, "name two different variables"},
		{[]string{"--auth-token-env", "EMPTY"}, "--auth-token-env EMPTY: the variable EMPTY is empty or unset"},
		{[]string{"--auth", "github", "--token-env", "T"}, "it does not go with --auth github"},
		{[]string{"--auth", "oauth"}, `--auth "oauth": want none, token`},
		{[]string{"--hide-paths", "sometimes"}, `--hide-paths "sometimes"`},
		{[]string{"--tls-key", "k.pem"}, "--tls-key needs --tls-cert"},
	} {
		_, err := parse(tc.args...)
		if (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.err)
		}
	}

	// Flags win over the configuration; a tokens flag means token mode.
	f, err := parse("--auth-token-env", "T", "--tls-client-ca", "ca.pem", "--hide-paths", "never")
	if err != nil {
		t.Fatal(err)
	}
	got := f.Over(edge.Settings{AuthMode: "github", AuthModeFrom: "auth.mode", TLS: edge.TLSFiles{CertFile: "c", KeyFile: "k"}, HidePaths: "always"})
	want := edge.Settings{AuthMode: "token", AuthModeFrom: "--auth-token-env", TokensEnv: "T", TokensEnvFrom: "--auth-token-env",
		TLS: edge.TLSFiles{CertFile: "c", KeyFile: "k", ClientCAFile: "ca.pem"}, TLSFrom: "--tls-cert", HidePaths: "never", HidePathsFrom: "--hide-paths"}
	if got.AuthMode != want.AuthMode || got.AuthModeFrom != want.AuthModeFrom || got.TokensEnv != want.TokensEnv || got.TLS != want.TLS || got.HidePaths != want.HidePaths {
		t.Errorf("Over:\n got %+v\nwant %+v", got, want)
	}
}

func TestFromEnv(t *testing.T) {
	s, err := edge.FromEnv(env(map[string]string{
		"SKILLSD_AUTH_MODE": "Token", "SKILLSD_AUTH_TOKENS_ENV": "TEAM", "SKILLSD_HIDE_PATHS": "always",
		"SKILLSD_TLS_CERT": "/c.pem", "SKILLSD_TLS_KEY": "/k.pem", "GITHUB_AUTH_REPOS": "o/r",
		"SEARCH_LIMIT": "not a number", // not the listener's: not read
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.AuthMode != "token" || s.AuthModeFrom != "SKILLSD_AUTH_MODE" || s.TokensEnv != "TEAM" || s.HidePaths != "always" ||
		s.TLS != (edge.TLSFiles{CertFile: "/c.pem", KeyFile: "/k.pem"}) || len(s.GitHubRepos) != 1 {
		t.Errorf("FromEnv: %+v", s)
	}
	if _, err := edge.FromEnv(env(map[string]string{"SKILLSD_AUTH_MODE": "basic"})); err == nil || !strings.Contains(err.Error(), "SKILLSD_AUTH_MODE") {
		t.Errorf("FromEnv with a bad mode: %v, want an error naming SKILLSD_AUTH_MODE", err)
	}
}

// logBuffer collects a log safe for concurrent writers.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestListenRefusesUnsafeAddresses(t *testing.T) {
	for _, tc := range []struct {
		name, addr string
		settings   edge.Settings
		env        map[string]string
		unsafe     bool
		warning    bool
	}{
		{name: "loopback without auth", addr: "127.0.0.1:0"},
		{name: "every interface without auth", addr: "0.0.0.0:0", unsafe: true},
		{name: "every interface, none on purpose", addr: "0.0.0.0:0", settings: edge.Settings{AuthMode: "none"}, warning: true},
		{name: "every interface with tokens", addr: "0.0.0.0:0", env: map[string]string{"SKILLSD_AUTH_TOKENS": "t"}},
		{name: "loopback, none on purpose", addr: "127.0.0.1:0", settings: edge.Settings{AuthMode: "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log logBuffer
			g, err := edge.New(edge.Options{Surface: "REST", Settings: tc.settings, Getenv: env(tc.env), Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			lis, err := g.Listen(tc.addr)
			if tc.unsafe {
				if !edge.IsUnsafe(err) || !strings.Contains(err.Error(), "--auth none") || !strings.Contains(err.Error(), "REST") {
					t.Fatalf("Listen(%s): got %v, want an UnsafeError naming REST and --auth none", tc.addr, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Listen(%s): %v", tc.addr, err)
			}
			_ = lis.Close()
			if got := strings.Contains(log.String(), "UNAUTHENTICATED LISTENER"); got != tc.warning {
				t.Errorf("warning logged: %v, want %v; log:\n%s", got, tc.warning, log.String())
			}
		})
	}
}

func TestHidePaths(t *testing.T) {
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	all := &net.TCPAddr{IP: net.IPv4zero, Port: 1}
	lan := &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 1}
	for _, tc := range []struct {
		policy         string
		loop, all, lan bool
	}{
		{"", false, true, true},
		{"auto", false, true, true},
		{"always", true, true, true},
		{"never", false, false, false},
	} {
		g, err := edge.New(edge.Options{Settings: edge.Settings{HidePaths: tc.policy, AuthMode: "none"}})
		if err != nil {
			t.Fatal(err)
		}
		if g.HidePaths(loop) != tc.loop || g.HidePaths(all) != tc.all || g.HidePaths(lan) != tc.lan {
			t.Errorf("policy %q: loopback %v, 0.0.0.0 %v, 10.1.2.3 %v; want %v %v %v", tc.policy,
				g.HidePaths(loop), g.HidePaths(all), g.HidePaths(lan), tc.loop, tc.all, tc.lan)
		}
	}
}

func TestTokenAuthHTTP(t *testing.T) {
	g, err := edge.New(edge.Options{Settings: edge.Settings{AuthMode: "token", TokensEnv: "T"}, Getenv: env(map[string]string{"T": "old-token,new-token"})})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(g.HTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%s reached the handler with its Authorization header", r.URL.Path)
		}
		_, _ = io.WriteString(w, "inside")
	}), edge.HTTPOptions{Open: func(r *http.Request) bool { return r.URL.Path == "/healthz" }}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		method, path, auth string
		preflight          bool
		want               int
	}{
		{"GET", "/v1/skills", "", false, 401},
		{"GET", "/v1/skills", "Bearer nope", false, 401},
		{"GET", "/v1/skills", "Token old-token", false, 401},
		{"GET", "/v1/skills", "Bearer old-token", false, 200},
		{"GET", "/v1/skills", "Bearer new-token", false, 200},
		{"GET", "/v1/skills", "bearer  new-token ", false, 200},
		{"POST", "/v1/scripts:run", "", false, 401},
		{"GET", "/healthz", "", false, 200},
		{"OPTIONS", "/v1/skills", "", true, 200},
		{"OPTIONS", "/v1/skills", "", false, 401},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, srv.URL+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.preflight {
			req.Header.Set("Access-Control-Request-Method", "GET")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s (%q): %d %s, want %d", tc.method, tc.path, tc.auth, resp.StatusCode, body, tc.want)
		}
		if tc.want == 401 {
			if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(string(body), `"UNAUTHORIZED"`) {
				t.Errorf("%s %s: challenge %q, body %s", tc.method, tc.path, resp.Header.Get("WWW-Authenticate"), body)
			}
			if strings.Contains(string(body), "token\"") && strings.Contains(string(body), "old-token") {
				t.Errorf("the refusal leaks a token: %s", body)
			}
		}
	}
}

func TestTokenAuthGRPC(t *testing.T) {
	g, err := edge.New(edge.Options{Getenv: env(map[string]string{"SKILLSD_AUTH_TOKENS": "s3cret"})})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method string
		md           []string
		want         codes.Code
	}{
		{"no token", "/skills.v1.CatalogService/ListSkills", nil, codes.Unauthenticated},
		{"wrong token", "/skills.v1.CatalogService/ListSkills", []string{"authorization", "Bearer nope"}, codes.Unauthenticated},
		{"right token", "/skills.v1.ScriptService/RunScript", []string{"authorization", "Bearer s3cret"}, codes.OK},
		{"one right value of two", "/skills.v1.CatalogService/ListSkills", []string{"authorization", "Bearer nope", "authorization", "Bearer s3cret"}, codes.OK},
		{"health is open", "/grpc.health.v1.Health/Check", nil, codes.OK},
		{"reflection is not", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", nil, codes.Unauthenticated},
	} {
		ctx := t.Context()
		if tc.md != nil {
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(tc.md...))
		}
		if got := status.Code(g.CheckGRPC(ctx, tc.method)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGitHubAuth(t *testing.T) {
	const reader, blind = "ghp_EdgeReaderEdgeReaderEdgeReaderEdg01", "ghp_EdgeBlindEdgeBlindEdgeBlindEdgeBl02"
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") {
		case reader:
			_, _ = io.WriteString(w, `{"full_name":"octo/skills","permissions":{"pull":true}}`)
		case blind:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Not Found"}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"message":"Bad credentials"}`)
		}
	}))
	t.Cleanup(gh.Close)
	g, err := edge.New(edge.Options{Settings: edge.Settings{AuthMode: "github", GitHubAPIURL: gh.URL, GitHubRepos: []string{"octo/skills"}}})
	if err != nil {
		t.Fatal(err)
	}
	enc := func(tok string) string { return "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(tok)) }
	for _, tc := range []struct {
		auth string
		want codes.Code
	}{
		{"", codes.Unauthenticated},
		{enc("not-a-github-token"), codes.Unauthenticated},
		{enc("ghp_RevokedRevokedRevokedRevokedRevo99"), codes.Unauthenticated},
		{enc(blind), codes.PermissionDenied},
		{enc(reader), codes.OK},
	} {
		ctx := t.Context()
		if tc.auth != "" {
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", tc.auth))
		}
		if got := status.Code(g.CheckGRPC(ctx, "/skills.v1.CatalogService/ListSkills")); got != tc.want {
			t.Errorf("gRPC with %q: %v, want %v", tc.auth, got, tc.want)
		}
	}
	srv := httptest.NewServer(g.HTTP(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") }), edge.HTTPOptions{}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		auth string
		want int
	}{{"", 401}, {enc(blind), 403}, {enc(reader), 200}} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v1/skills", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("HTTP with %q: %d, want %d", tc.auth, resp.StatusCode, tc.want)
		}
	}
}

// serveTLS serves HTTPS on 127.0.0.1:0 through a guard with files, answering
// each request with "ok".
func serveTLS(t *testing.T, files edge.TLSFiles, log io.Writer) string {
	t.Helper()
	g, err := edge.New(edge.Options{Settings: edge.Settings{TLS: files}, Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !g.TLS() || g.Scheme() != "https" {
		t.Fatalf("TLS %v, scheme %s", g.TLS(), g.Scheme())
	}
	lis, err := g.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{
		Handler:  http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		ErrorLog: slog.NewLogLogger(slog.DiscardHandler, slog.LevelError), // refused handshakes are the point
	}
	go func() { _ = hs.Serve(lis) }()
	t.Cleanup(func() { _ = hs.Close() })
	return lis.Addr().String()
}

// handshake connects once with cfg and returns the serial of the server's
// certificate.
func handshake(t *testing.T, addr string, cfg *tls.Config) (int64, error) {
	t.Helper()
	d := tls.Dialer{Config: cfg}
	c, err := d.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	tc := c.(*tls.Conn)
	// TLS 1.3 reports a refused client certificate on the first read.
	_, _ = tc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	buf := make([]byte, 64)
	if _, err := tc.Read(buf); err != nil {
		return 0, err
	}
	return tc.ConnectionState().PeerCertificates[0].SerialNumber.Int64(), nil
}

func pool(t *testing.T, file string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(pem)
	return p
}

func TestTLSReloadsRenewedCertificates(t *testing.T) {
	ca := skillstest.NewCA(t, "test")
	pair := ca.Server("server")
	var log logBuffer
	addr := serveTLS(t, edge.TLSFiles{CertFile: pair.CertFile, KeyFile: pair.KeyFile}, &log)
	trust := &tls.Config{RootCAs: pool(t, ca.File), ServerName: "127.0.0.1"}

	if _, err := handshake(t, addr, &tls.Config{ServerName: "127.0.0.1"}); err == nil {
		t.Error("a client without the CA connected; want a certificate error")
	}
	serial, err := handshake(t, addr, trust)
	if err != nil || serial != pair.Serial {
		t.Fatalf("handshake: serial %d, %v; want %d", serial, err, pair.Serial)
	}

	// A renewed certificate is served by the next handshake, no restart.
	renewed := ca.WriteServer(pair)
	if serial, err = handshake(t, addr, trust); err != nil || serial != renewed.Serial {
		t.Fatalf("after renewal: serial %d, %v; want %d", serial, err, renewed.Serial)
	}
	if !strings.Contains(log.String(), "TLS certificate reloaded") {
		t.Errorf("the reload is not logged:\n%s", log.String())
	}

	// A renewal caught half-written keeps the last good certificate.
	if err := os.WriteFile(pair.KeyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if serial, err = handshake(t, addr, trust); err != nil || serial != renewed.Serial {
		t.Fatalf("with a broken key file: serial %d, %v; want the previous %d", serial, err, renewed.Serial)
	}
	if !strings.Contains(log.String(), "could not be loaded") {
		t.Errorf("the broken renewal is not logged:\n%s", log.String())
	}
}

func TestMutualTLS(t *testing.T) {
	ca := skillstest.NewCA(t, "test")
	other := skillstest.NewCA(t, "other")
	pair := ca.Server("server")
	addr := serveTLS(t, edge.TLSFiles{CertFile: pair.CertFile, KeyFile: pair.KeyFile, ClientCAFile: ca.File}, io.Discard)

	for _, tc := range []struct {
		name   string
		client *skillstest.Pair
		ok     bool
	}{
		{"no client certificate", nil, false},
		{"a certificate of another CA", new(other.Client("mallory")), false},
		{"a certificate of the client CA", new(ca.Client("alice")), true},
	} {
		ct := edge.ClientTLS{CAFile: ca.File, ServerName: "127.0.0.1"}
		if tc.client != nil {
			ct.CertFile, ct.KeyFile = tc.client.CertFile, tc.client.KeyFile
		}
		cfg, err := ct.Config()
		if err != nil {
			t.Fatal(err)
		}
		_, err = handshake(t, addr, cfg)
		if (err == nil) != tc.ok {
			t.Errorf("%s: handshake error %v, want success %v", tc.name, err, tc.ok)
		}
	}
}

func TestClientTLS(t *testing.T) {
	if cfg, err := (edge.ClientTLS{}).Config(); cfg != nil || err != nil {
		t.Errorf("zero ClientTLS: %v, %v; want no TLS", cfg, err)
	}
	if cfg, err := (edge.ClientTLS{Enabled: true}).Config(); err != nil || cfg == nil || cfg.RootCAs != nil {
		t.Errorf("Enabled: %+v, %v; want TLS with the system roots", cfg, err)
	}
	if _, err := (edge.ClientTLS{CAFile: "/nonexistent.pem"}).Config(); err == nil {
		t.Error("a missing CA file: no error")
	}
	if _, err := (edge.ClientTLS{CertFile: "c.pem"}).Config(); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("a certificate without its key: %v", err)
	}
	bad := t.TempDir() + "/ca.pem"
	_ = os.WriteFile(bad, []byte("garbage"), 0o600)
	if _, err := (edge.ClientTLS{CAFile: bad}).Config(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a CA file without certificates: %v", err)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[net.Addr]bool{
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}:   true,
		&net.TCPAddr{IP: net.IPv4(127, 9, 9, 9)}:   true,
		&net.TCPAddr{IP: net.IPv6loopback}:         true,
		&net.TCPAddr{IP: net.IPv4zero}:             false,
		&net.TCPAddr{IP: net.IPv6unspecified}:      false,
		&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2)}: false,
		&net.UnixAddr{Name: "/run/skillsd.sock"}:   true,
	} {
		if got := edge.Loopback(addr); got != want {
			t.Errorf("Loopback(%s) = %v, want %v", addr, got, want)
		}
	}
}

package skillsd_test

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/prototext"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestAuthFromEveryLayer is issue 16's first defect: auth.mode token in
// config.yaml was accepted, then every RPC was served without a token. Each
// way of asking for token auth (config.yaml, environment, flags, the
// program's own tokens) now makes the gRPC listener refuse calls without
// one, and accept the configured tokens (several, for rotation).
func TestAuthFromEveryLayer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string
		env    map[string]string
		flags  edge.Flags
		tokens []string
	}{
		{name: "config.yaml", config: "auth:\n  mode: token\n  tokens_env: CFGTOK\n", env: map[string]string{"CFGTOK": "good,next"}},
		{name: "config.yaml, default variable", config: "auth: {mode: token}\n", env: map[string]string{"SKILLSD_AUTH_TOKENS": "good,next"}},
		{name: "environment", env: map[string]string{"SKILLSD_AUTH_MODE": "token", "SKILLSD_AUTH_TOKENS_ENV": "ENVTOK", "ENVTOK": "good,next"}},
		{name: "tokens variable alone", env: map[string]string{"SKILLSD_AUTH_TOKENS": "good, next"}},
		{name: "flag", env: map[string]string{"FLAGTOK": "good,next"}, flags: edge.Flags{TokensEnv: "FLAGTOK", TokensFlag: "token-env"}},
		{name: "flag over a config without auth", config: "auth: {mode: none}\n", env: map[string]string{"FLAGTOK": "good,next"}, flags: edge.Flags{Auth: "token", TokensEnv: "FLAGTOK", TokensFlag: "token-env"}},
		{name: "program", tokens: []string{"good", "next"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := skillsd.Options{SkillsDirs: []string{examples(t)}, Getenv: func(k string) string { return tc.env[k] },
				Edge: skillsd.EdgeOptions{Flags: tc.flags}, AuthTokens: tc.tokens}
			if tc.config != "" {
				opts.ConfigFile = writeConfig(t, tc.config)
			}
			conn, _, _ := serveTCP(t, opts)
			cat := skillsv1.NewCatalogServiceClient(conn)
			if _, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("ListSkills without a token: %v, want Unauthenticated", err)
			}
			bad := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer bad")
			if _, err := cat.ListSkills(bad, &skillsv1.ListSkillsRequest{}); status.Code(err) != codes.Unauthenticated {
				t.Errorf("ListSkills with a wrong token: %v, want Unauthenticated", err)
			}
			for _, tok := range []string{"good", "next"} {
				ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+tok)
				if _, err := cat.ListSkills(ctx, &skillsv1.ListSkillsRequest{}); err != nil {
					t.Errorf("ListSkills with token %s: %v", tok, err)
				}
			}
			if _, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
				t.Errorf("health without a token: %v, want it open", err)
			}
		})
	}
}

// TestAuthSettingsThatCannotWork stop the listener with a message naming
// the setting, and refuse every call of an untrusted in-process connection.
func TestAuthSettingsThatCannotWork(t *testing.T) {
	cfg := writeConfig(t, "auth:\n  mode: token\n  tokens_env: CFGTOK\n")
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, ConfigFile: cfg, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	_, err = srv.Guard()
	if err == nil || !strings.Contains(err.Error(), "auth.mode in "+cfg) || !strings.Contains(err.Error(), "CFGTOK") {
		t.Fatalf("Guard: %v, want an error naming auth.mode in the file and CFGTOK", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(t.Context(), lis); err == nil || !strings.Contains(err.Error(), "CFGTOK") {
		t.Errorf("Serve: %v, want the same error", err)
	}
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skillsv1.NewCatalogServiceClient(conn).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{}); status.Code(err) != codes.Unavailable {
		t.Errorf("an untrusted call: %v, want Unavailable", err)
	}
}

// TestTrustedConnection: a gateway's connection (DialTrusted) skips the
// authentication its own listener did; DialInProcess does not.
func TestTrustedConnection(t *testing.T) {
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, AuthTokens: []string{"s3cret"}, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	untrusted, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skillsv1.NewCatalogServiceClient(untrusted).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("DialInProcess without a token: %v, want Unauthenticated", err)
	}
	trusted, err := srv.DialTrusted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skillsv1.NewCatalogServiceClient(trusted).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{}); err != nil {
		t.Errorf("DialTrusted: %v", err)
	}
}

// TestServeRefusesAnUnsafeAddress: with no authentication, skillsd does not
// serve an address that is not loopback, unless none was asked for on
// purpose; then answers leave the server's paths out.
func TestServeRefusesAnUnsafeAddress(t *testing.T) {
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Serve(t.Context(), lis); !edge.IsUnsafe(err) {
		t.Fatalf("Serve on 0.0.0.0 without auth: %v, want an UnsafeError", err)
	}

	conn := serveAll(t, skillsd.Options{SkillsDirs: []string{examples(t)}, ConfigFile: writeConfig(t, "auth: {mode: none}\n")})
	resp, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf-report"})
	if err != nil {
		t.Fatal(err)
	}
	if text := prototext.Format(resp); strings.Contains(text, examples(t)) {
		t.Errorf("an answer on 0.0.0.0 holds the server's folder %s:\n%s", examples(t), text)
	}
	if resp.GetDirectory() != "skills/pdf-report" || !strings.HasPrefix(resp.GetFile(), "skills/pdf-report/") {
		t.Errorf("hidden directory %q, file %q; want skills/pdf-report and a file inside it", resp.GetDirectory(), resp.GetFile())
	}
	if src := resp.GetSkill().GetSource(); src != "skills" {
		t.Errorf("hidden source %q, want its label skills", src)
	}
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil || strings.Contains(prototext.Format(st), examples(t)) {
		t.Errorf("status on 0.0.0.0: %v, holds the folder: %v", err, strings.Contains(prototext.Format(st), examples(t)))
	}
}

// serveAll serves opts on 0.0.0.0 and connects through loopback.
func serveAll(t *testing.T, opts skillsd.Options) *grpc.ClientConn {
	t.Helper()
	opts.Cwd, opts.Home = t.TempDir(), t.TempDir()
	srv, err := skillsd.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(context.WithoutCancel(t.Context()), lis) }()
	_, port, _ := net.SplitHostPort(lis.Addr().String())
	conn, err := grpc.NewClient("127.0.0.1:"+port, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// TestHidePaths: paths are shown in process and on loopback, hidden when a
// gateway asks and on every listener under "always"; a source filter takes
// the hidden label.
func TestHidePaths(t *testing.T) {
	dir := examples(t)
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	shown, err := srv.DialTrusted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	hidden, err := srv.DialTrusted(t.Context(), edge.HidePathsDialOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	get := func(conn *grpc.ClientConn) *skillsv1.GetSkillResponse {
		resp, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf-report"})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if d := get(shown).GetDirectory(); d != filepath.Join(dir, "pdf-report") {
		t.Errorf("in process: directory %q, want %q", d, filepath.Join(dir, "pdf-report"))
	}
	h := get(hidden)
	if h.GetDirectory() != "skills/pdf-report" || h.GetFile() != "skills/pdf-report/SKILL.md" {
		t.Errorf("hidden: directory %q, file %q", h.GetDirectory(), h.GetFile())
	}
	if h.GetInstructions() != get(shown).GetInstructions() {
		t.Error("hiding paths changed the skill's instructions")
	}
	// The label filters diagnostics like the name does.
	cat := skillsv1.NewCatalogServiceClient(hidden)
	all, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byLabel, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{Source: "skills"})
	if err != nil || len(byLabel.GetDiagnostics()) != len(all.GetDiagnostics()) {
		t.Errorf("diagnostics of source \"skills\": %d, %v; want all %d", len(byLabel.GetDiagnostics()), err, len(all.GetDiagnostics()))
	}

	// "always" hides them on loopback too; "never" shows them on 0.0.0.0.
	conn, _, _ := serveTCP(t, skillsd.Options{SkillsDirs: []string{dir}, Edge: skillsd.EdgeOptions{Flags: edge.Flags{HidePaths: "always"}}})
	if d := get(conn).GetDirectory(); d != "skills/pdf-report" {
		t.Errorf("always, on loopback: directory %q", d)
	}
	conn = serveAll(t, skillsd.Options{SkillsDirs: []string{dir}, ConfigFile: writeConfig(t, "auth: {mode: none}\nnetwork: {hide_paths: never}\n")})
	if d := get(conn).GetDirectory(); d != filepath.Join(dir, "pdf-report") {
		t.Errorf("never, on 0.0.0.0: directory %q", d)
	}
}

// TestLogLevelFromConfig: log.level applies to the command's log unless its
// flag fixed it; LOG_LEVEL wins over the file.
func TestLogLevelFromConfig(t *testing.T) {
	cfg := writeConfig(t, "log: {level: debug}\n")
	for _, tc := range []struct {
		name string
		env  map[string]string
		want slog.Level
	}{
		{"config.yaml", nil, slog.LevelDebug},
		{"LOG_LEVEL over the file", map[string]string{"LOG_LEVEL": "error"}, slog.LevelError},
	} {
		level := new(slog.LevelVar)
		level.Set(slog.LevelWarn)
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, ConfigFile: cfg, LogLevel: level,
			Getenv: func(k string) string { return tc.env[k] }, Cwd: t.TempDir(), Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		_ = srv.Close()
		if level.Level() != tc.want {
			t.Errorf("%s: level %v, want %v", tc.name, level.Level(), tc.want)
		}
	}
}

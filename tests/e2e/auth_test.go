package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The tokens callers present in these tests: two, as during a rotation.
const (
	authTokenOld = "e2e-rotating-old"
	authTokenNew = "e2e-rotating-new"
	// upstreamToken is what a gateway in front of a remote skillsd sends it.
	upstreamToken = "e2e-upstream"
)

// authWay is one way of asking a binary for token authentication.
type authWay struct {
	name string
	// setup returns the extra arguments and environment; dir is a folder of
	// the test's own.
	setup func(t *testing.T, dir string) (args, env []string)
	// remote says the way applies to a gateway in front of a remote skillsd
	// (it loads no config.yaml there: --config and --server exclude each other).
	remote bool
}

var authWays = []authWay{
	{name: "flag", remote: true, setup: func(*testing.T, string) ([]string, []string) {
		return []string{"--auth", "token", "--auth-token-env", "E2E_TOKENS"}, []string{"E2E_TOKENS=" + authTokenOld + "," + authTokenNew}
	}},
	{name: "env", remote: true, setup: func(*testing.T, string) ([]string, []string) {
		return nil, []string{"SKILLSD_AUTH_MODE=token", "SKILLSD_AUTH_TOKENS=" + authTokenOld + ", " + authTokenNew}
	}},
	{name: "config.yaml", setup: func(t *testing.T, dir string) ([]string, []string) {
		file := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(file, []byte("auth:\n  mode: token\n  tokens_env: CFG_TOKENS\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--config", file}, []string{"CFG_TOKENS=" + authTokenOld + "," + authTokenNew}
	}},
}

// authSurface is one surface that serves the catalog.
type authSurface struct {
	name   string
	remote bool // a gateway in front of a remote skillsd
	// start starts it with the way's arguments and environment and returns
	// its address.
	start func(t *testing.T, dir string, args, env []string) string
	// call makes one catalog call with an Authorization value ("" for none)
	// and says whether it was refused as unauthenticated; health says
	// whether the health check answers without credentials.
	call   func(t *testing.T, addr, authorization string) (refused bool)
	health func(t *testing.T, addr string) bool
}

// startBackend starts a skillsd that wants upstreamToken, for the gateways.
func startBackend(t *testing.T, dir string) string {
	_, addr := startOnFreePortEnv(t, []string{"SKILLSD_AUTH_TOKENS=" + upstreamToken}, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} }, grpcReady)
	return addr
}

// httpCall sends method path with an Authorization value and reports a 401.
func httpCall(t *testing.T, method, url, body, authorization string, headers ...string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"0"}}}`

var (
	restCall = func(t *testing.T, addr, authorization string) bool {
		code := httpCall(t, http.MethodGet, "http://"+addr+"/v1/skills", "", authorization)
		if code != http.StatusOK && code != http.StatusUnauthorized {
			t.Errorf("GET /v1/skills: status %d", code)
		}
		return code == http.StatusUnauthorized
	}
	restHealth = func(t *testing.T, addr string) bool {
		return httpCall(t, http.MethodGet, "http://"+addr+"/healthz", "", "") == http.StatusOK &&
			httpCall(t, http.MethodGet, "http://"+addr+"/openapi.json", "", "") == http.StatusOK
	}
	mcpCall = func(t *testing.T, addr, authorization string) bool {
		code := httpCall(t, http.MethodPost, "http://"+addr+"/mcp", initializeBody, authorization,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		if code != http.StatusOK && code != http.StatusUnauthorized {
			t.Errorf("POST /mcp initialize: status %d", code)
		}
		return code == http.StatusUnauthorized
	}
	mcpHealth = func(t *testing.T, addr string) bool {
		return httpCall(t, http.MethodGet, "http://"+addr+"/healthz", "", "") == http.StatusOK
	}
)

func authSurfaces() []authSurface {
	return []authSurface{
		{
			name: "gRPC",
			start: func(t *testing.T, dir string, args, env []string) string {
				_, addr := startOnFreePortEnv(t, env, binary(t, "skillsd"),
					func(addr string) []string { return append([]string{"--grpc", addr, "--skills-dir", dir}, args...) }, grpcReady)
				return addr
			},
			call: func(t *testing.T, addr, authorization string) bool {
				conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				ctx := t.Context()
				if authorization != "" {
					ctx = metadata.AppendToOutgoingContext(ctx, "authorization", authorization)
				}
				_, err = skillsv1.NewCatalogServiceClient(conn).ListSkills(ctx, &skillsv1.ListSkillsRequest{})
				if err != nil && status.Code(err) != codes.Unauthenticated {
					t.Errorf("ListSkills: %v", err)
				}
				return status.Code(err) == codes.Unauthenticated
			},
			health: func(t *testing.T, addr string) bool { return grpcReady(t.Context(), addr) == nil },
		},
		{
			name: "REST",
			start: func(t *testing.T, dir string, args, env []string) string {
				_, addr := startOnFreePortEnv(t, env, binary(t, "skills-rest"),
					func(addr string) []string { return append([]string{"--http", addr, "--skills-dir", dir}, args...) }, httpReady("/readyz"))
				return addr
			},
			call: restCall, health: restHealth,
		},
		{
			name: "REST --server", remote: true,
			start: func(t *testing.T, dir string, args, env []string) string {
				backend := startBackend(t, dir)
				_, addr := startOnFreePortEnv(t, append(env, "UP_TOKEN="+upstreamToken), binary(t, "skills-rest"), func(addr string) []string {
					return append([]string{"--http", addr, "--server", backend, "--token-env", "UP_TOKEN"}, args...)
				}, httpReady("/readyz"))
				return addr
			},
			call: restCall, health: restHealth,
		},
		{
			name: "MCP over HTTP",
			start: func(t *testing.T, dir string, args, env []string) string {
				_, addr := startOnFreePortEnv(t, env, binary(t, "skills-mcp"),
					func(addr string) []string { return append([]string{"--http", addr, "--skills-dir", dir}, args...) }, httpReady("/readyz"))
				return addr
			},
			call: mcpCall, health: mcpHealth,
		},
		{
			name: "MCP over HTTP --server", remote: true,
			start: func(t *testing.T, dir string, args, env []string) string {
				backend := startBackend(t, dir)
				_, addr := startOnFreePortEnv(t, append(env, "UP_TOKEN="+upstreamToken), binary(t, "skills-mcp"), func(addr string) []string {
					return append([]string{"--http", addr, "--server", backend, "--token-env", "UP_TOKEN"}, args...)
				}, httpReady("/readyz"))
				return addr
			},
			call: mcpCall, health: mcpHealth,
		},
	}
}

// TestAuthEverySurfaceEveryWay is the matrix of issue 16: token auth asked
// for by flag, environment or config.yaml is enforced the same way by
// skillsd's gRPC, skills-rest and skills-mcp --http, embedded and in front
// of a remote skillsd: no token and a wrong token are refused, both tokens
// of a rotation are accepted, the upstream token of a gateway is not a
// caller's, and health stays open.
func TestAuthEverySurfaceEveryWay(t *testing.T) {
	skipShort(t)
	dir := examplesDir(t)
	for _, s := range authSurfaces() {
		for _, w := range authWays {
			if s.remote && !w.remote {
				continue // a remote gateway reads no config.yaml
			}
			t.Run(s.name+"/"+w.name, func(t *testing.T) {
				t.Parallel() // each case runs its own processes on its own ports
				args, env := w.setup(t, t.TempDir())
				addr := s.start(t, dir, args, env)
				for _, c := range []struct {
					name, authorization string
					refused             bool
				}{
					{"no token", "", true},
					{"wrong token", "Bearer not-it", true},
					{"the upstream token", "Bearer " + upstreamToken, true},
					{"old token", "Bearer " + authTokenOld, false},
					{"new token", "Bearer " + authTokenNew, false},
				} {
					if got := s.call(t, addr, c.authorization); got != c.refused {
						t.Errorf("%s: refused %v, want %v", c.name, got, c.refused)
					}
				}
				if !s.health(t, addr) {
					t.Error("health does not answer without a token")
				}
			})
		}
	}
}

// examplesDir is the demo catalog.
func examplesDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "examples", "skills")
}

// runToExit runs bin to its end (at most 30 s) and returns its stderr and
// exit code.
func runToExit(t *testing.T, env []string, bin string, args ...string) (string, int) {
	t.Helper()
	p := startEnv(t, env, bin, args...)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %v still runs after 30 s", p.name, args)
	}
	code := 0
	if p.err != nil {
		code = p.cmd.ProcessState.ExitCode()
	}
	return p.stderr.String(), code
}

// TestUnsafeListenersRefused: on an address that is not loopback, with no
// authentication, each binary refuses to start with a message naming --auth
// none; a gateway that would lend its upstream token to anyone refuses too;
// with --auth none each starts and warns loudly.
func TestUnsafeListenersRefused(t *testing.T) {
	skipShort(t)
	dir := examplesDir(t)
	for _, tc := range []struct {
		bin  string
		args []string
		env  []string
		want string
	}{
		{"skillsd", []string{"--grpc", "0.0.0.0:0", "--skills-dir", dir}, nil, "refusing to serve gRPC on "},
		{"skills-rest", []string{"--http", "0.0.0.0:0", "--skills-dir", dir}, nil, "refusing to serve REST on "},
		{"skills-mcp", []string{"--http", "0.0.0.0:0", "--skills-dir", dir}, nil, "refusing to serve MCP over HTTP on "},
		{"skills-rest", []string{"--http", "127.0.0.1:0", "--server", "127.0.0.1:1", "--token-env", "UP"}, []string{"UP=x"}, "no caller authentication is configured"},
		{"skills-mcp", []string{"--http", "127.0.0.1:0", "--server", "127.0.0.1:1", "--token-env", "UP"}, []string{"UP=x"}, "no caller authentication is configured"},
	} {
		t.Run(tc.bin+" "+strings.Join(tc.args[:2], " "), func(t *testing.T) {
			out, code := runToExit(t, tc.env, binary(t, tc.bin), tc.args...)
			if code == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "--auth none") {
				t.Errorf("exit %d, stderr:\n%s\nwant a failure containing %q and naming --auth none", code, out, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		bin  string
		args []string
	}{
		{"skillsd", []string{"--grpc", "0.0.0.0:0", "--skills-dir", dir, "--auth", "none"}},
		{"skills-rest", []string{"--http", "0.0.0.0:0", "--skills-dir", dir, "--auth", "none"}},
		{"skills-mcp", []string{"--http", "0.0.0.0:0", "--skills-dir", dir, "--auth", "none"}},
	} {
		t.Run(tc.bin+" --auth none", func(t *testing.T) {
			p := startEnv(t, nil, binary(t, tc.bin), tc.args...)
			err := p.waitReady(t, func(context.Context) error {
				if !strings.Contains(p.stderr.String(), "UNAUTHENTICATED LISTENER") {
					return fmt.Errorf("no warning yet")
				}
				return nil
			})
			if err != nil {
				t.Errorf("%v; stderr:\n%s", err, p.stderr.String())
			}
		})
	}
}

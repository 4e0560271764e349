package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// build compiles skills-rest into a temporary folder once per test binary.
var build = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "skills-rest-test")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "skills-rest")
	out, err := exec.Command("go", "build", "-ldflags", "-X main.version=9.9.9-test", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", errors.New("go build: " + err.Error() + "\n" + string(out))
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	code := m.Run()
	if bin, err := build(); err == nil {
		_ = os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// skillsDir writes a one-skill catalog.
func skillsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	skill := "---\nname: pdf\ndescription: Extract text from PDF files.\n---\n# PDF\n"
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte(skill), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// start runs the binary with args and returns its base URL once it has
// printed where it listens. The process gets SIGTERM at the end of the test
// and must exit 0.
func start(t *testing.T, env []string, args ...string) string {
	t.Helper()
	addr, _ := startIn(t, t.TempDir(), env, args...)
	return addr
}

// startIn is start in the working folder dir; it also returns a function
// that reads what the process wrote on stderr so far.
func startIn(t *testing.T, dir string, env []string, args ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	// State (the usage store, on by default) stays out of the real home.
	cmd.Env = append(append(os.Environ(), "SKILLSD_HOME="+t.TempDir()), env...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		log strings.Builder
	)
	found := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			log.WriteString(line + "\n")
			mu.Unlock()
			if addr, ok := strings.CutPrefix(line, "skills-rest: listening on "); ok {
				found <- addr
			}
		}
	}()
	stderrText := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { <-drained; done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("skills-rest after SIGTERM: %v\n%s", err, stderrText())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("skills-rest did not stop after SIGTERM\n%s", stderrText())
		}
	})
	select {
	case addr := <-found:
		return addr, stderrText
	case <-drained:
		t.Fatalf("skills-rest exited before listening\n%s", stderrText())
	case <-time.After(30 * time.Second):
		t.Fatalf("skills-rest did not say where it listens\n%s", stderrText())
	}
	return "", stderrText
}

func getJSON(t *testing.T, url string) (int, map[string]any) {
	t.Helper()
	return getJSONAuth(t, url, "")
}

// getJSONAuth is getJSON with an Authorization header (none when empty).
func getJSONAuth(t *testing.T, url, authorization string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("GET %s: %v\n%s", url, err, raw)
	}
	return resp.StatusCode, body
}

func TestEmbedded(t *testing.T) {
	base := start(t, nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--log-level", "warn")
	if !strings.HasPrefix(base, "http://127.0.0.1:") || strings.HasSuffix(base, ":0") {
		t.Fatalf("listening on %q, want http://127.0.0.1:<port>", base)
	}
	status, body := getJSON(t, base+"/v1/skills")
	if status != http.StatusOK {
		t.Fatalf("GET /v1/skills: %d %v", status, body)
	}
	skills, _ := body["skills"].([]any)
	if len(skills) != 1 || skills[0].(map[string]any)["skill_path"] != "pdf" {
		t.Errorf("GET /v1/skills: %v, want the one skill pdf", body)
	}
	if status, body := getJSON(t, base+"/healthz"); status != http.StatusOK || body["status"] != "SERVING" {
		t.Errorf("GET /healthz: %d %v", status, body)
	}
	if status, body := getJSON(t, base+"/v1/status"); status != http.StatusOK || body["version"] != "9.9.9-test" {
		t.Errorf("GET /v1/status: %d %v, want version 9.9.9-test", status, body)
	}
}

// The console is on by default at /ui/ (the embedded build of console/), and
// --ui=false turns it off; the API is the same either way.
func TestConsole(t *testing.T) {
	base := start(t, nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0")
	resp, err := http.Get(base + "/ui/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<title>skillsd console</title>") || !strings.Contains(string(page), "/ui/assets/") {
		t.Fatalf("GET /ui/: %d\n%s", resp.StatusCode, page)
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("GET /ui/: CSP %q", resp.Header.Get("Content-Security-Policy"))
	}

	off := start(t, nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--ui=false")
	if status, body := getJSON(t, off+"/ui/"); status != http.StatusNotFound {
		t.Errorf("GET /ui/ with --ui=false: %d %v, want 404", status, body)
	}
	if status, _ := getJSON(t, off+"/v1/skills"); status != http.StatusOK {
		t.Errorf("GET /v1/skills with --ui=false: %d", status)
	}
}

// CORS: off by default; rest.cors_origins in config.yaml; --cors-origin
// replaces the config's list.
func TestCORSSettings(t *testing.T) {
	allowOrigin := func(base, origin string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodOptions, base+"/v1/skills", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Access-Control-Allow-Origin")
	}
	dir := skillsDir(t)
	if got := allowOrigin(start(t, nil, "--skills-dir", dir, "--http", "127.0.0.1:0"), "https://dash.example.com"); got != "" {
		t.Errorf("default: Allow-Origin %q, want none", got)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("rest:\n  cors_origins: [https://dash.example.com]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fromConfig := start(t, nil, "--skills-dir", dir, "--config", cfg, "--http", "127.0.0.1:0")
	if got := allowOrigin(fromConfig, "https://dash.example.com"); got != "https://dash.example.com" {
		t.Errorf("rest.cors_origins: Allow-Origin %q", got)
	}
	fromFlag := start(t, nil, "--skills-dir", dir, "--config", cfg, "--cors-origin", "http://localhost:5173", "--http", "127.0.0.1:0")
	if got := allowOrigin(fromFlag, "http://localhost:5173"); got != "http://localhost:5173" {
		t.Errorf("--cors-origin: Allow-Origin %q", got)
	}
	if got := allowOrigin(fromFlag, "https://dash.example.com"); got != "" {
		t.Errorf("--cors-origin kept the config's origin: Allow-Origin %q", got)
	}

	// A bad origin in config.yaml stops start-up, naming the key.
	bad := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(bad, []byte("rest:\n  cors_origins: [dash.example.com]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary(t), "--skills-dir", dir, "--config", bad, "--http", "127.0.0.1:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "rest.cors_origins") {
		t.Errorf("a bad rest.cors_origins: %v\n%s", err, out)
	}
}

func TestEmbeddedSkillsDirEnv(t *testing.T) {
	base := start(t, []string{"SKILLS_DIR=" + skillsDir(t)}, "--http", "127.0.0.1:0")
	status, body := getJSON(t, base+"/v1/skills")
	if status != http.StatusOK || body["total_size"] != float64(1) {
		t.Errorf("GET /v1/skills: %d %v, want the SKILLS_DIR catalog", status, body)
	}
}

func TestRemote(t *testing.T) {
	binary(t)
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{skillsDir(t)}, Cwd: t.TempDir(), Home: t.TempDir(), AuthTokens: []string{"t0ken"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()

	// The defect of issue 16: with its own token and no caller
	// authentication, the gateway served everyone with that token. It now
	// refuses to start.
	out, code := runBinary(t, []string{"SKILLSD_TOKEN=t0ken"}, "--server", lis.Addr().String(), "--token-env", "SKILLSD_TOKEN", "--http", "127.0.0.1:0")
	if code != 2 || !strings.Contains(out, "--auth none") || !strings.Contains(out, "--token-env SKILLSD_TOKEN") {
		t.Errorf("--server with --token-env and no inbound auth: exit %d, stderr:\n%s\nwant exit 2 naming --token-env and --auth none", code, out)
	}

	// Callers must present the gateway's own tokens; the gateway sends its
	// token upstream, never theirs.
	base := start(t, []string{"SKILLSD_TOKEN=t0ken", "REST_TOKENS=old-one, new-one"}, "--server", lis.Addr().String(), "--token-env", "SKILLSD_TOKEN",
		"--auth-token-env", "REST_TOKENS", "--http", "127.0.0.1:0")
	status, body := getJSON(t, base+"/v1/skills/pdf")
	if e, _ := body["error"].(map[string]any); status != http.StatusUnauthorized || e["code"] != "UNAUTHORIZED" {
		t.Errorf("GET /v1/skills/pdf without a token: %d %v, want 401 UNAUTHORIZED", status, body)
	}
	for _, tok := range []string{"old-one", "new-one"} { // rotation: both accepted
		status, body = getJSONAuth(t, base+"/v1/skills/pdf", "Bearer "+tok)
		if sk, _ := body["skill"].(map[string]any); status != http.StatusOK || sk["skill_path"] != "pdf" {
			t.Errorf("GET /v1/skills/pdf with token %s: %d %v", tok, status, body)
		}
	}
	if status, body = getJSONAuth(t, base+"/v1/skills/pdf", "Bearer t0ken"); status != http.StatusUnauthorized {
		t.Errorf("the upstream token is not a caller token: %d %v, want 401", status, body)
	}
	if status, _ := getJSON(t, base+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz without a token: %d, want 200", status)
	}

	// --auth none shares the token on purpose.
	base = start(t, []string{"SKILLSD_TOKEN=t0ken"}, "--server", lis.Addr().String(), "--token-env", "SKILLSD_TOKEN", "--auth", "none", "--http", "127.0.0.1:0")
	if status, body = getJSON(t, base+"/v1/skills/pdf"); status != http.StatusOK {
		t.Errorf("--auth none: GET /v1/skills/pdf: %d %v", status, body)
	}

	// Without the gateway's token, the service refuses.
	base = start(t, nil, "--server", lis.Addr().String(), "--http", "127.0.0.1:0")
	status, body = getJSON(t, base+"/v1/skills")
	if e, _ := body["error"].(map[string]any); status != http.StatusUnauthorized || e["code"] != "UNAUTHENTICATED" {
		t.Errorf("GET /v1/skills without a token: %d %v, want 401 UNAUTHENTICATED", status, body)
	}
}

// runBinary runs the binary to its end and returns its stderr and exit code.
func runBinary(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stderr.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return stderr.String(), 0
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%v did not exit; stderr:\n%s", args, stderr.String())
	}
	return "", -1
}

func TestCommandLine(t *testing.T) {
	bin := binary(t)
	tests := []struct {
		name     string
		args     []string
		env      []string
		exit     int
		stdout   string
		stderrIn string
	}{
		{"version", []string{"--version"}, nil, 0, "9.9.9-test\n", ""},
		{"both modes", []string{"--server", "127.0.0.1:1", "--skills-dir", "x"}, nil, 2, "", "either --server"},
		{"config with server", []string{"--server", "127.0.0.1:1", "--config", "c.yaml"}, nil, 2, "", "--config"},
		{"malformed replicas", []string{"--server", "127.0.0.1:1,,127.0.0.1:2"}, nil, 2, "", `--server: "127.0.0.1:1,,127.0.0.1:2": address 2 of the list is empty`},
		{"token without server", []string{"--token-env", "X"}, nil, 2, "", "--token-env"},
		{"empty token", []string{"--server", "127.0.0.1:1", "--token-env", "SKILLS_REST_TEST_UNSET"}, nil, 2, "", "SKILLS_REST_TEST_UNSET"},
		{"bad log level", []string{"--log-level", "loud"}, nil, 2, "", "log level"},
		{"bad LOG_LEVEL", nil, []string{"LOG_LEVEL=loud"}, 2, "", "log level"},
		{"unknown flag", []string{"--nope"}, nil, 2, "", "usage:"},
		{"extra argument", []string{"serve"}, nil, 2, "", "unexpected argument"},
		{"bad cors origin", []string{"--skills-dir", "x", "--cors-origin", "https://dash.example.com/app"}, nil, 2, "", "--cors-origin: origin"},
		{"cors origin without scheme", []string{"--server", "127.0.0.1:1", "--cors-origin", "dash.example.com"}, nil, 2, "", "want http:// or https://"},
		{"bad listen address", []string{"--skills-dir", t.TempDir(), "--http", "127.0.0.1:99999"}, nil, 1, "", "listening on"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(append(os.Environ(), "SKILLSD_HOME="+t.TempDir()), tc.env...)
			cmd.Dir = t.TempDir()
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tc.exit {
				t.Errorf("exit %d, want %d; stderr:\n%s", exit, tc.exit, stderr.String())
			}
			if tc.exit == 0 && stdout.String() != tc.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderrIn) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tc.stderrIn)
			}
		})
	}
}

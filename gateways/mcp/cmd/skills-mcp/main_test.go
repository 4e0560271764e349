package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/skillsd/skillsd/services/skills/healthz"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// binDir holds the skills-mcp binary built for the tests of this package.
var binDir string

func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	dir, err := os.MkdirTemp("", "skills-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

const testVersion = "9.9.9-test"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds skills-mcp once for all tests, or skips when no Go toolchain
// is at hand.
func binary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build skills-mcp: %v", err)
	}
	buildOnce.Do(func() {
		binPath = filepath.Join(binDir, "skills-mcp")
		cmd := exec.Command(goTool, "build", "-o", binPath, "-ldflags", "-X main.version="+testVersion, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// writeSkills writes a small catalog and returns its folder.
func writeSkills(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill and merge PDF files.\n---\n\n# PDF\n\nUse pypdf.\n",
		"pdf/reference.md":    "# reference\n",
		"slides/SKILL.md":     "---\nname: Slides\ndescription: Build slide decks.\n---\n\n# Slides\n",
		"nested/a/b/SKILL.md": "---\nname: deep\ndescription: A skill in a nested folder.\n---\n\nDeep.\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// command returns an exec.Cmd for skills-mcp with a clean environment: no
// SKILLS_DIR or LOG_LEVEL from the machine, HOME and the working directory in
// temporary folders so that default discovery finds nothing.
func command(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	return cmd
}

// syncBuffer is a bytes.Buffer safe for a process to write while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// connectStdio starts cmd as an MCP server over stdio and connects a client.
func connectStdio(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to skills-mcp: %v", err)
	}
	return cs
}

func callJSON[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (T, bool, string) {
	t.Helper()
	var out T
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return out, true, text
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s(%v): decoding %q: %v", tool, args, text, err)
	}
	return out, false, text
}

// skillNode is the part of a list_skills node the tests read.
type skillNode struct {
	Name     string      `json:"name"`
	Path     string      `json:"path"`
	Children []skillNode `json:"children"`
}

func flatten(nodes []skillNode) []skillNode {
	var out []skillNode
	for _, n := range nodes {
		out = append(out, n)
		out = append(out, flatten(n.Children)...)
	}
	return out
}

type loadAnswer struct {
	Name      string `json:"name"`
	SkillPath string `json:"skill_path"`
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    options
		wantErr string
	}{
		{name: "defaults", want: options{logLevel: slog.LevelInfo, logFormat: "text"}},
		{
			name: "embedded with folders and config",
			args: []string{"--skills-dir", "a", "--skills-dir=b", "--config", "c.yaml", "--http", "127.0.0.1:0"},
			want: options{skillsDirs: []string{"a", "b"}, configFile: "c.yaml", httpAddr: "127.0.0.1:0", logLevel: slog.LevelInfo, logFormat: "text"},
		},
		{
			name: "remote with token",
			args: []string{"--server", "host:50051", "--token-env", "TOK"},
			want: options{server: "host:50051", tokenEnv: "TOK", logLevel: slog.LevelInfo, logFormat: "text"},
		},
		{name: "LOG_LEVEL", env: map[string]string{"LOG_LEVEL": "DEBUG"}, want: options{logLevel: slog.LevelDebug, logFormat: "text"}},
		{name: "flag over LOG_LEVEL", args: []string{"--log-level", "error"}, env: map[string]string{"LOG_LEVEL": "nonsense"}, want: options{logLevel: slog.LevelError, logLevelSet: true, logFormat: "text"}},
		{name: "version", args: []string{"--version"}, want: options{version: true, logLevel: slog.LevelInfo, logFormat: "text"}},
		{
			name: "replicas",
			args: []string{"--server", "a:50051,b:50051"},
			want: options{server: "a:50051,b:50051", logLevel: slog.LevelInfo, logFormat: "text"},
		},
		{name: "malformed replicas", args: []string{"--server", "a:50051,,b:50051"}, wantErr: `--server: "a:50051,,b:50051": address 2 of the list is empty`},
		{name: "replica without port", args: []string{"--server", "a:50051,b"}, wantErr: `--server: "a:50051,b": address 2, "b", is not host:port`},
		{name: "server and skills-dir", args: []string{"--server", "h:1", "--skills-dir", "x"}, wantErr: "--skills-dir and --server exclude each other"},
		{name: "server and config", args: []string{"--server", "h:1", "--config", "x"}, wantErr: "--config and --server exclude each other"},
		{name: "token-env without server", args: []string{"--token-env", "TOK"}, wantErr: "--token-env needs --server"},
		{name: "bad LOG_LEVEL", env: map[string]string{"LOG_LEVEL": "loud"}, wantErr: `LOG_LEVEL: invalid log level "loud": want debug, info, warn or error`},
		{name: "bad --log-level", args: []string{"--log-level", "trace"}, wantErr: `--log-level: invalid log level "trace"`},
		{name: "LOG_FORMAT", env: map[string]string{"LOG_FORMAT": "JSON"}, want: options{logLevel: slog.LevelInfo, logFormat: "json"}},
		{name: "flag over LOG_FORMAT", args: []string{"--log-format", "text"}, env: map[string]string{"LOG_FORMAT": "json"}, want: options{logLevel: slog.LevelInfo, logFormat: "text", logFormatSet: true}},
		{name: "bad LOG_FORMAT", env: map[string]string{"LOG_FORMAT": "yaml"}, wantErr: `LOG_FORMAT: invalid log format "yaml": want text or json`},
		{name: "require-skills", args: []string{"--require-skills"}, want: options{logLevel: slog.LevelInfo, logFormat: "text", requireSkills: true}},
		{name: "require-skills and server", args: []string{"--require-skills", "--server", "h:1"}, wantErr: "--require-skills checks the embedded service's catalog"},
		{name: "positional argument", args: []string{"serve"}, wantErr: `unexpected argument "serve"`},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseArgs(%q): got error %v, want one containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tt.args, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("parseArgs(%q): got %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"--version"}, wantCode: 0, wantStdout: "skills-mcp "},
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "Usage:"},
		{name: "bad combination", args: []string{"--server", "h:1", "--skills-dir", "x"}, wantCode: 2, wantStderr: "skills-mcp: --skills-dir and --server exclude each other"},
		{name: "bad log level", env: map[string]string{"LOG_LEVEL": "loud"}, wantCode: 2, wantStderr: "invalid log level"},
		{name: "unknown flag", args: []string{"--nope"}, wantCode: 2, wantStderr: "flag provided but not defined"},
		{
			name:       "token variable unset",
			args:       []string{"--server", "127.0.0.1:1", "--token-env", "SKILLS_MCP_TEST_TOKEN"},
			wantCode:   2,
			wantStderr: "the environment variable SKILLS_MCP_TEST_TOKEN is empty or unset",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return tt.env[k] })
			if code != tt.wantCode {
				t.Errorf("run(%q): got exit %d, want %d; stderr:\n%s", tt.args, code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("run(%q): stdout %q lacks %q", tt.args, stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q): stderr %q lacks %q", tt.args, stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestStdioEmbedded drives the built binary over stdio, as a host does, with
// debug logs on: the client works only if stdout carries nothing but protocol.
func TestStdioEmbedded(t *testing.T) {
	dir := writeSkills(t)
	missing := filepath.Join(t.TempDir(), "missing")
	var stderr syncBuffer
	cmd := command(t, []string{"LOG_LEVEL=debug"}, "--skills-dir", dir, "--skills-dir", missing)
	cmd.Stderr = &stderr
	cs := connectStdio(t, cmd)

	if got := cs.InitializeResult().ServerInfo; got.Name != "skillsd" || got.Version != testVersion {
		t.Errorf("serverInfo: got %+v, want skillsd %s", got, testVersion)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got, want := strings.Join(names, ","), "get_skill,list_skills,load_skill,read_skill_file,refresh_skills,report_usage,run_script,search_skills"; got != want {
		t.Errorf("tools: got %s, want %s", got, want)
	}
	list, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil)
	if isErr {
		t.Fatalf("list_skills: %s", text)
	}
	if got := len(flatten(list.Skills)); got != 3 {
		t.Errorf("list_skills: got %d skills, want 3: %s", got, text)
	}
	for _, tt := range []struct{ arg, wantPath string }{{"pdf", "pdf"}, {"slides", "slides"}, {"DEEP", "nested/a/b"}} {
		got, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": tt.arg})
		if isErr || got.SkillPath != tt.wantPath {
			t.Errorf("load_skill(%q): got %s, want skill_path %q", tt.arg, text, tt.wantPath)
		}
	}
	if _, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdff"}); !isErr || !strings.Contains(text, "Did you mean: pdf") {
		t.Errorf("load_skill(pdff): got %s, want an error suggesting pdf", text)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status after stdin closed: got %d, want 0; stderr:\n%s", code, stderr.String())
	}
	logs := stderr.String()
	for _, want := range []string{"level=DEBUG", "skills folder not readable", missing} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
}

// TestStdioOnlyProtocolOnStdout speaks raw JSON-RPC to the binary with debug
// logs on, checks that every stdout line is a JSON-RPC message, then closes
// stdin and checks that the process exits with status 0.
func TestStdioOnlyProtocolOnStdout(t *testing.T) {
	cmd := command(t, []string{"LOG_LEVEL=debug"}, "--skills-dir", writeSkills(t))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"load_skill","arguments":{"name":"pdf"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"load_skill","arguments":{"name":""}}}`,
	}
	if _, err := io.WriteString(stdin, strings.Join(requests, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	results := map[float64]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(results) < 4 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			res, ok := msg["result"].(map[string]any)
			if !ok {
				t.Fatalf("request %v: got %v, want a result", id, msg)
			}
			results[id] = res
		}
	}
	if len(results) < 4 {
		t.Fatalf("got %d answers, want 4 (scan error %v); stderr:\n%s", len(results), sc.Err(), stderr.String())
	}
	if results[4]["isError"] != true {
		t.Errorf("load_skill with an empty name: got %v, want isError", results[4])
	}
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(stdout); len(bytes.TrimSpace(rest)) > 0 {
		t.Errorf("stdout after stdin closed: %q", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after stdin closed: %v, want exit status 0; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "level=DEBUG") {
		t.Errorf("no debug logs on stderr:\n%s", stderr.String())
	}
}

// corpusDir finds the benchmark corpus beside the repository, if present.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		c := filepath.Join(dir, "shared", "bench", "corpus")
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no shared/bench/corpus above the working directory: skipping the corpus test")
		}
		dir = parent
	}
}

// TestStdioCorpus serves the benchmark corpus (387 real skills) and loads
// every one of them, by path and by name.
func TestStdioCorpus(t *testing.T) {
	corpus := corpusDir(t)
	var stderr syncBuffer
	cmd := command(t, nil, "--skills-dir", corpus)
	cmd.Stderr = &stderr
	start := time.Now()
	cs := connectStdio(t, cmd)
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	t.Logf("start to first tools/list answer: %v", time.Since(start).Round(time.Millisecond))
	defer cs.Close()

	list, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil)
	if isErr {
		t.Fatalf("list_skills: %s", text)
	}
	all := flatten(list.Skills)
	if got, want := len(all), 387; got != want {
		t.Errorf("list_skills: got %d skills, want %d", got, want)
	}
	t.Logf("list_skills answer: %d bytes", len(text))
	// Every skill loads, by path and by its name in capitals: four calls
	// in flight at a time, as a client may send them (the session answers
	// each on its own).
	var truncated atomic.Int64
	load := func(name string) (loadAnswer, string, bool) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "load_skill", Arguments: map[string]any{"name": name}})
		if err != nil {
			t.Errorf("load_skill(%q): %v", name, err)
			return loadAnswer{}, "", false
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var got loadAnswer
		if res.IsError || json.Unmarshal([]byte(text), &got) != nil {
			t.Errorf("load_skill(%q): got %.300s", name, text)
			return loadAnswer{}, text, false
		}
		return got, text, true
	}
	work := make(chan skillNode)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for n := range work {
				got, text, ok := load(n.Path)
				if !ok {
					continue
				}
				if got.SkillPath != n.Path {
					t.Errorf("load_skill(%q): got %.300s", n.Path, text)
				}
				if got.Truncated {
					truncated.Add(1)
				}
				if len(text) > 200<<10 {
					t.Errorf("load_skill(%q): answer of %d bytes", n.Path, len(text))
				}
				if byName, text, ok := load(strings.ToUpper(n.Name)); ok && !strings.EqualFold(byName.Name, n.Name) {
					t.Errorf("load_skill(%q) by name: got %.300s", strings.ToUpper(n.Name), text)
				}
			}
		})
	}
	for _, n := range all {
		work <- n
	}
	close(work)
	wg.Wait()
	t.Logf("loaded %d skills, %d truncated", len(all), truncated.Load())
}

// TestHTTP serves over Streamable HTTP on a free port, checks the probes and an
// MCP session, then stops the process with SIGTERM.
func TestHTTP(t *testing.T) {
	cmd := command(t, nil, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	urlRE := regexp.MustCompile(`url=(http://\S+/mcp)`)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var endpoint string
	var logs []string
	timeout := time.After(30 * time.Second)
	for endpoint == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("skills-mcp exited before serving:\n%s", strings.Join(logs, "\n"))
			}
			logs = append(logs, line)
			if m := urlRE.FindStringSubmatch(line); m != nil {
				endpoint = m[1]
			}
		case <-timeout:
			t.Fatalf("skills-mcp did not announce its URL:\n%s", strings.Join(logs, "\n"))
		}
	}
	go func() { // keep draining stderr
		for range lines {
		}
	}()

	// The probes answer in skills-rest's shape (issue 18: {"status":"ok"} here,
	// {"status":"SERVING"} there).
	for _, probe := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + probe)
		if err != nil {
			t.Fatalf("GET %s: %v", probe, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != `{"status":"SERVING"}` {
			t.Errorf("GET %s: got %d %s, want 200 {\"status\":\"SERVING\"}", probe, resp.StatusCode, body)
		}
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	list, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil)
	if isErr || len(flatten(list.Skills)) != 3 {
		t.Errorf("list_skills over HTTP: got %s, want 3 skills", text)
	}
	if got, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdf"}); isErr || !strings.Contains(got.Content, "Use pypdf") {
		t.Errorf("load_skill over HTTP: got %s", text)
	}
	_ = cs.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v, want exit status 0", err)
		}
	case <-ctx.Done():
		t.Error("skills-mcp did not stop within 10s of SIGTERM")
	}
}

// TestStdioRemote runs skillsd on a loopback port with a bearer token, and
// skills-mcp --server against it: with the right token the tools work, with a
// wrong one they answer an error the model can act on.
func TestStdioRemote(t *testing.T) {
	srv, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{writeSkills(t)},
		Cwd:        t.TempDir(),
		Home:       t.TempDir(),
		AuthTokens: []string{"s3cret"},
	})
	if err != nil {
		t.Fatalf("starting skillsd: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(context.WithoutCancel(t.Context()), lis) }()

	tests := []struct {
		name      string
		token     string
		wantError string
	}{
		{name: "right token", token: "s3cret"},
		{name: "wrong token", token: "nope", wantError: "refused the credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr syncBuffer
			cmd := command(t, []string{"SKILLS_TOKEN=" + tt.token}, "--server", lis.Addr().String(), "--token-env", "SKILLS_TOKEN")
			cmd.Stderr = &stderr
			cs := connectStdio(t, cmd)
			defer cs.Close()
			got, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdf"})
			switch {
			case tt.wantError == "" && (isErr || got.SkillPath != "pdf"):
				t.Errorf("load_skill(pdf): got %s", text)
			case tt.wantError != "" && (!isErr || !strings.Contains(text, tt.wantError)):
				t.Errorf("load_skill(pdf): got %s, want an error containing %q", text, tt.wantError)
			}
			if strings.Contains(stderr.String(), tt.token) {
				t.Errorf("the token appears in the logs:\n%s", stderr.String())
			}
		})
	}

	t.Run("server down", func(t *testing.T) {
		down, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := down.Addr().String()
		down.Close()
		cs := connectStdio(t, command(t, nil, "--server", addr))
		defer cs.Close()
		if _, isErr, text := callJSON[loadAnswer](t, cs, "load_skill", map[string]any{"name": "pdf"}); !isErr || !strings.Contains(text, "unreachable") {
			t.Errorf("load_skill with the server down: got %s, want an unreachable error", text)
		}
	})
}

// TestStdioClientRoots: with no folder configured, the skills of the folders
// the client declares as roots are served; configured folders ignore them.
func TestStdioClientRoots(t *testing.T) {
	project := t.TempDir()
	skillDir := filepath.Join(project, ".claude", "skills", "from-root")
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	skillMD := "---\nname: from-root\ndescription: A skill of the client's root.\n---\n\n# From root\n"
	if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte(skillMD), 0o644); err != nil {
		t.Fatal(err)
	}
	rootURI := (&url.URL{Scheme: "file", Path: filepath.ToSlash(project)}).String()

	listNames := func(t *testing.T, cs *mcp.ClientSession) string {
		t.Helper()
		list, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil)
		if isErr {
			t.Fatalf("list_skills: %s", text)
		}
		var names []string
		for _, n := range flatten(list.Skills) {
			names = append(names, n.Name)
		}
		return strings.Join(names, ",")
	}
	connect := func(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
		t.Helper()
		client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
		client.AddRoots(&mcp.Root{URI: rootURI}) //lint:ignore SA1019 hosts still declare roots
		// Roots come with the initialize handshake (protocols before 2026-07-28).
		cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connecting to skills-mcp: %v", err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}

	t.Run("default discovery", func(t *testing.T) {
		var stderr syncBuffer
		cmd := command(t, []string{"LOG_LEVEL=debug"})
		cmd.Stderr = &stderr
		cs := connect(t, cmd)
		// The roots are asked for after initialize, and the catalog reloaded.
		deadline := time.Now().Add(10 * time.Second)
		got := listNames(t, cs)
		for got != "from-root" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			got = listNames(t, cs)
		}
		if got != "from-root" {
			t.Errorf("list_skills: got %q, want from-root; stderr:\n%s", got, stderr.String())
		}
	})

	t.Run("configured folder", func(t *testing.T) {
		var stderr syncBuffer
		cmd := command(t, []string{"LOG_LEVEL=debug"}, "--skills-dir", writeSkills(t))
		cmd.Stderr = &stderr
		cs := connect(t, cmd)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(stderr.String(), "ignoring the client's roots") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got := listNames(t, cs); strings.Contains(got, "from-root") {
			t.Errorf("list_skills with --skills-dir: got %q, want the client's roots ignored; stderr:\n%s", got, stderr.String())
		}
		if !strings.Contains(stderr.String(), "ignoring the client's roots") {
			t.Errorf("stderr lacks the debug line about ignored roots:\n%s", stderr.String())
		}
	})
}

// waitHealthy waits until GET base/readyz answers 200: the catalog is
// loaded (a first clone of a git source loads in the background). The
// deadline only detects a hang.
func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/readyz never answered 200: %v", base, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestProbesFollowTheService: /readyz says SERVING only when the skills
// service is ready; while it loads (its first clone) it is alive (/healthz
// 200) and not ready (/readyz 503 NOT_SERVING); unreachable, both are 503.
func TestProbesFollowTheService(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(gs, hs)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	get := func(h http.HandlerFunc) (int, string) {
		rec := httptest.NewRecorder()
		h(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/", nil))
		return rec.Code, strings.TrimSpace(rec.Body.String())
	}
	live, ready := healthz.Live(conn, 0, nil), healthz.Ready(conn, 0, nil)
	hs.SetServingStatus(healthz.LivenessService, healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	if code, body := get(ready); code != http.StatusServiceUnavailable || body != `{"status":"NOT_SERVING"}` {
		t.Errorf("readyz while loading: %d %s", code, body)
	}
	if code, body := get(live); code != http.StatusOK || body != `{"status":"SERVING"}` {
		t.Errorf("healthz while loading: %d %s", code, body)
	}
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	if code, body := get(ready); code != http.StatusOK || body != `{"status":"SERVING"}` {
		t.Errorf("readyz serving: %d %s", code, body)
	}
	gs.Stop()
	for name, h := range map[string]http.HandlerFunc{"healthz": live, "readyz": ready} {
		if code, body := get(h); code != http.StatusServiceUnavailable || body != `{"status":"UNREACHABLE"}` {
			t.Errorf("%s stopped: %d %s", name, code, body)
		}
	}
}

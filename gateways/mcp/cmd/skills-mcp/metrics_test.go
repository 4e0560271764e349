package main

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestMetrics: skills-mcp --http --metrics serves /metrics with the HTTP
// requests by route and code, and the embedded service's gRPC calls.
func TestMetrics(t *testing.T) {
	cmd := command(t, nil, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	urlRE := regexp.MustCompile(`url=(http://\S+/mcp)`)
	metricsRE := regexp.MustCompile(`serving metrics" addr=(\S+)`)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var endpoint, metricsURL string
	var logs []string
	timeout := time.After(30 * time.Second)
	for endpoint == "" || metricsURL == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("skills-mcp exited before serving:\n%s", strings.Join(logs, "\n"))
			}
			logs = append(logs, line)
			if m := urlRE.FindStringSubmatch(line); m != nil {
				endpoint = m[1]
			}
			if m := metricsRE.FindStringSubmatch(line); m != nil {
				metricsURL = "http://" + m[1] + "/metrics"
			}
		case <-timeout:
			t.Fatalf("skills-mcp did not announce its URLs:\n%s", strings.Join(logs, "\n"))
		}
	}
	go func() { // keep draining stderr
		for range lines {
		}
	}()
	posts := func(m skillstest.Metrics) float64 {
		v, _ := m.Value("http_requests_total", "surface", "mcp", "route", "/mcp", "method", "POST", "code", "200")
		return v
	}
	handled := func(m skillstest.Metrics) float64 {
		v, _ := m.Value("grpc_server_handled_total", "grpc_code", "OK")
		return v
	}
	before := skillstest.Scrape(t, metricsURL)
	client := mcp.NewClient(&mcp.Implementation{Name: "skills-mcp-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	defer cs.Close()
	const n = 3
	for range n {
		if _, isErr, text := callJSON[struct{ Skills []skillNode }](t, cs, "list_skills", nil); isErr {
			t.Fatalf("list_skills: %s", text)
		}
	}
	// A request is counted when its handler returns, which may come after
	// the client has read its answer: scrape until all are counted.
	timed := func(m skillstest.Metrics) float64 {
		v, _ := m.Value("http_request_duration_seconds_count", "surface", "mcp", "route", "/mcp")
		return v
	}
	after := skillstest.Scrape(t, metricsURL)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) &&
		(posts(after)-posts(before) < n || handled(after)-handled(before) < n || timed(after) < n); {
		time.Sleep(20 * time.Millisecond)
		after = skillstest.Scrape(t, metricsURL)
	}
	if got := posts(after) - posts(before); got < n {
		t.Errorf("http_requests_total{surface=mcp,route=/mcp,POST,200} went up by %v, want at least %d\n%s", got, n, after.Text)
	}
	if got := handled(after) - handled(before); got < n {
		t.Errorf("embedded grpc_server_handled_total{grpc_code=OK} went up by %v, want at least %d", got, n)
	}
	if v, ok := after.Value("http_request_duration_seconds_count", "surface", "mcp", "route", "/mcp"); !ok || v < n {
		t.Errorf("http_request_duration_seconds_count{mcp,/mcp} = %v (found %v), want >= %d", v, ok, n)
	}
	for _, name := range []string{"skillsd_catalog_skills", "process_start_time_seconds"} {
		if _, ok := after.Value(name); !ok {
			t.Errorf("no %s on /metrics", name)
		}
	}
}

// TestMetricsArgs: --metrics needs --http and a host:port, and is refused
// on an address that is not loopback with no authentication.
func TestMetricsArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"without --http", []string{"--metrics", "127.0.0.1:0"}, 2, "--metrics needs --http"},
		{"not host:port", []string{"--http", "127.0.0.1:0", "--metrics", "nonsense"}, 2, `--metrics "nonsense"`},
		{"not loopback", []string{"--skills-dir", writeSkills(t), "--http", "127.0.0.1:0", "--metrics", "0.0.0.0:0"}, 1, "not loopback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := map[string]string{"SKILLSD_HOME": t.TempDir()}
			code := run(t.Context(), tc.args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("run(%q): exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

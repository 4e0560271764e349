package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// waitMetricsAddr waits for the "serving metrics" line and returns its address.
func waitMetricsAddr(t *testing.T, stderr func() string) string {
	t.Helper()
	re := regexp.MustCompile(`serving metrics" addr=(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(stderr()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics address on stderr:\n%s", stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetrics: --metrics serves /metrics with the HTTP requests by route
// and code, and the embedded service's gRPC calls.
func TestMetrics(t *testing.T) {
	base, stderr := startIn(t, t.TempDir(), nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	url := "http://" + waitMetricsAddr(t, stderr) + "/metrics"
	requests := func(m skillstest.Metrics, route, code string) float64 {
		v, _ := m.Value("http_requests_total", "surface", "rest", "route", route, "method", "GET", "code", code)
		return v
	}
	before := skillstest.Scrape(t, url)
	const n = 3
	for range n {
		if status, body := getJSON(t, base+"/v1/skills/pdf"); status != http.StatusOK {
			t.Fatalf("GET /v1/skills/pdf: %d %v", status, body)
		}
	}
	if status, _ := getJSON(t, base+"/v1/skills/nope"); status != http.StatusNotFound {
		t.Fatalf("GET /v1/skills/nope: %d, want 404", status)
	}
	after := skillstest.Scrape(t, url)
	if got := requests(after, "/v1/skills/{skill_path}", "200") - requests(before, "/v1/skills/{skill_path}", "200"); got != n {
		t.Errorf("http_requests_total{/v1/skills/{skill_path},200} went up by %v, want %d\n%s", got, n, after.Text)
	}
	if got := requests(after, "/v1/skills/{skill_path}", "404") - requests(before, "/v1/skills/{skill_path}", "404"); got != 1 {
		t.Errorf("http_requests_total{/v1/skills/{skill_path},404} went up by %v, want 1", got)
	}
	if v, ok := after.Value("http_request_duration_seconds_count", "route", "/v1/skills/{skill_path}"); !ok || v < n+1 {
		t.Errorf("http_request_duration_seconds_count = %v (found %v), want >= %d", v, ok, n+1)
	}
	handled := func(m skillstest.Metrics) float64 {
		v, _ := m.Value("grpc_server_handled_total", "grpc_method", "GetSkill", "grpc_code", "OK")
		return v
	}
	if got := handled(after) - handled(before); got != n {
		t.Errorf("embedded grpc_server_handled_total{GetSkill,OK} went up by %v, want %d", got, n)
	}
	if strings.Contains(after.Text, "/v1/skills/pdf") {
		t.Error("a raw path is a label value; want the route's pattern")
	}
	for _, name := range []string{"skillsd_catalog_skills", "go_goroutines"} {
		if _, ok := after.Value(name); !ok {
			t.Errorf("no %s on /metrics", name)
		}
	}
}

// TestMetricsOffAndBad: no --metrics, no metrics listener; a bad one is a
// usage error naming the flag.
func TestMetricsOffAndBad(t *testing.T) {
	_, stderr := startIn(t, t.TempDir(), nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0")
	if strings.Contains(stderr(), "serving metrics") {
		t.Errorf("metrics served without --metrics:\n%s", stderr())
	}
	out, code := runBinary(t, nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--metrics", "nonsense")
	if code != 2 || !strings.Contains(out, "--metrics") {
		t.Errorf("--metrics nonsense: exit %d, stderr:\n%s\nwant exit 2 naming --metrics", code, out)
	}
	out, code = runBinary(t, nil, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0", "--metrics", "0.0.0.0:0")
	if code == 0 || !strings.Contains(out, "--metrics") || !strings.Contains(out, "not loopback") {
		t.Errorf("--metrics 0.0.0.0:0 with no auth: exit %d, stderr:\n%s\nwant a refusal naming --metrics", code, out)
	}
}

package main

import (
	"errors"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// metricsAddr waits for the "serving metrics" line of stderr and returns
// its address.
func metricsAddr(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`serving metrics" addr=(\S+)`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics address on stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetrics: --metrics serves /metrics, where calls are counted by method
// and code and timed, and the catalog's gauges are read.
func TestMetrics(t *testing.T) {
	conn, stderr := serveRun(t, nil, "--skills-dir", "../../../../examples/skills", "--metrics", "127.0.0.1:0")
	url := "http://" + metricsAddr(t, stderr) + "/metrics"
	handled := func(m skillstest.Metrics, service, method, code string) float64 {
		v, _ := m.Value("grpc_server_handled_total", "grpc_service", "skills.v1."+service, "grpc_method", method, "grpc_code", code)
		return v
	}
	before := skillstest.Scrape(t, url)
	const n = 3
	c, r := skillsv1.NewCatalogServiceClient(conn), skillsv1.NewRoutingServiceClient(conn)
	for range n {
		if _, err := r.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "docker"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "no/such/skill"}); err == nil {
		t.Fatal("GetSkill of a missing skill: got no error")
	}
	after := skillstest.Scrape(t, url)
	if got := handled(after, "RoutingService", "SearchSkills", "OK") - handled(before, "RoutingService", "SearchSkills", "OK"); got != n {
		t.Errorf("grpc_server_handled_total{SearchSkills,OK} went up by %v, want %d\n%s", got, n, after.Text)
	}
	if got := handled(after, "CatalogService", "GetSkill", "NotFound") - handled(before, "CatalogService", "GetSkill", "NotFound"); got != 1 {
		t.Errorf("grpc_server_handled_total{GetSkill,NotFound} went up by %v, want 1", got)
	}
	if v, ok := after.Value("grpc_server_handling_seconds_count", "grpc_method", "SearchSkills"); !ok || v < n {
		t.Errorf("grpc_server_handling_seconds_count{SearchSkills} = %v (found %v), want >= %d", v, ok, n)
	}
	if id := regexp.MustCompile(`skillsd_catalog_info\{catalog_id="sha256:[0-9a-f]+"`).FindString(after.Text); id == "" {
		t.Errorf("skillsd_catalog_info has no catalog_id label:\n%s", after.Text)
	}
	if v, ok := after.Value("skillsd_catalog_skills", "state", "served"); !ok || v < 1 {
		t.Errorf("skillsd_catalog_skills{state=served} = %v (found %v), want >= 1", v, ok)
	}
	for _, want := range []struct{ name, k, v string }{
		{"skillsd_catalog_diagnostics", "severity", "error"},
		{"skillsd_catalog_diagnostics", "severity", "warning"},
		{"skillsd_catalog_info", "version", version},
		{"skillsd_source_info", "kind", "local"},
		{"skillsd_source_last_sync_timestamp_seconds", "", ""},
		{"skillsd_script_runs_total", "outcome", "timed_out"},
		{"skillsd_usage_events_dropped_total", "", ""},
		{"skillsd_catalog_quarantined_skills", "", ""},
		{"go_goroutines", "", ""},
		{"process_open_fds", "", ""},
	} {
		var labels []string
		if want.k != "" {
			labels = []string{want.k, want.v}
		}
		if _, ok := after.Value(want.name, labels...); !ok {
			t.Errorf("no %s%v on /metrics", want.name, labels)
		}
	}
}

// TestMetricsOffByDefault: without --metrics, nothing but gRPC listens.
func TestMetricsOffByDefault(t *testing.T) {
	_, stderr := serveRun(t, nil, "--skills-dir", "../../../../examples/skills")
	if strings.Contains(stderr.String(), "serving metrics") {
		t.Errorf("metrics served without --metrics:\n%s", stderr.String())
	}
}

// TestMetricsBadAddress: a bad --metrics is a start-up error naming it.
func TestMetricsBadAddress(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		usage bool
	}{{"nonsense", true}, {"256.0.0.1:9090", false}} {
		err := run(t.Context(), []string{"--skills-dir", "../../../../examples/skills", "--grpc", "127.0.0.1:0", "--metrics", tc.addr},
			func(k string) string { return map[string]string{"SKILLSD_HOME": t.TempDir()}[k] }, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), "--metrics") {
			t.Errorf("--metrics %s: got %v, want an error naming --metrics", tc.addr, err)
		}
		var u usageError
		if got := err != nil && errors.As(err, &u); got != tc.usage {
			t.Errorf("--metrics %s: usage error %v, want %v", tc.addr, got, tc.usage)
		}
	}
	// Not loopback with no authentication asked for: refused.
	lis, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skip(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	err = run(t.Context(), []string{"--skills-dir", "../../../../examples/skills", "--grpc", "127.0.0.1:0", "--metrics", addr},
		func(k string) string { return map[string]string{"SKILLSD_HOME": t.TempDir()}[k] }, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "--metrics") || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("--metrics %s: got %v, want a refusal naming --metrics", addr, err)
	}
}

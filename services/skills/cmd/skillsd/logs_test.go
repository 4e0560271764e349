package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveRun runs the command with args on a free port until the test ends and
// returns a connection to it and its stderr.
func serveRun(t *testing.T, env map[string]string, args ...string) (*grpc.ClientConn, *syncBuffer) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	vars := map[string]string{"SKILLSD_HOME": t.TempDir()}
	for k, v := range env {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append(args, "--grpc", addr), func(k string) string { return vars[k] }, stderr)
	}()
	t.Cleanup(func() { cancel(); <-done })
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return conn, stderr
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestJSONLogsAndAccessLog: --log-format json (and LOG_FORMAT, and
// log.format) turn every line into a JSON object, and each call gets one
// info line with its method, code, duration and request id.
func TestJSONLogsAndAccessLog(t *testing.T) {
	conn, stderr := serveRun(t, map[string]string{"LOG_FORMAT": "json"}, "--skills-dir", "../../../../examples/skills")
	ctx := metadata.AppendToOutgoingContext(t.Context(), "x-request-id", "req-42")
	if _, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "no-such-skill"}); err == nil {
		t.Fatal("GetSkill of a missing skill answered")
	}
	var access map[string]any
	deadline := time.Now().Add(5 * time.Second)
	for access == nil && time.Now().Before(deadline) {
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			if rec["msg"] == "access" && rec["method"] == "/skills.v1.CatalogService/GetSkill" {
				access = rec
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if access == nil {
		t.Fatalf("no access line for GetSkill:\n%s", stderr.String())
	}
	if access["level"] != "INFO" || access["code"] != "NotFound" || access["request_id"] != "req-42" || access["duration"] == nil {
		t.Errorf("access line %v, want level INFO, code NotFound, request_id req-42 and a duration", access)
	}
}

// TestEmptyCatalogWarnsOnStderr: the command says on stderr why the catalog
// is empty, and --require-skills makes it an error.
func TestEmptyCatalogWarnsOnStderr(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	_, stderr := serveRun(t, nil, "--skills-dir", missing)
	if out := stderr.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "does not exist") || !strings.Contains(out, missing) {
		t.Errorf("stderr does not warn about the missing folder:\n%s", out)
	}
	var buf syncBuffer
	err := run(t.Context(), []string{"--skills-dir", missing, "--require-skills", "--grpc", "127.0.0.1:0"}, func(k string) string {
		return map[string]string{"SKILLSD_HOME": t.TempDir()}[k]
	}, &buf)
	if err == nil || !strings.Contains(err.Error(), missing+" does not exist") {
		t.Errorf("--require-skills with a missing folder: %v", err)
	}
}

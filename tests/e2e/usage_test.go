package e2e

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// TestUsageSurvivesKill is the analytics issue's "done when", with the real
// binaries: skillsd records usage while its collector is down, is killed
// with SIGKILL before it could publish, and is started again on the same
// SKILLSD_HOME; when the collector (skills-rest in front of a service with
// analytics on) comes up, every event arrives, and the collector's
// statistics match the server's.
func TestUsageSurvivesKill(t *testing.T) {
	skipShort(t)
	catalog := filepath.Join(repoRoot(t), "examples", "skills")
	collectorAddr := freeAddr(t)
	home := t.TempDir()
	env := []string{
		"SKILLSD_HOME=" + home,
		"ANALYTICS_ENDPOINT=http://" + collectorAddr + "/v1/usage/events",
		"ANALYTICS_FLUSH_SECONDS=1",
		"USER=e2e",
	}
	start := func() (*process, skillsv1.UsageServiceClient, *grpc.ClientConn) {
		p, addr := startOnFreePortEnv(t, env, binary(t, "skillsd"),
			func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", catalog} }, grpcReady)
		conn := dialGRPC(t, addr)
		return p, skillsv1.NewUsageServiceClient(conn), conn
	}

	p, usage, conn := start()
	routing := skillsv1.NewRoutingServiceClient(conn)
	for _, q := range []string{"write a go http service", "bake sourdough bread"} {
		if _, err := routing.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: q}); err != nil {
			t.Fatal(err)
		}
		if _, err := routing.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := usage.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "backend/go-service", Useful: true, Comment: "before the kill"}); err != nil || !r.GetRecorded() {
		t.Fatalf("ReportUsage = %v, %v", r, err)
	}
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, no flush
		t.Fatal(err)
	}
	<-p.exited
	segs, _ := filepath.Glob(filepath.Join(home, "analytics", "spool", "*.jsonl"))
	if len(segs) == 0 {
		t.Fatal("no spool segment left by the killed server")
	}

	_, usage, _ = start()
	if r, err := usage.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "backend/go-service", Useful: false, Comment: "after the restart"}); err != nil || !r.GetRecorded() {
		t.Fatalf("ReportUsage after restart = %v, %v", r, err)
	}
	const total = 4 + 1 + 1
	local, err := usage.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if local.GetTotalEvents() != total {
		t.Fatalf("server: total_events = %d, want %d", local.GetTotalEvents(), total)
	}

	// The collector comes up at the address the server posts to.
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("analytics:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startEnv(t, []string{"SKILLSD_HOME=" + t.TempDir()}, binary(t, "skills-rest"),
		"--skills-dir", catalog, "--config", cfg, "--http", collectorAddr)
	if err := c.waitReady(t, func(ctx context.Context) error { return httpReady("/readyz")(ctx, collectorAddr) }); err != nil {
		t.Skipf("the collector could not take its address: %v", err)
	}

	type stats struct {
		Skills []struct {
			SkillPath      string   `json:"skill_path"`
			Served         string   `json:"served"`
			Useful         string   `json:"useful"`
			NotUseful      string   `json:"not_useful"`
			RecentComments []string `json:"recent_comments"`
		} `json:"skills"`
		TopNoMatch []struct {
			Context string `json:"context"`
			Count   string `json:"count"`
		} `json:"top_no_match"`
		TotalEvents string `json:"total_events"`
	}
	var remote stats
	deadline := time.Now().Add(30 * time.Second)
	for {
		getJSON(t, "http://"+collectorAddr+"/v1/usage/stats", http.StatusOK, &remote)
		if remote.TotalEvents == strconv.Itoa(total) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if remote.TotalEvents != strconv.Itoa(total) {
		t.Fatalf("collector: total_events = %s, want %d", remote.TotalEvents, total)
	}
	if len(remote.Skills) != len(local.GetSkills()) {
		t.Fatalf("collector: %d skills, server: %d", len(remote.Skills), len(local.GetSkills()))
	}
	for i, s := range local.GetSkills() {
		r := remote.Skills[i]
		if r.SkillPath != s.GetSkillPath() || r.Served != strconv.FormatInt(s.GetServed(), 10) ||
			r.Useful != strconv.FormatInt(s.GetUseful(), 10) || r.NotUseful != strconv.FormatInt(s.GetNotUseful(), 10) {
			t.Errorf("skill %d: collector %+v, server %v", i, r, s)
		}
	}
	if got := remote.Skills[0].RecentComments; len(got) != 2 || got[0] != "after the restart" || got[1] != "before the kill" {
		t.Errorf("collector: recent comments %v", got)
	}
	if len(remote.TopNoMatch) != 1 || remote.TopNoMatch[0].Context != "bake sourdough bread" || remote.TopNoMatch[0].Count != "2" {
		t.Errorf("collector: top no-match %+v, want the match and the search for bread", remote.TopNoMatch)
	}
}

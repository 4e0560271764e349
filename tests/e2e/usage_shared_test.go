package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// storeOpenWithin bounds how long a second skills-mcp on the same home may
// take to be ready: the store is shared (SQLite in WAL mode, one spool
// segment per process under a file lock), never waited for.
const storeOpenWithin = 10 * time.Second

// TestUsageStoreSharedByProcesses: the local usage store is on by default,
// under the default state folder (~/.skillsd), and several skills-mcp
// processes share it, as one per editor window would: the second starts as
// quickly as the first and neither fails; both record feedback (recorded:
// true) while the other writes too; and a skillsd started on the same home
// (a third process on the store) answers GetUsageStats with the events of
// both.
func TestUsageStoreSharedByProcesses(t *testing.T) {
	skipShort(t)
	tree := copyTree(t, filepath.Join(repoRoot(t), "services", "skills", "internal", "catalog", "testdata", "seed000-tree"))
	home := t.TempDir()
	env := []string{"HOME=" + home, "USER=e2e"} // no SKILLSD_HOME, no analytics setting: the defaults
	mcpBin := binary(t, "skills-mcp")

	type instance struct {
		name string
		p    *process
		d    *mcpDriver
	}
	var insts []instance
	for _, name := range []string{"A", "B"} {
		began := time.Now()
		p, addr := startOnFreePortEnv(t, env, mcpBin, func(addr string) []string {
			return []string{"--skills-dir", tree, "--http", addr}
		}, httpReady("/readyz"))
		took := time.Since(began)
		t.Logf("skills-mcp %s ready %v after its start", name, took.Round(time.Millisecond))
		if took > storeOpenWithin {
			t.Errorf("skills-mcp %s took %v to be ready on a home another process uses; want under %v", name, took, storeOpenWithin)
		}
		insts = append(insts, instance{name: name, p: p, d: startDriver(t, "--url", "http://"+addr+"/mcp")})
	}
	if _, err := os.Stat(filepath.Join(home, ".skillsd", "analytics", "usage.db")); err != nil {
		t.Fatalf("no local store in the default state folder: %v", err)
	}

	// Both write, interleaved: feedback, and matches (skill_served).
	const rounds = 20
	for i := range rounds {
		for _, in := range insts {
			c := in.d.call("report_usage", map[string]any{"skill_path": "ui/react/auth", "useful": i%2 == 0, "comment": fmt.Sprintf("from %s #%d", in.name, i)})
			if c.IsError || c.StructuredContent["recorded"] != true {
				t.Fatalf("skills-mcp %s: report_usage #%d: %s", in.name, i, c.Text)
			}
			if c := in.d.call("get_skill", map[string]any{"context": "react auth component provider"}); c.IsError {
				t.Fatalf("skills-mcp %s: get_skill: %s", in.name, c.Text)
			}
		}
	}
	for _, in := range insts {
		if log := in.p.stderr.String(); strings.Contains(log, "usage analytics off") || strings.Contains(log, "locked") {
			t.Errorf("skills-mcp %s: the store was not usable:\n%s", in.name, tail(log, 2000))
		}
	}

	// A third process on the same home answers with the events of both.
	_, grpcAddr := startOnFreePortEnv(t, env, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", tree} }, grpcReady)
	conn := dialGRPC(t, grpcAddr)
	usage := skillsv1.NewUsageServiceClient(conn)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := usage.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{SkillPath: "ui/react/auth"})
		if err != nil {
			t.Fatalf("GetUsageStats on the shared home: %v", err)
		}
		var got *skillsv1.SkillUsage
		if len(st.GetSkills()) == 1 {
			got = st.GetSkills()[0]
		}
		if got != nil && got.GetUseful()+got.GetNotUseful() == 2*rounds && got.GetServed() == 2*rounds {
			if got.GetUseful() != rounds || got.GetNotUseful() != rounds {
				t.Errorf("useful %d, not useful %d; want %d each", got.GetUseful(), got.GetNotUseful(), rounds)
			}
			var fromA, fromB bool
			for _, c := range got.GetRecentComments() {
				fromA = fromA || strings.HasPrefix(c, "from A")
				fromB = fromB || strings.HasPrefix(c, "from B")
			}
			if !slices.Contains(got.GetRecentComments(), fmt.Sprintf("from B #%d", rounds-1)) || !fromA && !fromB {
				t.Errorf("recent comments %v; want the last ones written", got.GetRecentComments())
			}
			t.Logf("skillsd on the shared home: %d served, %d useful, %d not useful", got.GetServed(), got.GetUseful(), got.GetNotUseful())
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GetUsageStats 20 s after the last event: %v; want %d feedback and %d served from both processes", st, 2*rounds, 2*rounds)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

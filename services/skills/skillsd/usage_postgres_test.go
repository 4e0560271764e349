package skillsd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestSharedPostgresStore: two servers (replicas, each with its own
// SKILLSD_HOME) given one SKILLSD_DATABASE_URL record into the same
// PostgreSQL store, and each answers GetUsageStats for both.
func TestSharedPostgresStore(t *testing.T) {
	url := pgtest.Database(t)
	replica := func(id string) skillsv1.UsageServiceClient {
		home := t.TempDir()
		cfg := filepath.Join(home, "config.yaml")
		if err := os.WriteFile(cfg, []byte("analytics:\n  server_id: "+id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{"SKILLSD_DATABASE_URL": url, "SKILLSD_HOME": home}
		conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, ConfigFile: cfg, Getenv: env(vars)})
		if _, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "backend/go-service"}); err != nil {
			t.Fatal(err)
		}
		if _, err := skillsv1.NewRoutingServiceClient(conn).SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "bake sourdough bread"}); err != nil {
			t.Fatal(err)
		}
		return skillsv1.NewUsageServiceClient(conn)
	}
	a, b := replica("replica-a"), replica("replica-b")
	// Each replica's GetUsageStats first stores its own queued events.
	for _, c := range []skillsv1.UsageServiceClient{a, b, a} {
		if _, err := c.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]skillsv1.UsageServiceClient{"a": a, "b": b} {
		st, err := c.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{})
		if err != nil {
			t.Fatalf("replica %s: %v", name, err)
		}
		if n := st.GetTotalEvents(); n != 4 || len(st.GetTopNoMatch()) != 1 || st.GetTopNoMatch()[0].GetCount() != 2 {
			t.Errorf("replica %s: total_events = %d, top no-match %v; want both replicas' 4 events, the miss twice", name, n, st.GetTopNoMatch())
		}
	}
	rows, err := pgtest.Open(t, url).QueryContext(t.Context(), `SELECT server_id, COUNT(*) FROM usage_events GROUP BY server_id ORDER BY server_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s=%d", id, n))
	}
	if strings.Join(got, " ") != "replica-a=2 replica-b=2" {
		t.Errorf("rows by server_id = %v; want replica-a=2 replica-b=2", got)
	}
}

// TestPostgresStoreRefused: a start pointed at a database it may not use
// stops with one message naming analytics.store.
func TestPostgresStoreRefused(t *testing.T) {
	url := pgtest.Database(t)
	missing := pgtest.WithDatabase(t, url, pgtest.DatabaseName(t, url)+"_gone")
	vars := map[string]string{"SKILLSD_DATABASE_URL": missing}
	_, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, Cwd: t.TempDir(), Home: t.TempDir(), Getenv: env(vars)})
	if err == nil || !strings.Contains(err.Error(), "analytics.store") || !strings.Contains(err.Error(), "_gone") {
		t.Fatalf("New = %v; want an error naming analytics.store and the database", err)
	}
}

// TestPostgresStoreDownAtStart: a server whose usage database does not
// answer at start serves skills all the same; GetUsageStats answers
// UNAVAILABLE until the database is back, then counts what was recorded.
func TestPostgresStoreDownAtStart(t *testing.T) {
	url := pgtest.Database(t)
	proxy := pgtest.NewProxy(t, url)
	proxy.Close()
	vars := map[string]string{"SKILLSD_DATABASE_URL": proxy.URL(url), "SKILLSD_HOME": t.TempDir()}
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, Getenv: env(vars)})
	if _, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "backend/go-service"}); err != nil {
		t.Fatalf("GetSkill with the usage database down: %v", err)
	}
	usage := skillsv1.NewUsageServiceClient(conn)
	_, err := usage.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{})
	if status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "the usage database cannot be reached") {
		t.Fatalf("GetUsageStats with the database down = %v; want UNAVAILABLE saying the usage database cannot be reached", err)
	}
	proxy.Reopen()
	// The load was kept in memory and in the spool; the feeder stores it
	// with the next call that reaches the store (the store tries the
	// database again a second after a failed attempt at most).
	var st *skillsv1.GetUsageStatsResponse
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st, err = usage.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{}); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("GetUsageStats once the database is back: %v", err)
	}
	if st.GetTotalEvents() != 1 {
		t.Errorf("total_events = %d, want the 1 load", st.GetTotalEvents())
	}
}

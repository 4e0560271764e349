package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// feedbackIDs lists the comment ids (first word) of the feedback events db
// holds, sorted, duplicates kept (there must be none); nil before skillsd
// made its schema.
func feedbackIDs(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "SELECT comment FROM usage_events WHERE type = 'skill_feedback'")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var comment string
		if err := rows.Scan(&comment); err != nil {
			t.Fatal(err)
		}
		out = append(out, commentID(comment))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestFaultAnalyticsDatabaseDown: the PostgreSQL usage store (a database of
// the test's own) goes away behind a proxy the test controls, (1) refusing
// connections and cutting those open (a database that is down), (2)
// accepting connections and answering nothing (a network that drops
// packets). While it is away: skills are served, every feedback is
// recorded (spooled), GetUsageStats answers UNAVAILABLE; SIGTERM stops
// skillsd with status 0 within the grace period, and a restart serves at
// once. Once the database is back, every feedback given while it was away,
// before and after the restart, is in the database exactly once, and
// GetUsageStats counts them all. Before, with the database hanging,
// GetUsageStats hung until its caller gave up (DEADLINE_EXCEEDED) and
// SIGTERM took over 10 s (the store writes of the stop waited 30 s each).
func TestFaultAnalyticsDatabaseDown(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name string
		mode proxyMode
	}{{"refused", proxyDown}, {"hanging", proxyStall}} {
		t.Run(tc.name, func(t *testing.T) {
			dbURL := skillstest.PostgresDatabase(t)
			db := skillstest.OpenPostgres(t, dbURL)
			u, err := url.Parse(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			proxy := startFaultProxy(t, u.Host)
			u.Host = proxy.Addr()
			q := u.Query()
			q.Set("connect_timeout", "3")
			u.RawQuery = q.Encode()

			dir := t.TempDir()
			writeSkillFile(t, dir, "alpha", skillstest.SkillMD("alpha", "The skill that gets feedback."))
			// The default analytics.flush_interval_seconds (30): what the
			// database missed must be stored within seconds of its return
			// all the same.
			env := []string{"SKILLSD_HOME=" + t.TempDir(), "SKILLSD_DATABASE_URL=" + u.String()}
			var (
				proc    *process
				cat     skillsv1.CatalogServiceClient
				routing skillsv1.RoutingServiceClient
				usage   skillsv1.UsageServiceClient
			)
			start := func() {
				t.Helper()
				var addr string
				proc, addr = startOnFreePortEnv(t, env, binary(t, "skillsd"),
					func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} }, grpcReady)
				conn := dialGRPC(t, addr)
				cat, routing, usage = skillsv1.NewCatalogServiceClient(conn), skillsv1.NewRoutingServiceClient(conn), skillsv1.NewUsageServiceClient(conn)
			}
			var given []string
			feedback := func(n int) {
				t.Helper()
				for range n {
					id := fmt.Sprintf("c-%04d", len(given))
					ctx, cancel := context.WithTimeout(t.Context(), answerWithin)
					resp, err := usage.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "alpha", Useful: true, Comment: id + " useful"})
					cancel()
					if err != nil || !resp.GetRecorded() {
						t.Fatalf("ReportUsage %s: %v %v, want it recorded", id, resp, err)
					}
					given = append(given, id)
				}
			}
			serving := func(when string) {
				t.Helper()
				ctx, cancel := context.WithTimeout(t.Context(), answerWithin)
				defer cancel()
				if _, err := cat.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "alpha"}); err != nil {
					t.Fatalf("GetSkill %s: %v", when, err)
				}
				if _, err := routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "feedback"}); err != nil {
					t.Fatalf("SearchSkills %s: %v", when, err)
				}
			}
			stored := func(what string) {
				t.Helper()
				waitFor(t, 15*time.Second, what, func() error {
					if got := feedbackIDs(t, db); !slices.Equal(got, given) {
						return fmt.Errorf("the database holds %d feedbacks, want the %d given, once each", len(got), len(given))
					}
					return nil
				})
			}

			start()
			feedback(5)
			stored("feedback stored while the database is up")

			proxy.setMode(tc.mode)
			serving("with the database away")
			feedback(10)
			serving("after feedback with the database away")
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			_, err = usage.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{})
			cancel()
			if status.Code(err) != codes.Unavailable {
				t.Errorf("GetUsageStats with the database away: %v, want UNAVAILABLE", err)
			}

			exitAfterSIGTERM(t, proc, 10*time.Second)
			start()
			serving("after a restart with the database away")
			feedback(5)

			proxy.setMode(proxyPass)
			stored("every feedback stored once the database is back")
			waitFor(t, 15*time.Second, "GetUsageStats counts every feedback", func() error {
				st, err := usage.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{})
				if err != nil {
					return err
				}
				for _, s := range st.GetSkills() {
					if s.GetSkillPath() == "alpha" && s.GetUseful() == int64(len(given)) {
						return nil
					}
				}
				return fmt.Errorf("no count of %d useful feedbacks on alpha in %v", len(given), st.GetSkills())
			})
		})
	}
}

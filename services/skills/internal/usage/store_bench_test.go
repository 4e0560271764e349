package usage

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
)

// BenchmarkStoreStats measures a Stats call (what GetUsageStats asks of the
// store) for a 30-day window and for a 1-day window, on each store holding
// SKILLSD_BENCH_STORE_EVENTS events (default 100,000; make bench-store sets
// 1,000,000), all inside the 30 days: the worst case for the window. The
// events follow a plausible mix (see benchEvents). Besides ns/op it reports
// the p50 and p90 in milliseconds, and the CPU time a call costs (this
// process, plus the PostgreSQL server process on Linux): on a shared, loaded
// machine a call's time is mostly waiting for a CPU, its CPU time is not.
// With SKILLSD_BENCH_STORE_RAW=1 it also times the same call answered from
// the events alone (rollups=off: every event of the window is read, as the
// store did before rollups; slow).
func BenchmarkStoreStats(b *testing.B) {
	n := 100_000
	if v := os.Getenv("SKILLSD_BENCH_STORE_EVENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("SKILLSD_BENCH_STORE_EVENTS=%q: want a positive number", v)
		}
	}
	// Not on a day boundary, so both partial days are read from events.
	now := time.Date(2026, 6, 15, 13, 37, 11, 0, time.UTC)
	events := benchEvents(rand.New(rand.NewPCG(1, 22)), n, now.Add(-30*24*time.Hour), now)
	kinds := []struct {
		name string
		open func(b *testing.B) Store
	}{
		{"sqlite", func(b *testing.B) Store {
			s, err := OpenSQLite(b.Context(), filepath.Join(b.TempDir(), "usage.db"), StoreOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"postgres", func(b *testing.B) Store {
			if err := pgtest.Check(b.Context()); err != nil {
				b.Skip(pgtest.SkipMessage(err))
			}
			// One connection: its server process is the one whose CPU time
			// is measured.
			s, err := OpenPostgres(b.Context(), pgtest.Database(b), StoreOptions{MaxConns: 1})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			s := k.open(b)
			defer s.Close()
			start := time.Now()
			const batch = 5000 // the most IngestEvents takes
			for i := 0; i < len(events); i += batch {
				if _, _, err := s.Ingest(b.Context(), events[i:min(i+batch, len(events))]); err != nil {
					b.Fatal(err)
				}
			}
			load := time.Since(start)
			// What autovacuum (PostgreSQL) and the optimize at open
			// (SQLite) do to data that arrives over 30 days rather than in
			// two minutes: planner statistics, and visibility.
			maintain := map[*dialect]string{postgresDialect: `VACUUM ANALYZE`, sqliteDialect: `PRAGMA optimize=0x10002`}
			if _, err := s.(*sqlStore).db.ExecContext(b.Context(), maintain[s.(*sqlStore).d]); err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: %d events stored in %s (%.0f events/s, batches of %d)", k.name, len(events), load.Round(time.Millisecond), float64(len(events))/load.Seconds(), batch)
			for _, w := range []struct {
				name   string
				window time.Duration
			}{{"30d", 30 * 24 * time.Hour}, {"1d", 24 * time.Hour}} {
				variants := []bool{true}
				if os.Getenv("SKILLSD_BENCH_STORE_RAW") == "1" {
					variants = append(variants, false)
				}
				for _, rollups := range variants {
					name := fmt.Sprintf("%s/rollups=%s", w.name, map[bool]string{true: "on", false: "off"}[rollups])
					b.Run(name, func(b *testing.B) {
						st := s.(*sqlStore)
						st.rawOnly = !rollups
						defer func() { st.rawOnly = false }()
						win := Window{Start: now.Add(-w.window), End: now, TopN: 20, Comments: recentComments}
						var took []time.Duration
						var total int64
						pid := 0
						if st.d == postgresDialect {
							if err := st.db.QueryRowContext(b.Context(), `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
								b.Fatal(err)
							}
						}
						cpu0, cpuOK := cpuTime(pid)
						for b.Loop() {
							t0 := time.Now()
							got, err := s.Stats(b.Context(), win)
							if err != nil {
								b.Fatal(err)
							}
							took = append(took, time.Since(t0))
							total = got.TotalEvents
						}
						if cpu1, ok := cpuTime(pid); ok && cpuOK {
							b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(len(took)), "cpu-ms/op")
						}
						slices.Sort(took)
						ms := func(q float64) float64 {
							return float64(took[min(len(took)-1, int(q*float64(len(took))))].Microseconds()) / 1000
						}
						b.ReportMetric(ms(0.5), "p50-ms")
						b.ReportMetric(ms(0.9), "p90-ms")
						b.ReportMetric(float64(total), "events-in-window")
					})
				}
			}
		})
	}
}

// benchEvents makes n events between from and to: 45% skills served (500
// skills, a few much more than the rest), 25% searches (20,000 distinct
// queries, 15% finding nothing), 8% no-match (50,000 distinct contexts),
// 5% ambiguous (10,000 contexts, 2 or 3 candidates), 3% feedback (a third
// with a comment), the rest file reads, script runs and refreshes.
func benchEvents(rng *rand.Rand, n int, from, to time.Time) []Event {
	zipf := func(imax uint64) *rand.Zipf { return rand.NewZipf(rng, 1.1, 4, imax-1) }
	skills, queries, misses, ambig := zipf(500), zipf(20_000), zipf(50_000), zipf(10_000)
	skill := func() string {
		k := skills.Uint64()
		return fmt.Sprintf("team-%d/skill-%d", k%20, k)
	}
	span := to.Sub(from)
	out := make([]Event, n)
	for i := range out {
		at := from.Add(time.Duration(rng.Int64N(int64(span))))
		var p Payload
		switch r := rng.IntN(100); {
		case r < 45:
			p = Served(fmt.Sprintf("task %d", misses.Uint64()), skill(), 0.8, []string{"kw"}, false, "match")
		case r < 70:
			hits := 1 + rng.IntN(5)
			if rng.IntN(100) < 15 {
				hits = 0
			}
			p = Searched(fmt.Sprintf("query about topic %d", queries.Uint64()), hits)
		case r < 78:
			p = NoMatch(fmt.Sprintf("Please help me with unusual task number %d", misses.Uint64()))
		case r < 83:
			p = Ambiguous(fmt.Sprintf("ambiguous request %d", ambig.Uint64()), []string{skill(), skill(), skill()}[:2+rng.IntN(2)])
		case r < 86:
			comment := ""
			if rng.IntN(3) == 0 {
				comment = fmt.Sprintf("comment %d", rng.IntN(2000))
			}
			p = Feedback(skill(), rng.IntN(4) != 0, comment)
		case r < 94:
			p = AssetServed(skill(), "templates/a.md", "template", false, 1200)
		case r < 98:
			p = ScriptExecuted(skill(), "scripts/run.sh", "server", true, 0, 40*time.Millisecond, []string{"in"})
		default:
			p = Refreshed("git", true, "abc123", 3, 2)
		}
		out[i] = Event{ID: NewID(at), Type: p.Type, Timestamp: at, ServerID: fmt.Sprintf("replica-%d", rng.IntN(3)), Data: p.Data}
	}
	return out
}

package usage

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
)

// The store suite: every test here runs against both stores, SQLite in a
// temporary folder and PostgreSQL in a database of its own (pgtest).

// opener opens a handle on one store: called again, it opens another handle
// on the same database (a restart, or another replica).
type opener func(t *testing.T) Store

// stores runs f once per store kind, each with a fresh database.
func stores(t *testing.T, f func(t *testing.T, open opener)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "usage.db")
		f(t, func(t *testing.T) Store {
			t.Helper()
			s, err := OpenSQLite(t.Context(), path, StoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Database(t)
		f(t, func(t *testing.T) Store {
			t.Helper()
			s, err := OpenPostgres(t.Context(), url, StoreOptions{MaxConns: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	})
}

// day0 is a fixed UTC day for the store tests.
var day0 = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

func ev(id string, at time.Time, p Payload) Event {
	return Event{ID: id, Type: p.Type, Timestamp: at, ServerID: "dev-a", Data: p.Data}
}

// storeEvents is a known set of events over three days.
func storeEvents() []Event {
	h := time.Hour
	return []Event{
		ev("01", day0, Served("merge pdfs", "pdf", 0.9, []string{"pdf"}, false, "match")),
		ev("02", day0.Add(h), Served("", "pdf", 0, nil, false, "load")),
		ev("03", day0.Add(2*h), Served("word doc", "docx", 0.8, []string{"doc"}, false, "match")),
		ev("04", day0.Add(3*h), NoMatch("bake a cake")),
		ev("05", day0.Add(4*h), NoMatch("Bake  a cake")),
		ev("06", day0.Add(5*h), NoMatch("fly a kite")),
		ev("07", day0.Add(6*h), Searched("bake a cake", 0)),
		ev("08", day0.Add(7*h), Searched("pdf", 2)),
		ev("09", day0.Add(8*h), Ambiguous("office files", []string{"pdf", "docx"})),
		ev("10", day0.Add(24*h), Ambiguous("office files", []string{"docx", "xlsx"})),
		ev("11", day0.Add(25*h), Feedback("pdf", true, "spot on")),
		ev("12", day0.Add(26*h), Feedback("pdf", false, "")),
		ev("13", day0.Add(27*h), Feedback("pdf", false, "outdated API")),
		ev("14", day0.Add(48*h), Served("merge pdfs again", "pdf", 0.95, []string{"pdf"}, false, "match")),
		ev("15", day0.Add(49*h), AssetServed("pdf", "templates/a.md", "template", true, 120)),
		ev("16", day0.Add(50*h), ScriptExecuted("pdf", "scripts/x.sh", "server", true, 0, 3*time.Millisecond, []string{"in"})),
		ev("17", day0.Add(51*h), Refreshed("local", true, "", 0, 12)),
		// Outside the window below.
		ev("18", day0.Add(-24*h), Served("old", "pdf", 0.5, nil, false, "match")),
	}
}

func TestStoreAggregates(t *testing.T) {
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		events := storeEvents()
		acc, dup, err := s.Ingest(t.Context(), events)
		if err != nil || acc != len(events) || dup != 0 {
			t.Fatalf("Ingest = %d, %d, %v; want %d new", acc, dup, err, len(events))
		}
		// The same batch again (a publisher retrying) adds nothing.
		acc, dup, err = s.Ingest(t.Context(), events[:5])
		if err != nil || acc != 0 || dup != 5 {
			t.Fatalf("Ingest again = %d, %d, %v; want 5 duplicates", acc, dup, err)
		}
		// They survive a restart.
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = open(t)

		w := Window{Start: day0.Add(-time.Hour), End: day0.Add(72 * time.Hour), TopN: 10, Comments: 5}
		got, err := s.Stats(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		want := &Stats{
			Skills: []SkillStats{
				{SkillPath: "pdf", Served: 3, AmbiguousAppearances: 1, Useful: 1, NotUseful: 2,
					RecentComments: []string{"outdated API", "spot on"}, LastServed: day0.Add(48 * time.Hour)},
				{SkillPath: "docx", Served: 1, AmbiguousAppearances: 2, RecentComments: []string{}, LastServed: day0.Add(2 * time.Hour)},
				{SkillPath: "xlsx", AmbiguousAppearances: 1, RecentComments: []string{}},
			},
			TopNoMatch:   []ContextCount{{"Bake a cake", 3}, {"fly a kite", 1}},
			TopAmbiguous: []ContextCount{{"office files", 2}},
			ByDay: []DayCount{
				{Day: "2026-03-10", Served: 3, NoMatch: 3, Ambiguous: 1, Searches: 2},
				{Day: "2026-03-11", Ambiguous: 1, Feedback: 3},
				{Day: "2026-03-12", Served: 1},
			},
			TotalEvents: 17,
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("Stats mismatch (-want +got):\n%s", diff)
		}

		// One skill, a narrower window, and TopN.
		got, err = s.Stats(t.Context(), Window{Start: day0.Add(24 * time.Hour), End: day0.Add(72 * time.Hour), SkillPath: "pdf", TopN: 1, Comments: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Skills) != 1 || got.Skills[0].Served != 1 || got.Skills[0].NotUseful != 2 || !gocmp.Equal(got.Skills[0].RecentComments, []string{"outdated API"}) {
			t.Errorf("pdf over days 2-3 = %+v", got.Skills)
		}
		if len(got.TopAmbiguous) != 1 || got.TopAmbiguous[0].Count != 1 || got.TotalEvents != 8 {
			t.Errorf("top ambiguous %+v, total %d; want office files once, 8 events", got.TopAmbiguous, got.TotalEvents)
		}

		// An empty window answers empty lists, never nil.
		for _, w := range []Window{
			{Start: day0.Add(-100 * time.Hour), End: day0.Add(-99 * time.Hour), TopN: 5},
			{Start: day0, End: day0, TopN: 5},
		} {
			got, err = s.Stats(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			if got.Skills == nil || got.TopNoMatch == nil || got.TopAmbiguous == nil || got.ByDay == nil || got.TotalEvents != 0 {
				t.Errorf("empty window = %+v", got)
			}
		}
		// All of time (a window beyond what nanoseconds hold) is clamped.
		got, err = s.Stats(t.Context(), Window{Start: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), TopN: 5})
		if err != nil || got.TotalEvents != 18 {
			t.Errorf("all of time = %d events, %v; want 18", got.TotalEvents, err)
		}
	})
}

// TestStoreHostileData: data fields of the wrong type, NUL, invalid UTF-8,
// long texts and odd numbers are stored without failing the batch, and
// counted by the documented rules, alike in both stores.
func TestStoreHostileData(t *testing.T) {
	long := "long " + strings.Repeat("é", 3000) // 6005 bytes: longer than an index entry may be
	events := []Event{
		ev("h01", day0, Payload{TypeSkillServed, map[string]any{"skill_path": 42, "context": []any{"x"}}}),
		ev("h02", day0, Payload{TypeSkillServed, map[string]any{"skill_path": "a\x00b"}}),
		ev("h03", day0, Payload{TypeNoMatch, map[string]any{"context": "bad \xff\xfe utf8"}}),
		ev("h04", day0, Payload{TypeNoMatch, map[string]any{"context": long}}),
		ev("h05", day0, Payload{TypeNoMatch, map[string]any{"context": "LONG" + long[4:]}}),
		ev("h06", day0, Payload{TypeAmbiguous, map[string]any{"context": "both", "candidates": []any{"p", 3, nil, "p", map[string]any{"x": "y"}, "q"}}}),
		ev("h07", day0, Payload{TypeAmbiguous, map[string]any{"context": "both", "candidates": "p"}}),
		ev("h08", day0, Payload{TypeSkillFeedback, map[string]any{"skill_path": "p", "useful": 1.0, "comment": 7}}),
		ev("h09", day0, Payload{TypeSkillFeedback, map[string]any{"skill_path": "p", "useful": "yes"}}),
		ev("h10", day0, Payload{TypeSkillFeedback, map[string]any{"skill_path": "p"}}),
		ev("h11", day0, Payload{TypeSearch, map[string]any{"query": "nothing here", "result_count": 0.0}}),
		ev("h12", day0, Payload{TypeSearch, map[string]any{"query": "string zero", "result_count": "0"}}),
		ev("h13", day0, Payload{TypeSearch, map[string]any{"query": "   ", "result_count": 0}}),
		ev("h14", day0, Payload{"custom_type", nil}),
		ev("h15", day0, Payload{TypeSkillServed, map[string]any{"skill_path": long}}),
	}
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		if acc, _, err := s.Ingest(t.Context(), events); err != nil || acc != len(events) {
			t.Fatalf("Ingest = %d, %v; want %d", acc, err, len(events))
		}
		got, err := s.Stats(t.Context(), Window{Start: day0.Add(-time.Hour), End: day0.Add(time.Hour), TopN: 10, Comments: 5})
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(referenceStats(events, Window{Start: day0.Add(-time.Hour), End: day0.Add(time.Hour), TopN: 10, Comments: 5}), got); diff != "" {
			t.Errorf("Stats differ from the reference (-want +got):\n%s", diff)
		}
		cut := cutKey(long)
		want := map[string]SkillStats{
			"a\uFFFDb": {SkillPath: "a\uFFFDb", Served: 1},
			"p":        {SkillPath: "p", AmbiguousAppearances: 2, Useful: 1, NotUseful: 2},
			"q":        {SkillPath: "q", AmbiguousAppearances: 1},
			cut:        {SkillPath: cut, Served: 1},
		}
		for _, sk := range got.Skills {
			w, ok := want[sk.SkillPath]
			if !ok {
				t.Errorf("unexpected skill %q", sk.SkillPath)
				continue
			}
			if sk.Served != w.Served || sk.AmbiguousAppearances != w.AmbiguousAppearances || sk.Useful != w.Useful || sk.NotUseful != w.NotUseful || len(sk.RecentComments) != 0 {
				t.Errorf("skill %.20q = %+v, want %+v", sk.SkillPath, sk, w)
			}
		}
		if len(got.Skills) != len(want) {
			t.Errorf("%d skills, want %d", len(got.Skills), len(want))
		}
		// ASCII case folds (the long context and its upper-case spelling
		// count together, under the smaller spelling); invalid bytes are
		// U+FFFD; a blank context and a search whose result_count is the
		// string "0" count as no miss.
		wantNM := []ContextCount{{"LONG" + long[4:], 2}, {"bad \uFFFD\uFFFD utf8", 1}, {"nothing here", 1}}
		if !gocmp.Equal(got.TopNoMatch, wantNM) {
			t.Errorf("top no-match = %.60v, want %.60v", got.TopNoMatch, wantNM)
		}
		if got.TotalEvents != int64(len(events)) {
			t.Errorf("total = %d, want %d", got.TotalEvents, len(events))
		}
	})
}

// TestVolumeStoreMatchesReference: random events (with hostile data, ids sent
// twice, times on and around midnight) and random windows, compared with a
// plain Go computation over the same events. The windows cut days in every
// way, so the rollups and the events that answer partial days both count.
func TestVolumeStoreMatchesReference(t *testing.T) {
	volumeTest(t)
	rng := rand.New(rand.NewPCG(22, 1))
	events := randomEvents(rng, 3000, day0, 6)
	windows := randomWindows(rng, 60, day0, 6)
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		ingestInBatches(t, s, events, 137)
		// With the rollups, and from the events alone.
		for _, raw := range []bool{false, true} {
			s.(*sqlStore).rawOnly = raw
			for i, w := range windows {
				got, err := s.Stats(t.Context(), w)
				if err != nil {
					t.Fatalf("window %d: %v", i, err)
				}
				if diff := gocmp.Diff(referenceStats(events, w), got); diff != "" {
					t.Fatalf("raw only %v, window %d [%s, %s) skill %q differs from the reference (-want +got):\n%s", raw, i,
						w.Start.Format(time.RFC3339Nano), w.End.Format(time.RFC3339Nano), w.SkillPath, diff)
				}
			}
		}
	})
}

// TestStoresAgree: the same events into SQLite and PostgreSQL give the same
// answers, byte for byte.
func TestStoresAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	events := randomEvents(rng, 2000, day0, 4)
	windows := randomWindows(rng, 30, day0, 4)
	answers := map[string][][]byte{}
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		ingestInBatches(t, s, events, 500)
		for _, w := range windows {
			got, err := s.Stats(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			answers[t.Name()] = append(answers[t.Name()], b)
		}
	})
	a, b := answers[t.Name()+"/sqlite"], answers[t.Name()+"/postgres"]
	if a == nil || b == nil {
		t.Skip("one of the stores did not run")
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			t.Errorf("window %d: SQLite and PostgreSQL differ:\nsqlite   %s\npostgres %s", i, a[i], b[i])
		}
	}
}

// TestStoreExactlyOnce: several replicas (store handles) ingest overlapping
// batches at once, each batch delivered more than once and holding ids
// twice; every event is stored once and counted once.
func TestStoreExactlyOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	events := randomEvents(rng, 2400, day0, 3)
	const replicas = 6
	stores(t, func(t *testing.T, open opener) {
		handles := make([]Store, replicas)
		for i := range handles {
			handles[i] = open(t)
		}
		var wg sync.WaitGroup
		accepted := make([]int, replicas)
		errs := make([]error, replicas)
		for i, s := range handles {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(i), 9))
				// Each replica delivers every event (as collectors
				// relaying the same spools would), in its own order and
				// batches, some twice, some with an id repeated.
				order := r.Perm(len(events))
				for len(order) > 0 {
					n := min(len(order), 1+r.IntN(300))
					batch := make([]Event, 0, n+2)
					for _, j := range order[:n] {
						batch = append(batch, events[j])
					}
					batch = append(batch, batch[r.IntN(len(batch))])
					order = order[n:]
					for range 1 + r.IntN(2) {
						acc, dup, err := s.Ingest(t.Context(), batch)
						if err != nil {
							errs[i] = err
							return
						}
						if acc+dup != len(batch) {
							errs[i] = fmt.Errorf("accepted %d + duplicates %d != %d events", acc, dup, len(batch))
							return
						}
						accepted[i] += acc
					}
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("replica %d: %v", i, err)
			}
		}
		unique := map[string]bool{}
		for _, e := range events {
			unique[e.ID] = true
		}
		var sum int
		for _, a := range accepted {
			sum += a
		}
		if sum != len(unique) {
			t.Errorf("the replicas stored %d events in all; want each of the %d once", sum, len(unique))
		}
		w := Window{Start: day0.Add(-48 * time.Hour), End: day0.Add(96 * time.Hour), TopN: 50, Comments: 5}
		got, err := handles[0].Stats(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		// Which copy of an id wins is up to the race: the generator gives
		// repeated ids the same content, so the reference holds either way.
		if diff := gocmp.Diff(referenceStats(events, w), got); diff != "" {
			t.Errorf("after concurrent ingestion, Stats differ from the reference (-want +got):\n%s", diff)
		}
	})
}

// TestStoreMigratesOnce: ten stores opened at once on a fresh database
// (replicas starting together) apply the migrations once between them.
func TestStoreMigratesOnce(t *testing.T) {
	stores(t, func(t *testing.T, open opener) {
		const n = 10
		handles := make([]Store, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range handles {
			wg.Go(func() {
				<-start
				handles[i] = open(t)
			})
		}
		close(start)
		wg.Wait()
		var applied int64
		for _, h := range handles {
			if h == nil {
				t.FailNow() // open failed (reported)
			}
			applied += h.(*sqlStore).migrations.Load()
		}
		ms, err := migrations(handles[0].(*sqlStore).d.name)
		if err != nil {
			t.Fatal(err)
		}
		if applied != int64(len(ms)) {
			t.Errorf("%d stores starting together applied %d migrations; want the %d once", n, applied, len(ms))
		}
		var versions int
		if err := handles[0].(*sqlStore).db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM usage_schema_migrations`).Scan(&versions); err != nil || versions != len(ms) {
			t.Errorf("usage_schema_migrations holds %d rows (%v); want %d", versions, err, len(ms))
		}
		// Every handle works.
		for i, h := range handles {
			if _, _, err := h.Ingest(t.Context(), []Event{ev(fmt.Sprintf("m%d", i), day0, NoMatch("x"))}); err != nil {
				t.Errorf("store %d: %v", i, err)
			}
		}
	})
}

// TestStoreRefusesNewerSchema: a database migrated by a newer skillsd is
// refused at open with a message that says what to do.
func TestStoreRefusesNewerSchema(t *testing.T) {
	stores(t, func(t *testing.T, open opener) {
		s := open(t).(*sqlStore)
		ms, _ := migrations(s.d.name)
		newer := len(ms) + 1
		if _, err := s.db.ExecContext(t.Context(), s.d.rebind(`INSERT INTO usage_schema_migrations (version, name, applied_at) VALUES (?, 'from_the_future', 0)`), newer); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		var err error
		if s.d.name == "sqlite" {
			_, err = OpenSQLite(t.Context(), s.where, StoreOptions{})
		} else {
			t.Skip("covered by TestPostgresRefusesNewerSchema (it needs the URL)")
		}
		want := fmt.Sprintf("is at schema version %d, but this skillsd knows versions up to %d", newer, len(ms))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Upgrade this skillsd") {
			t.Fatalf("open = %v; want an error saying %q", err, want)
		}
	})
}

func TestPostgresRefusesNewerSchema(t *testing.T) {
	url := pgtest.Database(t)
	s, err := OpenPostgres(t.Context(), url, StoreOptions{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := migrations("postgres")
	if _, err := s.(*sqlStore).db.ExecContext(t.Context(), `INSERT INTO usage_schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', 0)`, len(ms)+1); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	_, err = OpenPostgres(t.Context(), url, StoreOptions{MaxConns: 1})
	want := fmt.Sprintf("is at schema version %d, but this skillsd knows versions up to %d", len(ms)+1, len(ms))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("OpenPostgres = %v; want an error saying %q", err, want)
	}
}

// TestMigrationsListed: both dialects have the same numbered migrations.
func TestMigrationsListed(t *testing.T) {
	var names [2][]string
	for i, d := range []string{"sqlite", "postgres"} {
		ms, err := migrations(d)
		if err != nil || len(ms) == 0 {
			t.Fatalf("%s: %d migrations, %v", d, len(ms), err)
		}
		for _, m := range ms {
			names[i] = append(names[i], m.name)
		}
	}
	if !slices.Equal(names[0], names[1]) {
		t.Errorf("sqlite migrations %v, postgres %v; want the same steps", names[0], names[1])
	}
}

// ingestInBatches ingests events in batches of n, in order.
func ingestInBatches(t *testing.T, s Store, events []Event, n int) {
	t.Helper()
	for i := 0; i < len(events); i += n {
		if _, _, err := s.Ingest(t.Context(), events[i:min(i+n, len(events))]); err != nil {
			t.Fatal(err)
		}
	}
}

// randomEvents makes n events over days days from start: every type, data
// of the wrong shape now and then, times on and just around midnight, and
// some ids twice (with the same content, as a retried delivery has).
func randomEvents(rng *rand.Rand, n int, start time.Time, days int) []Event {
	skills := []string{"pdf", "docx", "xlsx", "plugins/x/skills/pdf", "", "ünï/cødé", "a\x00b"}
	contexts := []string{"bake a cake", "Bake  a Cake", "BAKE A CAKE", "fly a kite", "merge pdfs", "Merge PDFs", "é É", "bad \xff", "", "  "}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	base := start.Truncate(24 * time.Hour)
	var out []Event
	for i := range n {
		var at time.Time
		switch rng.IntN(6) {
		case 0: // on a midnight, or a nanosecond either side
			at = base.Add(time.Duration(rng.IntN(days+1))*24*time.Hour + time.Duration(rng.IntN(3)-1))
		default:
			at = base.Add(time.Duration(rng.Int64N(int64(days) * int64(24*time.Hour))))
		}
		var p Payload
		switch rng.IntN(9) {
		case 0, 1:
			p = Served(pick(contexts), pick(skills), rng.Float64(), nil, false, "match")
		case 2:
			p = NoMatch(pick(contexts))
		case 3:
			cands := []any{pick(skills), pick(skills)}
			if rng.IntN(4) == 0 {
				cands = append(cands, 5, nil, pick(skills))
			}
			p = Payload{TypeAmbiguous, map[string]any{"context": pick(contexts), "candidates": cands}}
		case 4:
			var useful any = rng.IntN(2) == 0
			if rng.IntN(5) == 0 {
				useful = []any{1.0, 0.0, "true", nil}[rng.IntN(4)]
			}
			comment := ""
			if rng.IntN(2) == 0 {
				comment = fmt.Sprintf("comment %d", rng.IntN(20))
			}
			p = Payload{TypeSkillFeedback, map[string]any{"skill_path": pick(skills), "useful": useful, "comment": comment}}
		case 5:
			var rc any = rng.IntN(3)
			if rng.IntN(5) == 0 {
				rc = []any{0.0, "0", nil}[rng.IntN(3)]
			}
			p = Payload{TypeSearch, map[string]any{"query": pick(contexts), "result_count": rc}}
		case 6:
			p = AssetServed(pick(skills), "a.md", "template", false, 10)
		case 7:
			p = Refreshed("local", true, "", 0, 1)
		default:
			p = Payload{"custom_" + pick([]string{"a", "b"}), map[string]any{"skill_path": pick(skills)}}
		}
		e := Event{ID: fmt.Sprintf("%08d-%x", i, rng.Uint32()), Type: p.Type, Timestamp: at, ServerID: "dev-r", Data: p.Data}
		out = append(out, e)
		if rng.IntN(15) == 0 { // delivered again later
			out = append(out, e)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// randomWindows makes n windows over days days from start: whole days,
// partial days, less than a day, a single skill now and then.
func randomWindows(rng *rand.Rand, n int, start time.Time, days int) []Window {
	base := start.Truncate(24 * time.Hour)
	point := func() time.Time {
		d := time.Duration(rng.IntN(days+2)-1) * 24 * time.Hour
		switch rng.IntN(4) {
		case 0:
			return base.Add(d)
		case 1:
			return base.Add(d + time.Duration(rng.IntN(3)-1))
		}
		return base.Add(d + time.Duration(rng.Int64N(int64(24*time.Hour))))
	}
	var out []Window
	for i := range n {
		a, b := point(), point()
		if b.Before(a) {
			a, b = b, a
		}
		if i%7 == 0 {
			b = a.Add(time.Duration(rng.Int64N(int64(6 * time.Hour))))
		}
		w := Window{Start: a, End: b, TopN: 1 + rng.IntN(8), Comments: rng.IntN(4)}
		if rng.IntN(5) == 0 {
			w.SkillPath = []string{"pdf", "docx", "ünï/cødé", "nope"}[rng.IntN(4)]
		}
		out = append(out, w)
	}
	return out
}

// referenceStats computes Stats in plain Go: events with one id count once
// (the first), with the fields derive gives them.
func referenceStats(events []Event, w Window) *Stats {
	lo, hi := unixNano(w.Start), unixNano(w.End)
	st := &Stats{Skills: []SkillStats{}, TopNoMatch: []ContextCount{}, TopAmbiguous: []ContextCount{}, ByDay: []DayCount{}}
	seen := map[string]bool{}
	skills := map[string]*SkillStats{}
	last := map[string]int64{}
	type comment struct {
		ts       int64
		id, text string
	}
	comments := map[string][]comment{}
	type group struct {
		min string
		n   int64
	}
	noMatch, ambiguous := map[string]*group{}, map[string]*group{}
	days := map[int64]*DayCount{}
	get := func(p string) *SkillStats {
		if skills[p] == nil {
			skills[p] = &SkillStats{SkillPath: p, RecentComments: []string{}}
		}
		return skills[p]
	}
	want := func(p string) bool { return p != "" && (w.SkillPath == "" || p == w.SkillPath) }
	count := func(m map[string]*group, r row) {
		if r.context == "" {
			return
		}
		g := m[r.contextKey]
		if g == nil {
			g = &group{min: r.context}
			m[r.contextKey] = g
		}
		g.n++
		g.min = min(g.min, r.context)
	}
	for i := range events {
		e := &events[i]
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		r, err := derive(e)
		if err != nil {
			panic(err)
		}
		if r.ts < lo || r.ts >= hi {
			continue
		}
		st.TotalEvents++
		d := days[r.day]
		if d == nil {
			d = &DayCount{Day: dayString(r.day)}
			days[r.day] = d
		}
		switch r.typ {
		case TypeSkillServed:
			d.Served++
			if want(r.skillPath) {
				get(r.skillPath).Served++
				last[r.skillPath] = max(last[r.skillPath], r.ts)
			}
		case TypeNoMatch:
			d.NoMatch++
			count(noMatch, r)
		case TypeAmbiguous:
			d.Ambiguous++
			count(ambiguous, r)
			for _, c := range r.candidates {
				if want(c) {
					get(c).AmbiguousAppearances++
				}
			}
		case TypeSearch:
			d.Searches++
			if r.noResult == 1 {
				count(noMatch, r)
			}
		case TypeSkillFeedback:
			d.Feedback++
			if want(r.skillPath) {
				sk := get(r.skillPath)
				sk.Useful += r.useful
				sk.NotUseful += 1 - r.useful
				if r.comment != "" {
					comments[r.skillPath] = append(comments[r.skillPath], comment{r.ts, r.id, r.comment})
				}
			}
		}
	}
	for p, sk := range skills {
		if sk.Served > 0 {
			sk.LastServed = time.Unix(0, last[p]).UTC()
		}
		cs := comments[p]
		slices.SortFunc(cs, func(a, b comment) int {
			if c := cmp.Compare(b.ts, a.ts); c != 0 {
				return c
			}
			return strings.Compare(b.id, a.id)
		})
		for _, c := range cs[:min(len(cs), w.Comments)] {
			sk.RecentComments = append(sk.RecentComments, c.text)
		}
		st.Skills = append(st.Skills, *sk)
	}
	sortSkills(st.Skills)
	top := func(m map[string]*group) []ContextCount {
		out := []ContextCount{}
		for _, g := range m {
			out = append(out, ContextCount{g.min, g.n})
		}
		slices.SortFunc(out, func(a, b ContextCount) int {
			if c := cmp.Compare(b.Count, a.Count); c != 0 {
				return c
			}
			return strings.Compare(a.Context, b.Context)
		})
		return out[:min(len(out), w.TopN)]
	}
	st.TopNoMatch, st.TopAmbiguous = top(noMatch), top(ambiguous)
	for _, day := range slices.Sorted(maps.Keys(days)) {
		st.ByDay = append(st.ByDay, *days[day])
	}
	return st
}

// TestVolumeStoreTopContextsPruned: with a few contexts seen far more than the
// rest (as real misses are), the top contexts come from the candidates
// alone, and are the same as from aggregating every context.
func TestVolumeStoreTopContextsPruned(t *testing.T) {
	volumeTest(t)
	rng := rand.New(rand.NewPCG(22, 4))
	end := day0.Add(10*24*time.Hour + 7*time.Hour)
	events := benchEvents(rng, 15_000, end.Add(-10*24*time.Hour), end)
	windows := []Window{
		{Start: end.Add(-10 * 24 * time.Hour), End: end, TopN: 5},
		{Start: end.Add(-7 * 24 * time.Hour), End: end, TopN: 3},
		{Start: end.Add(-5*24*time.Hour - 3*time.Minute), End: end.Add(-17 * time.Hour), TopN: 8},
		{Start: end.Add(-10 * 24 * time.Hour), End: end, TopN: 200}, // too many to prune: all
	}
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		ingestInBatches(t, s, events, 2000)
		st := s.(*sqlStore)
		for i, w := range windows {
			got, err := s.Stats(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			want := referenceStats(events, w)
			if diff := gocmp.Diff(want.TopNoMatch, got.TopNoMatch); diff != "" {
				t.Errorf("window %d: top no-match (-want +got):\n%s", i, diff)
			}
			if diff := gocmp.Diff(want.TopAmbiguous, got.TopAmbiguous); diff != "" {
				t.Errorf("window %d: top ambiguous (-want +got):\n%s", i, diff)
			}
		}
		if st.prunedTops.Load() < 4 || st.fullTops.Load() == 0 {
			t.Errorf("%d answers from candidates, %d from every context; want most from candidates, the last window from all", st.prunedTops.Load(), st.fullTops.Load())
		}
	})
}

// TestStoreTopContextsSteady: a context seen a few times every day beats
// contexts seen in one burst; the candidates of a burst alone do not decide.
func TestStoreTopContextsSteady(t *testing.T) {
	start := day0.Truncate(24 * time.Hour)
	var events []Event
	add := func(ctx string, at time.Time) {
		events = append(events, ev(fmt.Sprintf("s%05d", len(events)), at, NoMatch(ctx)))
	}
	for d := range 10 {
		for i := range 3 {
			add("steady task", start.Add(time.Duration(d)*24*time.Hour+time.Duration(i)*time.Hour))
		}
	}
	for b := range 3 {
		for i := range 20 + b {
			add(fmt.Sprintf("burst %d", b), start.Add(time.Duration(2+b)*24*time.Hour+time.Duration(i)*time.Minute))
		}
	}
	for i := range 50 {
		add(fmt.Sprintf("once %d", i), start.Add(time.Duration(i)*3*time.Hour))
	}
	w := Window{Start: start, End: start.Add(10 * 24 * time.Hour), TopN: 2}
	stores(t, func(t *testing.T, open opener) {
		s := open(t)
		ingestInBatches(t, s, events, 1000)
		got, err := s.Stats(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		want := []ContextCount{{"steady task", 30}, {"burst 2", 22}}
		if !gocmp.Equal(got.TopNoMatch, want) {
			t.Errorf("top no-match = %v, want %v", got.TopNoMatch, want)
		}
		if n := s.(*sqlStore).prunedTops.Load(); n != 1 {
			t.Errorf("%d answers from candidates; want the no-match one", n)
		}
	})
}

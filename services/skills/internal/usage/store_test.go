package usage

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
	path := filepath.Join(t.TempDir(), "usage.db")
	s, err := OpenStore(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
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
	if s, err = OpenStore(t.Context(), path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()

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
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", diff)
	}

	// One skill, a narrower window, and TopN.
	got, err = s.Stats(t.Context(), Window{Start: day0.Add(24 * time.Hour), End: day0.Add(72 * time.Hour), SkillPath: "pdf", TopN: 1, Comments: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Skills) != 1 || got.Skills[0].Served != 1 || got.Skills[0].NotUseful != 2 || !cmp.Equal(got.Skills[0].RecentComments, []string{"outdated API"}) {
		t.Errorf("pdf over days 2-3 = %+v", got.Skills)
	}
	if len(got.TopAmbiguous) != 1 || got.TopAmbiguous[0].Count != 1 || got.TotalEvents != 8 {
		t.Errorf("top ambiguous %+v, total %d; want office files once, 8 events", got.TopAmbiguous, got.TotalEvents)
	}

	// An empty window answers empty lists, never nil.
	got, err = s.Stats(t.Context(), Window{Start: day0.Add(-100 * time.Hour), End: day0.Add(-99 * time.Hour), TopN: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got.Skills == nil || got.TopNoMatch == nil || got.TopAmbiguous == nil || got.ByDay == nil || got.TotalEvents != 0 {
		t.Errorf("empty window = %+v", got)
	}
}

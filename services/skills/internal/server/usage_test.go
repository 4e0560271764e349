package server

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// eventSink is a real HTTP collector that keeps the posted events.
type eventSink struct {
	mu     sync.Mutex
	events []map[string]any
}

func (k *eventSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	k.mu.Lock()
	k.events = append(k.events, b.Events...)
	k.mu.Unlock()
}

func openRecorder(t testing.TB, endpoint string) *usage.Recorder {
	t.Helper()
	r, err := usage.Open(t.Context(), usage.Options{Dir: t.TempDir(), Endpoint: endpoint, FlushInterval: time.Hour, ServerID: "dev-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// TestUsageEvents: each RPC records its seed 000 §10.2 event with exactly
// the data fields of its type, and the aggregates count them.
func TestUsageEvents(t *testing.T) {
	sink := &eventSink{}
	collector := httptest.NewServer(sink)
	defer collector.Close()
	rec := openRecorder(t, collector.URL)
	s := routingService(t, Options{MatchingStrategy: "auto", Usage: rec}, routingTree(t))
	ctx := t.Context()

	mustOK := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	_, err := s.MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: "Create a React component for the authentication"})
	mustOK("match", err)
	_, err = s.MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: "auth"})
	mustOK("ambiguous", err)
	_, err = s.MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: "bake sourdough bread"})
	mustOK("no match", err)
	_, err = s.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "react authentication"})
	mustOK("search", err)
	_, err = s.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "api/auth"})
	mustOK("load", err)
	_, err = s.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "ui/react/auth", File: "assets/component-base.tsx.template"})
	mustOK("read", err)
	_, err = s.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "ui/react/auth", File: "assets/component-base.tsx.template", Offset: 1})
	mustOK("read a second page", err)
	_, err = s.RefreshSkills(ctx, &skillsv1.RefreshSkillsRequest{})
	mustOK("refresh", err)
	resp, err := s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "ui/react/auth", Useful: true, Comment: " clear steps "})
	mustOK("report", err)
	if !resp.GetRecorded() || resp.GetMessage() != "Feedback recorded for ui/react/auth" {
		t.Errorf("ReportUsage = %v", resp)
	}
	mustOK("flush", rec.Flush(ctx))

	sink.mu.Lock()
	events := slices.Clone(sink.events)
	sink.mu.Unlock()
	wantKeys := map[string][]string{
		"skill_served":    {"context", "matched_keywords", "score", "skill_path", "via", "was_ambiguous"},
		"ambiguous":       {"candidates", "context"},
		"no_match":        {"context"},
		"search":          {"query", "result_count"},
		"asset_served":    {"asset_type", "file", "is_inherited", "size_bytes", "skill_path"},
		"skill_feedback":  {"comment", "skill_path", "useful"},
		"refresh":         {"commit_hash", "files_changed", "mode", "skills_reindexed", "success"},
		"script_executed": nil, // scripts are off here; see TestUsageScriptEvent
	}
	var types []string
	for _, e := range events {
		typ := e["type"].(string)
		types = append(types, typ)
		data, _ := e["data"].(map[string]any)
		keys := slices.Sorted(maps.Keys(data))
		if diff := cmp.Diff(wantKeys[typ], keys); diff != "" {
			t.Errorf("%s data fields (-want +got):\n%s", typ, diff)
		}
		if e["server_id"] != "dev-test" || e["id"] == "" {
			t.Errorf("event %v: want server_id dev-test and an id", e)
		}
		switch typ {
		case "ambiguous":
			if got := data["candidates"]; !cmp.Equal(got, []any{"ui/react/auth", "api/auth"}) {
				t.Errorf("ambiguous candidates = %v", got)
			}
		case "asset_served":
			if data["is_inherited"] != true || data["asset_type"] != "template" {
				t.Errorf("asset_served = %v, want an inherited template", data)
			}
		case "skill_feedback":
			if data["comment"] != "clear steps" || data["useful"] != true {
				t.Errorf("skill_feedback = %v", data)
			}
		}
	}
	wantTypes := []string{"skill_served", "ambiguous", "no_match", "search", "skill_served", "asset_served", "refresh", "skill_feedback"}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("event types in order (-want +got):\n%s", diff)
	}

	st, err := s.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{})
	mustOK("stats", err)
	if st.GetTotalEvents() != 8 {
		t.Errorf("total_events = %d, want 8", st.GetTotalEvents())
	}
	bySkill := map[string]*skillsv1.SkillUsage{}
	for _, u := range st.GetSkills() {
		bySkill[u.GetSkillPath()] = u
	}
	if u := bySkill["ui/react/auth"]; u.GetServed() != 1 || u.GetAmbiguousAppearances() != 1 || u.GetUseful() != 1 || u.GetLastServed() == nil ||
		!cmp.Equal(u.GetRecentComments(), []string{"clear steps"}) {
		t.Errorf("ui/react/auth usage = %v", u)
	}
	if u := bySkill["api/auth"]; u.GetServed() != 1 || u.GetAmbiguousAppearances() != 1 {
		t.Errorf("api/auth usage = %v", u)
	}
	if got := st.GetTopNoMatch(); len(got) != 1 || got[0].GetContext() != "bake sourdough bread" {
		t.Errorf("top_no_match = %v", got)
	}
	if got := st.GetByDay(); len(got) != 1 || got[0].GetServed() != 2 || got[0].GetSearches() != 1 || got[0].GetFeedback() != 1 {
		t.Errorf("by_day = %v", got)
	}
}

// TestUsageScriptEvent: a script run records script_executed with the
// argument names only.
func TestUsageScriptEvent(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	sink := &eventSink{}
	collector := httptest.NewServer(sink)
	defer collector.Close()
	rec := openRecorder(t, collector.URL)
	dir := t.TempDir()
	skill := "---\nname: hello\ndescription: Say hello.\nscripts:\n  - file: scripts/hi.sh\n    execution: server\n    args:\n      - name: who\n        required: false\n---\n# Hello\n"
	for name, content := range map[string]string{"hello/SKILL.md": skill, "hello/scripts/hi.sh": "echo hi \"$SKILL_ARG_WHO\"\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := routingService(t, Options{Usage: rec, Scripts: sandbox.New(sandbox.Options{Enabled: true, Runner: sandbox.NewRunner(sandbox.RunnerOptions{TempDir: t.TempDir()})})}, dir)
	res, err := s.RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "hello", File: "scripts/hi.sh", Args: map[string]string{"who": "secret-value"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.events) != 1 || sink.events[0]["type"] != "script_executed" {
		t.Fatalf("events = %v, want one script_executed", sink.events)
	}
	data := sink.events[0]["data"].(map[string]any)
	want := map[string]any{"skill_path": "hello", "file": "scripts/hi.sh", "execution_mode": "server", "success": res.GetSuccess(),
		"exit_code": float64(res.GetExitCode()), "duration_ms": float64(res.GetDurationMs()), "args_provided": []any{"who"}}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("script_executed data (-want +got):\n%s", diff)
	}
	if b, _ := json.Marshal(sink.events); strings.Contains(string(b), "secret-value") {
		t.Error("an argument's value was recorded")
	}
}

// TestUsageOff: with analytics off, feedback is logged but not recorded and
// the other usage RPCs say analytics is off.
func TestUsageOff(t *testing.T) {
	s := routingService(t, Options{}, routingTree(t))
	resp, err := s.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "api/auth", Useful: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRecorded() || !strings.Contains(resp.GetMessage(), "analytics is off") {
		t.Errorf("ReportUsage = %v, want recorded false and why", resp)
	}
	_, err = s.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{})
	routingWantCode(t, "GetUsageStats", err, codes.FailedPrecondition)
	if msg := status.Convert(err).Message(); !strings.Contains(msg, "analytics.enabled: false") || !strings.Contains(msg, "SKILLSD_HOME") {
		t.Errorf("message %q should say how to turn analytics on", status.Convert(err).Message())
	}
	_, err = s.IngestEvents(t.Context(), &skillsv1.IngestEventsRequest{})
	routingWantCode(t, "IngestEvents", err, codes.FailedPrecondition)
}

func TestUsageValidation(t *testing.T) {
	s := routingService(t, Options{Usage: openRecorder(t, "")}, routingTree(t))
	ctx := t.Context()
	now := time.Now()
	for _, tc := range []struct {
		name string
		err  error
		want codes.Code
		msg  string
	}{
		{"report: no skill", second(s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{})), codes.InvalidArgument, "skill_path is required"},
		{"report: unknown skill", second(s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "api/authx"})), codes.NotFound, "api/auth"},
		{"report: long comment", second(s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "api/auth", Comment: strings.Repeat("x", maxCommentBytes+1)})), codes.InvalidArgument, "comment is longer"},
		{"report: bad UTF-8", second(s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "api/auth", Comment: "\xff"})), codes.InvalidArgument, "UTF-8"},
		{"stats: start after end", second(s.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{StartTime: timestamppb.New(now), EndTime: timestamppb.New(now.Add(-time.Hour))})), codes.InvalidArgument, "must be before"},
		{"stats: negative top_n", second(s.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{TopN: -1})), codes.InvalidArgument, "top_n"},
		{"ingest: no id", second(s.IngestEvents(ctx, &skillsv1.IngestEventsRequest{Events: []*skillsv1.UsageEvent{
			{Id: "a", Type: "search", Timestamp: timestamppb.New(now)}, {Type: "search", Timestamp: timestamppb.New(now)}}})), codes.InvalidArgument, "events[1]: id is required"},
		{"ingest: no timestamp", second(s.IngestEvents(ctx, &skillsv1.IngestEventsRequest{Events: []*skillsv1.UsageEvent{{Id: "a", Type: "search"}}})), codes.InvalidArgument, "timestamp is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			routingWantCode(t, tc.name, tc.err, tc.want)
			if msg := status.Convert(tc.err).Message(); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q, want it to contain %q", msg, tc.msg)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

// TestIngestEvents: a collector stores a batch once per id and counts it.
func TestIngestEvents(t *testing.T) {
	s := routingService(t, Options{Usage: openRecorder(t, "")}, routingTree(t))
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	data, _ := structpb.NewStruct(map[string]any{"skill_path": "pdf", "context": "merge", "score": 0.9, "matched_keywords": []any{"pdf"}, "was_ambiguous": false})
	batch := &skillsv1.IngestEventsRequest{Events: []*skillsv1.UsageEvent{
		{Id: "e1", Type: "skill_served", Timestamp: timestamppb.New(at), ServerId: "dev-x", Data: data},
		{Id: "e2", Type: "skill_served", Timestamp: timestamppb.New(at.Add(time.Minute)), ServerId: "dev-y", Data: data},
	}}
	resp, err := s.IngestEvents(t.Context(), batch)
	if err != nil || resp.GetAccepted() != 2 || resp.GetDuplicates() != 0 {
		t.Fatalf("IngestEvents = %v, %v; want 2 accepted", resp, err)
	}
	resp, err = s.IngestEvents(t.Context(), batch)
	if err != nil || resp.GetAccepted() != 0 || resp.GetDuplicates() != 2 {
		t.Fatalf("IngestEvents again = %v, %v; want 2 duplicates", resp, err)
	}
	st, err := s.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{StartTime: timestamppb.New(at.Add(-time.Hour)), EndTime: timestamppb.New(at.Add(time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.GetSkills()) != 1 || st.GetSkills()[0].GetServed() != 2 || !st.GetSkills()[0].GetLastServed().AsTime().Equal(at.Add(time.Minute)) {
		t.Errorf("skills = %v, want pdf served twice, last at %v", st.GetSkills(), at.Add(time.Minute))
	}
}

// TestUsageStoreDown: with the shared PostgreSQL store gone, skills are
// served and usage recorded (spooled), GetUsageStats answers UNAVAILABLE
// with a clear message, IngestEvents too (so a publisher retries); once the
// database is back a delivery stores every event and the statistics count
// them once.
func TestUsageStoreDown(t *testing.T) {
	url := pgtest.Database(t)
	proxy := pgtest.NewProxy(t, url)
	store, err := usage.OpenPostgres(t.Context(), proxy.URL(url), usage.StoreOptions{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := usage.Open(t.Context(), usage.Options{Dir: t.TempDir(), Store: store, FlushInterval: time.Hour, ServerID: "dev-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rec.Close() })
	s := routingService(t, Options{MatchingStrategy: "auto", Usage: rec}, routingTree(t))
	ctx := t.Context()
	calls := func() {
		t.Helper()
		if _, err := s.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "api/auth"}); err != nil {
			t.Fatalf("GetSkill: %v", err)
		}
		if _, err := s.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "react authentication"}); err != nil {
			t.Fatalf("SearchSkills: %v", err)
		}
		if resp, err := s.ReportUsage(ctx, &skillsv1.ReportUsageRequest{SkillPath: "api/auth", Useful: true}); err != nil || !resp.GetRecorded() {
			t.Fatalf("ReportUsage = %v, %v; want recorded", resp, err)
		}
	}
	total := func() int64 {
		t.Helper()
		st, err := s.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{})
		if err != nil {
			t.Fatalf("GetUsageStats: %v", err)
		}
		return st.GetTotalEvents()
	}
	calls()
	if got := total(); got != 3 {
		t.Fatalf("total_events = %d, want 3", got)
	}

	proxy.Close()
	calls() // skills are served, usage is recorded
	_, err = s.GetUsageStats(ctx, &skillsv1.GetUsageStatsRequest{})
	routingWantCode(t, "GetUsageStats with the database down", err, codes.Unavailable)
	if msg := status.Convert(err).Message(); !strings.Contains(msg, "the usage database cannot be reached") || strings.Contains(msg, "127.0.0.1") {
		t.Errorf("message %q: want it to say the usage database cannot be reached, without its address", msg)
	}
	_, err = s.IngestEvents(ctx, &skillsv1.IngestEventsRequest{Events: []*skillsv1.UsageEvent{{Id: "x1", Type: "search", Timestamp: timestamppb.Now()}}})
	routingWantCode(t, "IngestEvents with the database down", err, codes.Unavailable)

	proxy.Reopen()
	if err := rec.Flush(ctx); err != nil {
		t.Fatalf("Flush once the database is back: %v", err)
	}
	if got := total(); got != 6 {
		t.Fatalf("total_events = %d, want 6", got)
	}
}

// BenchmarkRecording measures what recording adds to a search and a match:
// each runs with analytics off and on (spool append before the call
// returns, store queue, background fsync).
func BenchmarkRecording(b *testing.B) {
	dirs := map[string]string{"examples": filepath.Join("..", "..", "..", "..", "examples", "skills")}
	if bench := benchCorpus(); bench != "" {
		dirs["corpus"] = bench
	}
	queries := []string{"write a go http service", "merge two pdf files", "react authentication component", "bake sourdough bread"}
	for _, name := range slices.Sorted(maps.Keys(dirs)) {
		for _, mode := range []string{"off", "on"} {
			opts := Options{MatchingStrategy: "auto"}
			if mode == "on" {
				opts.Usage = openRecorder(b, "")
			}
			s := benchService(b, opts, dirs[name])
			b.Run(name+"/search/analytics="+mode, func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := s.SearchSkills(b.Context(), &skillsv1.SearchSkillsRequest{Query: queries[i%len(queries)]}); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run(name+"/match/analytics="+mode, func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := s.MatchSkill(b.Context(), &skillsv1.MatchSkillRequest{Context: queries[i%len(queries)]}); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkRecord is the cost of one Record call alone.
func BenchmarkRecord(b *testing.B) {
	rec := openRecorder(b, "")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := rec.Record(usage.Searched("merge two pdf files", 3)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchService(b *testing.B, opts Options, dir string) *Service {
	b.Helper()
	snap, err := catalog.Build(b.Context(), []*source.Root{{Name: "bench", Dir: dir, Kind: "local", Trusted: true}}, catalog.Options{})
	if err != nil {
		b.Fatal(err)
	}
	opts.Store = &catalog.Store{}
	opts.Store.Swap(snap)
	return New(opts)
}

// benchCorpus finds shared/bench/corpus beside the repository, or "".
func benchCorpus() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "bench", "corpus")
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestRetriedCallRecordedOnce: a search made twice under one request id (a
// client retrying a read on another replica of a fleet sharing one store,
// after the first died having recorded the search but before answering)
// leaves one search event; a search without one is an event of its own.
// Before, each attempt recorded an event of its own (TestFleet saw it once).
func TestRetriedCallRecordedOnce(t *testing.T) {
	rec := openRecorder(t, "")
	s := routingService(t, Options{MatchingStrategy: "auto", Usage: rec}, routingTree(t))
	call := metadata.NewIncomingContext(t.Context(), metadata.Pairs("x-request-id", "call-7"))
	req := &skillsv1.SearchSkillsRequest{Query: "react authentication"}
	for range 2 { // the call and its retry
		if _, err := s.SearchSkills(call, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SearchSkills(t.Context(), req); err != nil { // another call
		t.Fatal(err)
	}
	if err := rec.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := rec.Stats(t.Context(), usage.Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalEvents != 2 {
		t.Errorf("events stored = %d, want 2: the call retried once, and another call", st.TotalEvents)
	}
}

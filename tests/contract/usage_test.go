package contract

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	"github.com/skillsd/skillsd/gateways/rest/restgw"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// The usage contract: report_usage on gRPC, REST and MCP gives the same
// answers; the statistics are the same over gRPC and REST; and a server whose
// collector is down, and which is restarted in between, delivers every event
// to a second skillsd acting as the collector once it is up, whose
// statistics then match the server's.

// Feedback is the surface-neutral answer of report_usage.
type Feedback struct {
	Recorded bool
	Message  string
}

// feedbackQuery is one report_usage call.
type feedbackQuery struct {
	Skill   string
	Useful  bool
	Comment string
}

// reporter is a surface that reports feedback.
type reporter interface {
	name() string
	report(t *testing.T, q feedbackQuery) (*Feedback, *Failure)
}

type grpcReporter struct{ c skillsv1.UsageServiceClient }

func (grpcReporter) name() string { return "grpc" }

func (g grpcReporter) report(t *testing.T, q feedbackQuery) (*Feedback, *Failure) {
	resp, err := g.c.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: q.Skill, Useful: q.Useful, Comment: q.Comment})
	if err != nil {
		return nil, grpcFailure(t, err)
	}
	return &Feedback{Recorded: resp.GetRecorded(), Message: resp.GetMessage()}, nil
}

type restReporter struct{ r *restSurface }

func (restReporter) name() string { return "rest" }

func (r restReporter) report(t *testing.T, q feedbackQuery) (*Feedback, *Failure) {
	var resp struct {
		Recorded *bool   `json:"recorded"`
		Message  *string `json:"message"`
	}
	if f := r.r.post(t, "/v1/usage:report", map[string]any{"skill_path": q.Skill, "useful": q.Useful, "comment": q.Comment}, &resp); f != nil {
		return nil, f
	}
	if resp.Recorded == nil || resp.Message == nil {
		t.Fatalf("REST: /v1/usage:report: recorded or message missing")
	}
	return &Feedback{Recorded: *resp.Recorded, Message: *resp.Message}, nil
}

type mcpReporter struct{ m *mcpSurface }

func (mcpReporter) name() string { return "mcp" }

func (m mcpReporter) report(t *testing.T, q feedbackQuery) (*Feedback, *Failure) {
	args := map[string]any{"skill_path": q.Skill, "useful": q.Useful}
	if q.Comment != "" {
		args["comment"] = q.Comment
	}
	var out struct {
		Recorded *bool   `json:"recorded"`
		Message  *string `json:"message"`
	}
	if f := m.m.call(t, "report_usage", args, &out); f != nil {
		return nil, f
	}
	if out.Recorded == nil || out.Message == nil {
		t.Fatalf("MCP: report_usage: recorded or message missing")
	}
	return &Feedback{Recorded: *out.Recorded, Message: *out.Message}, nil
}

// reporters returns the three surfaces over conn, REST and MCP on loopback.
func reporters(t *testing.T, conn *grpc.ClientConn) []reporter {
	t.Helper()
	server, err := mcpgw.New(conn, mcpgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "contract-test", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: srv.Client(), MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return []reporter{
		grpcReporter{skillsv1.NewUsageServiceClient(conn)},
		restReporter{newRESTSurface(t, conn, loopback)},
		mcpReporter{&mcpSurface{session: cs}},
	}
}

// usageServer is one skillsd with analytics on.
type usageServer struct {
	srv  *skillsd.Server
	conn *grpc.ClientConn
}

func startUsageServer(t *testing.T, root, home string, env map[string]string) *usageServer {
	t.Helper()
	env["SKILLSD_HOME"] = home
	srv, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{root}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true,
		Getenv: func(k string) string { return env[k] },
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatalf("skillsd.New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return &usageServer{srv: srv, conn: conn}
}

// reserveAddr returns a loopback address nothing listens on (yet).
func reserveAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

func TestUsageContract(t *testing.T) {
	root := catalogDir(t, fixture)
	collectorAddr := reserveAddr(t)
	home := t.TempDir()
	env := map[string]string{
		"ANALYTICS_ENDPOINT":      "http://" + collectorAddr + "/v1/usage/events",
		"ANALYTICS_FLUSH_SECONDS": "1",
		"USER":                    "contract",
	}
	a := startUsageServer(t, root, home, env)

	// report_usage: the same answer on every surface.
	cases := []struct {
		name string
		q    feedbackQuery
		want *Feedback
		code string // gRPC code of the failure, "" for an answer
	}{
		{"useful", feedbackQuery{Skill: "ui/react/auth", Useful: true, Comment: "clear steps"}, &Feedback{true, "Feedback recorded for ui/react/auth"}, ""},
		{"not useful, by name", feedbackQuery{Skill: "PDF-TOOLS", Useful: false}, &Feedback{true, "Feedback recorded for pdf-tools"}, ""},
		{"unknown skill", feedbackQuery{Skill: "ui/react/auht", Useful: true}, nil, "NotFound"},
		{"no skill", feedbackQuery{Skill: " ", Useful: true}, nil, "InvalidArgument"},
	}
	surfs := reporters(t, a.conn)
	recorded := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range surfs {
				got, f := s.report(t, tc.q)
				switch {
				case tc.code == "" && f != nil:
					t.Errorf("%s: failed: %+v", s.name(), f)
				case tc.code == "" && !cmp.Equal(got, tc.want):
					t.Errorf("%s: got %+v, want %+v", s.name(), got, tc.want)
				case tc.code != "" && f == nil:
					t.Errorf("%s: got %+v, want a %s failure", s.name(), got, tc.code)
				case tc.code != "" && s.name() != "mcp" && f.Code != tc.code:
					t.Errorf("%s: code %s, want %s (%s)", s.name(), f.Code, tc.code, f.Message)
				case tc.code == "NotFound" && !strings.Contains(f.Message, "ui/react/auth"):
					t.Errorf("%s: message %q should suggest ui/react/auth", s.name(), f.Message)
				}
				if f == nil {
					recorded++
				}
			}
		})
	}
	if recorded != 6 {
		t.Fatalf("recorded %d feedback events, want 6", recorded)
	}

	// Other events: a match that finds nothing, a search, a load.
	routing := skillsv1.NewRoutingServiceClient(a.conn)
	if _, err := routing.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "bake sourdough bread"}); err != nil {
		t.Fatal(err)
	}
	if _, err := routing.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "bake sourdough bread"}); err != nil {
		t.Fatal(err)
	}
	if _, err := skillsv1.NewCatalogServiceClient(a.conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "ui/react/auth"}); err != nil {
		t.Fatal(err)
	}

	// The collector is down: wait for a failed delivery, then restart the
	// server on the same SKILLSD_HOME.
	time.Sleep(1500 * time.Millisecond)
	if err := a.srv.Close(); err != nil {
		t.Fatal(err)
	}
	a = startUsageServer(t, root, home, env)
	if got, f := (grpcReporter{skillsv1.NewUsageServiceClient(a.conn)}).report(t, feedbackQuery{Skill: "ui/react/auth", Useful: false, Comment: "after restart"}); f != nil || !got.Recorded {
		t.Fatalf("report after restart = %+v, %+v", got, f)
	}
	const total = 6 + 3 + 1

	// The server's statistics are the same over gRPC and REST.
	local := statsBoth(t, a.conn)
	if local.TotalEvents != total {
		t.Fatalf("server: total_events = %d, want %d", local.TotalEvents, total)
	}
	auth := local.skill("ui/react/auth")
	if auth.Served != 1 || auth.Useful != 3 || auth.NotUseful != 1 || !cmp.Equal(auth.RecentComments, []string{"after restart", "clear steps", "clear steps", "clear steps"}) {
		t.Errorf("ui/react/auth = %+v", auth)
	}
	if pdf := local.skill("pdf-tools"); pdf.NotUseful != 3 {
		t.Errorf("pdf-tools = %+v, want 3 not useful", pdf)
	}
	if len(local.TopNoMatch) != 1 || local.TopNoMatch[0] != (ContextCount{"bake sourdough bread", 2}) {
		t.Errorf("top no-match = %+v, want the match and the empty search", local.TopNoMatch)
	}

	// A second skillsd comes up as the collector, behind the REST gateway at
	// the address the server posts to; every event arrives, once.
	cdir := t.TempDir()
	cfg := filepath.Join(cdir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("analytics:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	csrv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, ConfigFile: cfg, Cwd: cdir, Home: cdir, NoWatch: true,
		Getenv: func(k string) string { return map[string]string{"SKILLSD_HOME": filepath.Join(cdir, "state")}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = csrv.Close() })
	cconn, err := csrv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	h, err := restgw.New(t.Context(), cconn, restgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", collectorAddr)
	if err != nil {
		t.Skipf("the collector's address was taken in between: %v", err)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(lis) }()
	t.Cleanup(func() { _ = hs.Close() })

	// Events reach the collector while it is asked: wait for all of them
	// over gRPC alone, then compare the surfaces on the settled answer.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := skillsv1.NewUsageServiceClient(cconn).GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{
			StartTime: timestamppb.New(time.Now().Add(-time.Hour)), EndTime: timestamppb.New(time.Now().Add(time.Hour)),
		})
		if err != nil {
			t.Fatalf("collector GetUsageStats: %v", err)
		}
		if resp.GetTotalEvents() >= total || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	remote := statsBoth(t, cconn)
	if diff := cmp.Diff(local, remote); diff != "" {
		t.Errorf("collector's statistics differ from the server's (-server +collector):\n%s", diff)
	}
}

// usageStats is the surface-neutral GetUsageStats answer (the window left
// out: it depends on when it was asked).
type usageStats struct {
	Skills       []SkillUsage
	TopNoMatch   []ContextCount
	TopAmbiguous []ContextCount
	ByDay        []DayCount
	TotalEvents  int64
}

// SkillUsage is one skill's statistics.
type SkillUsage struct {
	SkillPath                                       string
	Served, AmbiguousAppearances, Useful, NotUseful int64
	RecentComments                                  []string
	LastServed                                      string
}

// ContextCount is a context and its count.
type ContextCount struct {
	Context string
	Count   int64
}

// DayCount is one day's counts.
type DayCount struct {
	Day                                            string
	Served, NoMatch, Ambiguous, Searches, Feedback int64
}

func (u *usageStats) skill(path string) SkillUsage {
	for _, s := range u.Skills {
		if s.SkillPath == path {
			return s
		}
	}
	return SkillUsage{}
}

// statsBoth asks for the statistics over gRPC and over REST (the gateway on
// conn), checks that they agree, and returns them.
func statsBoth(t *testing.T, conn *grpc.ClientConn) *usageStats {
	t.Helper()
	start, end := time.Now().Add(-time.Hour).UTC(), time.Now().Add(time.Hour).UTC()
	resp, err := skillsv1.NewUsageServiceClient(conn).GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{
		StartTime: timestamppb.New(start), EndTime: timestamppb.New(end),
	})
	if err != nil {
		t.Fatalf("gRPC GetUsageStats: %v", err)
	}
	g := &usageStats{TotalEvents: resp.GetTotalEvents(), Skills: []SkillUsage{}, TopNoMatch: []ContextCount{}, TopAmbiguous: []ContextCount{}, ByDay: []DayCount{}}
	for _, s := range resp.GetSkills() {
		u := SkillUsage{SkillPath: s.GetSkillPath(), Served: s.GetServed(), AmbiguousAppearances: s.GetAmbiguousAppearances(),
			Useful: s.GetUseful(), NotUseful: s.GetNotUseful(), RecentComments: append([]string{}, s.GetRecentComments()...)}
		if s.GetLastServed() != nil {
			u.LastServed = s.GetLastServed().AsTime().UTC().Format(time.RFC3339Nano)
		}
		g.Skills = append(g.Skills, u)
	}
	for _, c := range resp.GetTopNoMatch() {
		g.TopNoMatch = append(g.TopNoMatch, ContextCount{c.GetContext(), c.GetCount()})
	}
	for _, c := range resp.GetTopAmbiguous() {
		g.TopAmbiguous = append(g.TopAmbiguous, ContextCount{c.GetContext(), c.GetCount()})
	}
	for _, d := range resp.GetByDay() {
		g.ByDay = append(g.ByDay, DayCount{d.GetDay(), d.GetServed(), d.GetNoMatch(), d.GetAmbiguous(), d.GetSearches(), d.GetFeedback()})
	}

	rs := newRESTSurface(t, conn, inMemory)
	var body struct {
		Skills []struct {
			SkillPath            string    `json:"skill_path"`
			Served               jsonInt64 `json:"served"`
			AmbiguousAppearances jsonInt64 `json:"ambiguous_appearances"`
			Useful               jsonInt64 `json:"useful"`
			NotUseful            jsonInt64 `json:"not_useful"`
			RecentComments       []string  `json:"recent_comments"`
			LastServed           *string   `json:"last_served"`
		} `json:"skills"`
		TopNoMatch   []restContext `json:"top_no_match"`
		TopAmbiguous []restContext `json:"top_ambiguous"`
		ByDay        []struct {
			Day       string    `json:"day"`
			Served    jsonInt64 `json:"served"`
			NoMatch   jsonInt64 `json:"no_match"`
			Ambiguous jsonInt64 `json:"ambiguous"`
			Searches  jsonInt64 `json:"searches"`
			Feedback  jsonInt64 `json:"feedback"`
		} `json:"by_day"`
		TotalEvents jsonInt64 `json:"total_events"`
	}
	q := fmt.Sprintf("/v1/usage/stats?start_time=%s&end_time=%s", start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano))
	if f := rs.get(t, q, &body); f != nil {
		t.Fatalf("REST %s: %+v", q, f)
	}
	if body.Skills == nil || body.TopNoMatch == nil || body.TopAmbiguous == nil || body.ByDay == nil {
		t.Errorf("REST stats: a list is null, want []")
	}
	r := &usageStats{TotalEvents: int64(body.TotalEvents), Skills: []SkillUsage{}, TopNoMatch: []ContextCount{}, TopAmbiguous: []ContextCount{}, ByDay: []DayCount{}}
	for _, s := range body.Skills {
		u := SkillUsage{SkillPath: s.SkillPath, Served: int64(s.Served), AmbiguousAppearances: int64(s.AmbiguousAppearances),
			Useful: int64(s.Useful), NotUseful: int64(s.NotUseful), RecentComments: s.RecentComments}
		if s.LastServed != nil {
			ts, err := time.Parse(time.RFC3339Nano, *s.LastServed)
			if err != nil {
				t.Errorf("REST last_served %q: %v", *s.LastServed, err)
			}
			u.LastServed = ts.UTC().Format(time.RFC3339Nano)
		}
		r.Skills = append(r.Skills, u)
	}
	for _, c := range body.TopNoMatch {
		r.TopNoMatch = append(r.TopNoMatch, ContextCount{c.Context, int64(c.Count)})
	}
	for _, c := range body.TopAmbiguous {
		r.TopAmbiguous = append(r.TopAmbiguous, ContextCount{c.Context, int64(c.Count)})
	}
	for _, d := range body.ByDay {
		r.ByDay = append(r.ByDay, DayCount{d.Day, int64(d.Served), int64(d.NoMatch), int64(d.Ambiguous), int64(d.Searches), int64(d.Feedback)})
	}
	if diff := cmp.Diff(g, r); diff != "" {
		t.Errorf("statistics differ between gRPC and REST (-grpc +rest):\n%s", diff)
	}
	return g
}

type restContext struct {
	Context string    `json:"context"`
	Count   jsonInt64 `json:"count"`
}

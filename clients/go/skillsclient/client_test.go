package skillsclient

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// pager serves paths a page at a time, the page token being the index of the
// next skill, and records the requests it gets.
type pager struct {
	mu       sync.Mutex
	paths    []string
	requests []*skillsv1.ListSkillsRequest
	failAt   string // a token that answers Unavailable
}

func (p *pager) list(_ context.Context, r *skillsv1.ListSkillsRequest) (*skillsv1.ListSkillsResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, r)
	if r.GetPageToken() != "" && r.GetPageToken() == p.failAt {
		return nil, status.Error(codes.Unavailable, "catalog is reloading")
	}
	start := 0
	if tok := r.GetPageToken(); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, "bad token")
		}
		start = n
	}
	size := int(r.GetPageSize())
	if size == 0 {
		size = 100
	}
	end := min(start+size, len(p.paths))
	resp := &skillsv1.ListSkillsResponse{TotalSize: int32(len(p.paths))}
	for _, path := range p.paths[start:end] {
		resp.Skills = append(resp.Skills, &skillsv1.Skill{SkillPath: path, Name: path})
	}
	if end < len(p.paths) {
		resp.NextPageToken = strconv.Itoa(end)
	}
	return resp, nil
}

func (p *pager) tokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		out = append(out, r.GetPageToken())
	}
	return out
}

func TestSkillsPaging(t *testing.T) {
	five := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		name       string
		pageSize   int
		stopAfter  int // 0: read all
		wantPaths  []string
		wantTokens []string
	}{
		{name: "size 2 over 5", pageSize: 2, wantPaths: five, wantTokens: []string{"", "2", "4"}},
		{name: "size 5 over 5", pageSize: 5, wantPaths: five, wantTokens: []string{""}},
		{name: "server default", pageSize: 0, wantPaths: five, wantTokens: []string{""}},
		{name: "size 1 over 5", pageSize: 1, wantPaths: five, wantTokens: []string{"", "1", "2", "3", "4"}},
		{name: "break early fetches no more pages", pageSize: 2, stopAfter: 3, wantPaths: five[:3], wantTokens: []string{"", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &pager{paths: five}
			c := startStub(t, &stubCatalog{listSkills: p.list}, nil)
			var got []string
			for s, err := range c.Skills(t.Context(), ListOptions{PageSize: tt.pageSize}) {
				if err != nil {
					t.Fatalf("Skills: %v", err)
				}
				got = append(got, s.GetSkillPath())
				if tt.stopAfter > 0 && len(got) == tt.stopAfter {
					break
				}
			}
			if diff := cmp.Diff(tt.wantPaths, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTokens, p.tokens()); diff != "" {
				t.Errorf("page tokens requested (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSkillsForwardsOptions(t *testing.T) {
	p := &pager{paths: []string{"a"}}
	c := startStub(t, &stubCatalog{listSkills: p.list}, nil)
	opts := ListOptions{Query: "pdf", Category: "docs", Tags: []string{"x", "y"}, IncludeBody: true, RoutableOnly: true, PageSize: 7}
	for _, err := range c.Skills(t.Context(), opts) {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := &skillsv1.ListSkillsRequest{PageSize: 7, Query: "pdf", Category: "docs", Tags: []string{"x", "y"}, IncludeBody: true, RoutableOnly: true}
	if diff := cmp.Diff(want, p.requests[0], protocmp.Transform()); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestSkillsErrorEndsSequence(t *testing.T) {
	p := &pager{paths: []string{"a", "b", "c", "d", "e"}, failAt: "2"}
	c := startStub(t, &stubCatalog{listSkills: p.list}, nil)
	var got []string
	var errs []error
	for s, err := range c.Skills(t.Context(), ListOptions{PageSize: 2}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, s.GetSkillPath())
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("paths before the error (-want +got):\n%s", diff)
	}
	if len(errs) != 1 {
		t.Fatalf("got %d errors, want 1: %v", len(errs), errs)
	}
	var e *Error
	if !errors.As(errs[0], &e) || e.Code != codes.Unavailable {
		t.Errorf("got error %v, want an *Error with code Unavailable", errs[0])
	}
}

func TestSkillsRepeatedTokenStops(t *testing.T) {
	list := func(context.Context, *skillsv1.ListSkillsRequest) (*skillsv1.ListSkillsResponse, error) {
		return &skillsv1.ListSkillsResponse{Skills: []*skillsv1.Skill{{SkillPath: "a"}}, NextPageToken: "same"}, nil
	}
	c := startStub(t, &stubCatalog{listSkills: list}, nil)
	n, failed := 0, false
	for _, err := range c.Skills(t.Context(), ListOptions{}) {
		if err != nil {
			failed = true
			break
		}
		if n++; n > 10 {
			t.Fatal("Skills loops on a repeated page token")
		}
	}
	if !failed {
		t.Error("got no error for a repeated page token")
	}
}

func TestSkillNotFound(t *testing.T) {
	get := func(_ context.Context, r *skillsv1.GetSkillRequest) (*skillsv1.GetSkillResponse, error) {
		if !r.GetSkipCache() {
			return nil, status.Error(codes.Internal, "skip_cache not forwarded")
		}
		return nil, statusWithInfo(t, codes.NotFound, `skill "pfd" not found; did you mean "pdf"?`, "SKILL_NOT_FOUND",
			map[string]string{"skill_path": r.GetSkillPath(), "suggestions": "pdf,pptx"}).Err()
	}
	c := startStub(t, &stubCatalog{getSkill: get}, nil)
	_, err := c.Skill(t.Context(), "pfd", SkipCache())
	if !errors.Is(err, ErrSkillNotFound) {
		t.Fatalf("got %v, want ErrSkillNotFound", err)
	}
	if !IsNotFound(err) {
		t.Errorf("IsNotFound(%v) = false", err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("errors.As(%T) failed", err)
	}
	if diff := cmp.Diff([]string{"pdf", "pptx"}, e.Suggestions()); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
	if got := e.Metadata["skill_path"]; got != "pfd" {
		t.Errorf("metadata skill_path = %q, want %q", got, "pfd")
	}
}

func TestUnimplementedSurfaces(t *testing.T) {
	c := startStub(t, nil, nil)
	calls := map[string]func(context.Context) error{
		"Skill":       func(ctx context.Context) error { _, err := c.Skill(ctx, "x"); return err },
		"Tree":        func(ctx context.Context) error { _, err := c.Tree(ctx, ""); return err },
		"Diagnostics": func(ctx context.Context) error { _, err := c.Diagnostics(ctx, DiagnosticsOptions{}); return err },
		"Status":      func(ctx context.Context) error { _, err := c.Status(ctx); return err },
		"Refresh":     func(ctx context.Context) error { _, err := c.Refresh(ctx); return err },
		"Search":      func(ctx context.Context) error { _, err := c.Search(ctx, "q", SearchOptions{}); return err },
		"Match":       func(ctx context.Context) error { _, err := c.Match(ctx, "q"); return err },
		"ReadFile":    func(ctx context.Context) error { _, err := c.ReadFile(ctx, "x", "f", ReadOptions{}); return err },
		"ReadAll":     func(ctx context.Context) error { _, err := c.ReadAll(ctx, "x", "f"); return err },
		"RunScript":   func(ctx context.Context) error { _, err := c.RunScript(ctx, "x", "f", RunOptions{}); return err },
		"ReportUsage": func(ctx context.Context) error { _, err := c.ReportUsage(ctx, "x", true, ""); return err },
		"UsageStats":  func(ctx context.Context) error { _, err := c.UsageStats(ctx, UsageOptions{}); return err },
		"Ingest":      func(ctx context.Context) error { _, err := c.IngestEvents(ctx, nil); return err },
		"Agents":      func(ctx context.Context) error { _, err := c.Agents(ctx); return err },
		"Agent":       func(ctx context.Context) error { _, err := c.Agent(ctx, "a"); return err },
		"Docs":        func(ctx context.Context) error { _, err := c.Docs(ctx); return err },
		"Doc":         func(ctx context.Context) error { _, err := c.Doc(ctx, "a/b"); return err },
		"Skills": func(ctx context.Context) error {
			for _, err := range c.Skills(ctx, ListOptions{}) {
				return err
			}
			return nil
		},
		"Watch": func(ctx context.Context) error {
			for _, err := range c.Watch(ctx) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call(t.Context())
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if e.Code != codes.Unimplemented || !IsUnimplemented(err) {
				t.Errorf("got code %v, want Unimplemented", e.Code)
			}
		})
	}
}

func TestWatch(t *testing.T) {
	watch := func(_ *skillsv1.WatchCatalogRequest, st grpc.ServerStreamingServer[skillsv1.WatchCatalogResponse]) error {
		for g := int64(1); g <= 3; g++ {
			if err := st.Send(&skillsv1.WatchCatalogResponse{Generation: g, Initial: g == 1}); err != nil {
				return err
			}
		}
		return nil
	}
	c := startStub(t, &stubCatalog{watch: watch}, nil)
	var gens []int64
	for msg, err := range c.Watch(t.Context()) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		gens = append(gens, msg.GetGeneration())
	}
	if diff := cmp.Diff([]int64{1, 2, 3}, gens); diff != "" {
		t.Errorf("generations (-want +got):\n%s", diff)
	}
}

func TestWatchEndsWithContext(t *testing.T) {
	sent := make(chan struct{})
	watch := func(_ *skillsv1.WatchCatalogRequest, st grpc.ServerStreamingServer[skillsv1.WatchCatalogResponse]) error {
		if err := st.Send(&skillsv1.WatchCatalogResponse{Generation: 1, Initial: true}); err != nil {
			return err
		}
		close(sent)
		<-st.Context().Done()
		return st.Context().Err()
	}
	c := startStub(t, &stubCatalog{watch: watch}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	for _, err := range c.Watch(ctx) {
		if err != nil {
			t.Fatalf("got error %v after cancel, want the sequence to end quietly", err)
		}
		n++
		<-sent
		cancel()
	}
	if n != 1 {
		t.Errorf("got %d messages, want 1", n)
	}
}

func TestReadAll(t *testing.T) {
	content := "0123456789abcdefghij"
	read := func(_ context.Context, r *skillsv1.ReadSkillFileRequest) (*skillsv1.ReadSkillFileResponse, error) {
		const page = 6
		end := min(int(r.GetOffset())+page, len(content))
		resp := &skillsv1.ReadSkillFileResponse{
			SkillPath: r.GetSkillPath(), File: r.GetFile(), Text: content[r.GetOffset():end], SizeBytes: int64(len(content)),
		}
		if end < len(content) {
			resp.Truncated, resp.NextOffset = true, int64(end)
		}
		return resp, nil
	}
	c := startStub(t, nil, &stubFiles{read: read})
	got, err := c.ReadAll(t.Context(), "pdf", "reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != content {
		t.Errorf("got %q, want %q", got, content)
	}
}

func TestReadAllStalledOffset(t *testing.T) {
	read := func(context.Context, *skillsv1.ReadSkillFileRequest) (*skillsv1.ReadSkillFileResponse, error) {
		return &skillsv1.ReadSkillFileResponse{Text: "x", Truncated: true, NextOffset: 0}, nil
	}
	c := startStub(t, nil, &stubFiles{read: read})
	if _, err := c.ReadAll(t.Context(), "pdf", "f"); err == nil {
		t.Error("got no error for a server that does not advance")
	}
}

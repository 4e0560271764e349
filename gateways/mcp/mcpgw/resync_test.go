package mcpgw

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// serveSkillsd serves a skillsd over root on lis until the returned stop is
// called.
func serveSkillsd(t *testing.T, root string, lis net.Listener) (stop func()) {
	t.Helper()
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, NoWatch: true, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = srv.Serve(t.Context(), lis); close(done) }()
	return func() { _ = srv.Close(); <-done }
}

// TestSurfacesRemoteRestartSameGeneration: a remote skillsd restarts and
// its new process serves another catalog at the generation the gateway's
// index was built at; with no watch to say so, the next resources/list
// still serves the new catalog (the snapshot's build time tells them apart).
func TestSurfacesRemoteRestartSameGeneration(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	stop := serveSkillsd(t, root, lis)
	defer func() { stop() }()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.WaitForReady(true)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	cat := skillsv1.NewCatalogServiceClient(conn)
	st1, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectClient(t, conn) // no CatalogWatch: only the per-request check
	if uris := resourceURIs(t, cs); !slices.Equal(uris, []string{"skill://pdf/SKILL.md"}) {
		t.Fatalf("resources before the restart: %v", uris)
	}

	stop()
	writeSkill(t, root, "docx", "docx", "editing Word documents")
	var lis2 net.Listener
	for range 50 {
		if lis2, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lis2 == nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	stop = serveSkillsd(t, root, lis2)
	st2, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st2.GetGeneration() != st1.GetGeneration() || st2.GetSkillCount() != 2 {
		t.Fatalf("restarted service: generation %d with %d skills; the test needs generation %d (the first one's) and 2 skills",
			st2.GetGeneration(), st2.GetSkillCount(), st1.GetGeneration())
	}
	want := []string{"skill://docx/SKILL.md", "skill://pdf/SKILL.md"}
	if uris := resourceURIs(t, cs); !slices.Equal(uris, want) {
		t.Errorf("resources after the restart at the same generation: %v, want %v", uris, want)
	}
}

// newSurfaces builds the surfaces of a server over conn, as New does.
func newSurfaces(t *testing.T, conn grpc.ClientConnInterface) *surfaces {
	t.Helper()
	g := newGateway(core.New(conn, slog.New(slog.DiscardHandler), 10*time.Second), nil)
	g.Tools = map[string]bool{core.ToolListSkills: true}
	s := &surfaces{g: g}
	opts := &mcp.ServerOptions{}
	s.configure(opts)
	if err := s.install(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, opts)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSurfacesResyncDropsIndex: a resync heard from the watch drops the
// index at once (before the change is applied), so the next request
// rebuilds it even at the same generation and build time; an index built
// after a watched change learns its build time from the next request.
func TestSurfacesResyncDropsIndex(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	s := newSurfaces(t, conn)
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	gen, builtAt := st.GetGeneration(), st.GetBuiltAt().AsTime()

	idx1, err := s.current(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.serving(gen, builtAt) != idx1 {
		t.Fatal("the index just built is not served")
	}
	if s.serving(gen, builtAt.Add(time.Nanosecond)) != nil {
		t.Error("an index is served for another snapshot at the same generation")
	}
	if again, err := s.current(t.Context()); err != nil || again != idx1 {
		t.Errorf("a second request rebuilt the index (%v)", err)
	}

	// The watch's context has ended, so the change is never applied: only
	// the drop can make the next request rebuild.
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	s.catalogChanged(ended, CatalogChange{Generation: gen, Resync: true})
	if s.serving(gen, builtAt) != nil {
		t.Fatal("the index is still served after a resync")
	}
	idx2, err := s.current(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if idx2 == idx1 || s.serving(gen, builtAt) != idx2 || idx2.all["pdf"] == nil {
		t.Errorf("after a resync the next request did not rebuild the index (same: %v, skills %v)", idx2 == idx1, idx2.all)
	}

	// A change applied from the watch (no build time): the next request at
	// that generation adopts its build time, and serves it.
	s.buildMu.Lock()
	idx3, err := s.rebuild(t.Context(), gen, time.Time{}, func(string) bool { return true })
	s.buildMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.current(t.Context()); err != nil || got != idx3 {
		t.Errorf("the index built from a watched change was not served (%v)", err)
	}
	if s.serving(gen, builtAt.Add(time.Nanosecond)) != nil {
		t.Error("after adopting a build time, an index is served for another snapshot")
	}
}

// TestWatchKeepsEarlierSubscribeHandlers: the watch wraps subscribe handlers
// set before it (New configures the surfaces, then the watch), and a server
// from New advertises resources.subscribe.
func TestWatchKeepsEarlierSubscribeHandlers(t *testing.T) {
	var subs, unsubs int
	opts := &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { subs++; return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { unsubs++; return nil },
	}
	w := NewCatalogWatch()
	w.configure(opts)
	uri := "skill://pdf/SKILL.md"
	if err := opts.SubscribeHandler(t.Context(), &mcp.SubscribeRequest{Params: &mcp.SubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	if subs != 1 || w.subs[uri] == nil || w.subs[uri].count != 1 {
		t.Errorf("subscribe: earlier handler ran %d times, watch holds %+v; want 1 and a count of 1", subs, w.subs[uri])
	}
	if err := opts.UnsubscribeHandler(t.Context(), &mcp.UnsubscribeRequest{Params: &mcp.UnsubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	if unsubs != 1 || len(w.subs) != 0 {
		t.Errorf("unsubscribe: earlier handler ran %d times, watch holds %v; want 1 and none", unsubs, w.subs)
	}

	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	cs, _, w2 := watchedClient(t, conn, "")
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged || caps.Prompts == nil {
		t.Fatalf("capabilities: %+v", caps)
	}
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// On protocol 2026-07-28 a subscription is a stream the client opens
	// after Subscribe returns: wait for the watch to hear of it.
	deadline := time.Now().Add(2 * time.Second)
	for {
		w2.mu.Lock()
		n := 0
		if sub := w2.subs[uri]; sub != nil {
			n = sub.count
		}
		w2.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 s after a client subscribed, the watch counts %d subscriptions to %s; want 1", n, uri)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

package mcpgw

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// notes collects the notifications a client receives.
type notes struct {
	mu      sync.Mutex
	kinds   []string
	updated []string
	signal  chan struct{}
}

func newNotes() *notes { return &notes{signal: make(chan struct{}, 100)} }

func (n *notes) add(kind, uri string) {
	n.mu.Lock()
	n.kinds = append(n.kinds, kind)
	if uri != "" {
		n.updated = append(n.updated, uri)
	}
	n.mu.Unlock()
	n.signal <- struct{}{}
}

// waitFor waits up to 2 s for a notification of kind (and uri, if set).
func (n *notes) waitFor(t *testing.T, kind, uri string) {
	t.Helper()
	deadline := time.After(2 * time.Second)
	for {
		n.mu.Lock()
		ok := slices.Contains(n.kinds, kind) && (uri == "" || slices.Contains(n.updated, uri))
		n.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-n.signal:
		case <-deadline:
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no %s %s within 2 s; got %v %v", kind, uri, n.kinds, n.updated)
		}
	}
}

func (n *notes) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.kinds, n.updated = nil, nil
}

// watchedClient runs New with a CatalogWatch over conn, and connects a client
// speaking protocol (empty: the latest) that records notifications.
func watchedClient(t *testing.T, conn grpc.ClientConnInterface, protocol string) (*mcp.ClientSession, *notes, *CatalogWatch) {
	t.Helper()
	w := NewCatalogWatch()
	server, err := New(conn, Options{Version: "1.2.3", CatalogWatch: w})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	n := newNotes()
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "0"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { n.add("resources/list_changed", "") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { n.add("prompts/list_changed", "") },
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { n.add("tools/list_changed", "") },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			n.add("resources/updated", r.Params.URI)
		},
	})
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, n, w
}

func writeSkill(t *testing.T, root, dir, name, desc string) {
	t.Helper()
	writeFile(t, filepath.Join(root, filepath.FromSlash(dir), "SKILL.md"), skillstest.SkillMD(name, desc))
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var uris []string
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	return uris
}

func TestCatalogWatchNotifies(t *testing.T) {
	for _, protocol := range []string{"", "2025-06-18"} {
		name := protocol
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
			conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: 50 * time.Millisecond})
			cs, n, w := watchedClient(t, conn, protocol)
			heard := make(chan CatalogChange, 10)
			w.OnChange(func(_ context.Context, c CatalogChange) { heard <- c })

			if uris := resourceURIs(t, cs); !slices.Contains(uris, "skill://pdf/SKILL.md") {
				t.Fatalf("resources: %v", uris)
			}
			if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "skill://pdf/SKILL.md"}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // the subscription is set up asynchronously on the latest protocol

			writeSkill(t, root, "docx", "docx", "editing Word documents")
			n.waitFor(t, "resources/list_changed", "")
			select {
			case c := <-heard:
				if !slices.Equal(c.Added, []string{"docx"}) || c.Resync {
					t.Errorf("listener: got %+v, want docx added", c)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("listener not called")
			}
			if uris := resourceURIs(t, cs); !slices.Contains(uris, "skill://docx/SKILL.md") {
				t.Errorf("resources after add: %v", uris)
			}

			n.reset()
			writeSkill(t, root, "pdf", "pdf", "reading and splitting PDF documents")
			n.waitFor(t, "resources/updated", "skill://pdf/SKILL.md")

			n.reset()
			if err := os.RemoveAll(filepath.Join(root, "docx")); err != nil {
				t.Fatal(err)
			}
			n.waitFor(t, "resources/list_changed", "")
			waitResources(t, cs, func(uris []string) bool { return !slices.Contains(uris, "skill://docx/SKILL.md") }, "docx gone")
			n.mu.Lock()
			if slices.Contains(n.kinds, "tools/list_changed") {
				t.Errorf("tools/list_changed sent, but the native tools do not depend on the catalog")
			}
			n.mu.Unlock()
		})
	}
}

// TestCatalogWatchReconnects serves skillsd on a real loopback port, stops it,
// and starts another on the same port with another catalog: the watch opens
// the stream again and the client is told the lists changed.
func TestCatalogWatchReconnects(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	serve := func(lis net.Listener) (stop func()) {
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, NoWatch: true, Cwd: t.TempDir(), Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = srv.Serve(t.Context(), lis); close(done) }()
		return func() { _ = srv.Close(); <-done }
	}
	stop := serve(lis)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	cs, n, w := watchedClient(t, conn, "")
	heard := make(chan CatalogChange, 10)
	w.OnChange(func(_ context.Context, c CatalogChange) { heard <- c })
	if uris := resourceURIs(t, cs); !slices.Contains(uris, "skill://pdf/SKILL.md") {
		t.Fatalf("resources: %v", uris)
	}
	time.Sleep(200 * time.Millisecond) // let the watch open its stream

	stop()
	writeSkill(t, root, "docx", "docx", "editing Word documents")
	writeSkill(t, root, "xlsx", "xlsx", "spreadsheets")
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
	// Another server, at the same generation as the first one: the watch
	// reports a resync all the same, since it may have missed changes.
	stop2 := func() {}
	defer func() { stop2() }()
	srv2, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, NoWatch: true, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// Its generation moves past the first server's, so that caches keyed by
	// generation see the change too.
	conn2, err := srv2.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	writeSkill(t, root, "xlsx", "xlsx", "spreadsheets and charts")
	if _, err := skillsv1.NewCatalogServiceClient(conn2).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = srv2.Serve(t.Context(), lis2); close(done) }()
	stop2 = func() { _ = srv2.Close(); <-done }

	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-heard:
			if !c.Resync {
				continue
			}
			n.waitFor(t, "resources/list_changed", "")
			waitResources(t, cs, func(uris []string) bool { return slices.Contains(uris, "skill://docx/SKILL.md") }, "docx listed after reconnect")
			return
		case <-deadline:
			t.Fatal("no resync within 10 s of the server coming back")
		}
	}
}

// waitResources lists the resources until ok accepts them, for up to 2 s.
func waitResources(t *testing.T, cs *mcp.ClientSession, ok func([]string) bool, what string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		uris := resourceURIs(t, cs)
		if ok(uris) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: resources %v after 2 s", what, uris)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRefreshSkillsTool(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	cs := connectClient(t, conn)
	writeSkill(t, root, "docx", "docx", "editing Word documents")
	_, text := callTool(t, cs, toolRefreshSkills, map[string]any{})
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"success": true, "mode": "local", "skills_reindexed": float64(2),
		"message": "Reindexed from local directory (no git sync configured)."}
	if len(got) != len(want) {
		t.Errorf("refresh_skills: got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("refresh_skills %s: got %v, want %v", k, got[k], v)
		}
	}
	// The new skill is served.
	if _, text := callTool(t, cs, toolLoadSkill, map[string]any{"name": "docx"}); text == "" {
		t.Errorf("load_skill docx after refresh: empty")
	}
}

func TestCatalogWatchRunBeforeNew(t *testing.T) {
	if err := NewCatalogWatch().Run(t.Context()); err == nil {
		t.Errorf("Run before New: got no error")
	}
}

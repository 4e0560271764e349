package mcpgw

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// notes collects the notifications a client receives.
type notes struct {
	mu      sync.Mutex
	kinds   []string
	at      []time.Time // when each of kinds arrived
	updated []string
	signal  chan struct{}
}

func newNotes() *notes { return &notes{signal: make(chan struct{}, 100)} }

func (n *notes) add(kind, uri string) {
	n.mu.Lock()
	n.kinds = append(n.kinds, kind)
	n.at = append(n.at, time.Now())
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
	n.kinds, n.at, n.updated = nil, nil, nil
}

// count returns how many notifications of kind arrived, and when the first
// did.
func (n *notes) count(kind string) (int, time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var first time.Time
	c := 0
	for i, k := range n.kinds {
		if k == kind {
			if c == 0 {
				first = n.at[i]
			}
			c++
		}
	}
	return c, first
}

// all returns the kinds and updated URIs received.
func (n *notes) all() ([]string, []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.kinds), slices.Clone(n.updated)
}

// watchedClient runs New with a CatalogWatch over conn, and connects a client
// speaking protocol (empty: the latest) that records notifications.
func watchedClient(t *testing.T, conn grpc.ClientConnInterface, protocol string) (*mcp.ClientSession, *notes, *CatalogWatch) {
	t.Helper()
	server, w := watchedServer(t, conn, Options{Version: "1.2.3"})
	cs, n := connectNoted(t, server, protocol)
	return cs, n, w
}

// watchedServer runs New with opts and a CatalogWatch over conn, and runs
// the watch until the test ends.
func watchedServer(t *testing.T, conn grpc.ClientConnInterface, opts Options) (*mcp.Server, *CatalogWatch) {
	t.Helper()
	w := NewCatalogWatch()
	opts.CatalogWatch = w
	server, err := New(conn, opts)
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
	return server, w
}

// connectNoted connects a client speaking protocol (empty: the latest) to
// server, recording the notifications it receives.
func connectNoted(t *testing.T, server *mcp.Server, protocol string) (*mcp.ClientSession, *notes) {
	t.Helper()
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
	return cs, n
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
	_, text := callTool(t, cs, core.ToolRefreshSkills, map[string]any{})
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
	if _, text := callTool(t, cs, core.ToolLoadSkill, map[string]any{"name": "docx"}); text == "" {
		t.Errorf("load_skill docx after refresh: empty")
	}
}

func TestCatalogWatchRunBeforeNew(t *testing.T) {
	if err := NewCatalogWatch().Run(t.Context()); err == nil {
		t.Errorf("Run before New: got no error")
	}
}

// notifyDebounce is the watch debounce of the notification tests; the
// contract is a notification within the debounce plus 100 ms of the change.
const notifyDebounce = 50 * time.Millisecond

// notedClient is one client of TestCatalogWatchNotifiesEverySession.
type notedClient struct {
	name string
	cs   *mcp.ClientSession
	n    *notes
}

// TestCatalogWatchNotifiesEverySession: after a catalog change every session
// hears notifications/resources/list_changed and
// notifications/prompts/list_changed exactly once, whether or not it has
// listed resources or prompts, on an old protocol and on the latest (where
// they come on the client's listen stream), also on a server none of whose
// clients ever listed anything (the reported defect: such a server
// registered nothing, so nothing was sent); a client's first list tells no
// one anything; and a subscriber hears resources/updated only for the file
// whose content changed.
func TestCatalogWatchNotifiesEverySession(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	writeFile(t, filepath.Join(root, "pdf", "reference.md"), "# pypdf\n")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: notifyDebounce})
	server, _ := watchedServer(t, conn, Options{Version: "1.2.3"})
	unlisted, _ := watchedServer(t, conn, Options{Version: "1.2.3"}) // no client of it lists anything
	var clients []notedClient
	for _, protocol := range []string{"2025-06-18", ""} {
		for _, role := range []string{"listed", "idle"} {
			cs, n := connectNoted(t, server, protocol)
			clients = append(clients, notedClient{name: role + "@" + cmpOr(protocol, "latest"), cs: cs, n: n})
		}
		cs, n := connectNoted(t, unlisted, protocol)
		clients = append(clients, notedClient{name: "alone@" + cmpOr(protocol, "latest"), cs: cs, n: n})
	}
	caps := clients[0].cs.InitializeResult().Capabilities
	if !caps.Resources.ListChanged || !caps.Prompts.ListChanged || !caps.Resources.Subscribe {
		t.Fatalf("capabilities: resources %+v, prompts %+v; want listChanged and subscribe", caps.Resources, caps.Prompts)
	}
	if caps.Tools == nil || caps.Tools.ListChanged {
		t.Errorf("capabilities: tools %+v; want tools without listChanged (the native tools never change)", caps.Tools)
	}
	for _, c := range clients {
		if !strings.HasPrefix(c.name, "listed") {
			continue
		}
		if uris := resourceURIs(t, c.cs); !slices.Contains(uris, "skill://pdf/SKILL.md") {
			t.Fatalf("%s: resources %v", c.name, uris)
		}
		if _, err := c.cs.ListPrompts(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // the watch's stream and the latest protocol's listen streams open
	for _, c := range clients {
		if kinds, _ := c.n.all(); len(kinds) > 0 {
			t.Errorf("%s: the first lists, with the catalog unchanged, sent %v", c.name, kinds)
		}
		c.n.reset()
	}

	// Add a skill.
	start := time.Now()
	writeSkill(t, root, "docx", "docx", "editing Word documents")
	checkOncePerChange(t, clients, start)

	// Change one file of a skill that has a subscriber of two of its files.
	listed := clients[0].cs
	for _, uri := range []string{"skill://pdf/SKILL.md", "skill://pdf/reference.md", "skill://docx/SKILL.md"} {
		if err := listed.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clients {
		c.n.reset()
	}
	start = time.Now()
	writeSkill(t, root, "pdf", "pdf", "reading and splitting PDF documents")
	clients[0].n.waitFor(t, "resources/updated", "skill://pdf/SKILL.md")
	checkOncePerChange(t, clients, start)
	if _, updated := clients[0].n.all(); !slices.Equal(updated, []string{"skill://pdf/SKILL.md"}) {
		t.Errorf("resources/updated for %v; want only skill://pdf/SKILL.md, the one file that changed", updated)
	}

	// Remove a skill: its subscribed file went away.
	for _, c := range clients {
		c.n.reset()
	}
	start = time.Now()
	if err := os.RemoveAll(filepath.Join(root, "docx")); err != nil {
		t.Fatal(err)
	}
	clients[0].n.waitFor(t, "resources/updated", "skill://docx/SKILL.md")
	checkOncePerChange(t, clients, start)
}

// checkOncePerChange checks that every client heard one
// notifications/resources/list_changed and one
// notifications/prompts/list_changed after the change made at start, the
// first within the debounce plus 100 ms (400 ms under the race detector), and nothing of the tools.
func checkOncePerChange(t *testing.T, clients []notedClient, start time.Time) {
	t.Helper()
	for _, c := range clients {
		c.n.waitFor(t, "resources/list_changed", "")
		c.n.waitFor(t, "prompts/list_changed", "")
	}
	time.Sleep(300 * time.Millisecond) // room for duplicates to arrive
	within := notifyDebounce + 100*time.Millisecond
	if raceEnabled {
		within = notifyDebounce + 400*time.Millisecond
	}
	for _, c := range clients {
		for _, kind := range []string{"resources/list_changed", "prompts/list_changed"} {
			count, first := c.n.count(kind)
			if count != 1 {
				t.Errorf("%s: %d × %s for one change; want 1", c.name, count, kind)
			}
			if took := first.Sub(start); took > within {
				t.Errorf("%s: %s %v after the change; want within %v", c.name, kind, took.Round(time.Millisecond), within)
			} else {
				t.Logf("%s: %s %v after the change", c.name, kind, took.Round(time.Millisecond))
			}
		}
		if count, _ := c.n.count("tools/list_changed"); count != 0 {
			t.Errorf("%s: tools/list_changed sent, but the native tools do not depend on the catalog", c.name)
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestUniversalToolListChanged: the universal-skills profile's one tool lists
// the skills in its description, so with a watch it declares
// tools.listChanged and sends notifications/tools/list_changed once when a
// change alters that description, and not when a change leaves it as it was
// (an edited body); without a watch it declares nothing it cannot keep.
func TestUniversalToolListChanged(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf", "pdf", "reading PDF documents")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: notifyDebounce})
	server, _ := watchedServer(t, conn, Options{Version: "1.2.3", Profile: ProfileUniversalSkills})
	cs, n := connectNoted(t, server, "2025-06-18")
	if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Fatalf("capabilities: tools %+v; want listChanged", caps.Tools)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	n.reset()

	writeSkill(t, root, "docx", "docx", "editing Word documents")
	n.waitFor(t, "tools/list_changed", "")
	time.Sleep(300 * time.Millisecond)
	if c, _ := n.count("tools/list_changed"); c != 1 {
		t.Errorf("%d × tools/list_changed for one change; want 1", c)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 1 || !strings.Contains(tools.Tools[0].Description, "<name>docx</name>") {
		t.Fatalf("tools/list after the change: %v %+v", err, tools)
	}

	n.reset()
	writeFile(t, filepath.Join(root, "docx", "SKILL.md"), skillstest.SkillMD("docx", "editing Word documents")+"\nMore detail.\n")
	n.waitFor(t, "prompts/list_changed", "")
	time.Sleep(300 * time.Millisecond)
	if c, _ := n.count("tools/list_changed"); c != 0 {
		t.Errorf("tools/list_changed sent for a change that left the tool's description as it was")
	}

	plain, err := New(conn, Options{Profile: ProfileUniversalSkills})
	if err != nil {
		t.Fatal(err)
	}
	cs2, _ := connectNoted(t, plain, "2025-06-18")
	caps := cs2.InitializeResult().Capabilities
	if caps.Tools != nil && caps.Tools.ListChanged || caps.Resources.ListChanged || caps.Prompts.ListChanged || caps.Resources.Subscribe {
		t.Errorf("without a watch: tools %+v resources %+v prompts %+v; want no listChanged nor subscribe", caps.Tools, caps.Resources, caps.Prompts)
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// watchDebounce is the file watcher's debounce of skillsd and of an embedded
// skills-mcp (the default: the binaries have no flag for it).
const watchDebounce = 500 * time.Millisecond

// notifyWithin is issue 17's bound: every session is told within the
// debounce plus 100 ms of the change.
const notifyWithin = watchDebounce + 100*time.Millisecond

// notifyClient is one MCP session of TestNotificationsEveryTransportAndMode.
type notifyClient struct {
	name   string
	d      *mcpDriver
	remote bool // its skills-mcp uses the skillsd the test watches
	listed bool // it lists resources and prompts, and subscribes to two files
}

// note is one notification the Node client received.
type note struct {
	Method string `json:"method"`
	URI    string `json:"uri"`
	At     int64  `json:"at"` // Unix milliseconds
}

func (c notifyClient) notes(t *testing.T) []note {
	t.Helper()
	var r struct {
		Notifications []note `json:"notifications"`
	}
	c.d.do(map[string]any{"op": "notifications"}, &r)
	return r.Notifications
}

// TestNotificationsEveryTransportAndMode drives skills-mcp with the official
// TypeScript SDK client on stdio and on Streamable HTTP, embedded and in
// front of a remote skillsd (--server): after each change of the skills
// folder every session, whether it has listed resources and prompts or not,
// receives one notifications/resources/list_changed and one
// notifications/prompts/list_changed within the debounce plus 100 ms, and
// nothing about tools (the native tools do not depend on the catalog); a
// subscriber receives notifications/resources/updated for the file that
// changed and not for the one that did not. Before issue 17 a session that
// had not listed resources heard nothing.
func TestNotificationsEveryTransportAndMode(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	writeSkillFile(t, dir, "pdf", skillstest.SkillMD("pdf", "reading PDF documents"))
	if err := os.WriteFile(filepath.Join(dir, "pdf", "reference.md"), []byte("# pypdf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpBin := binary(t, "skills-mcp")
	_, grpcAddr := startOnFreePort(t, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} }, grpcReady)

	// The swaps of the remote skillsd, as its own change stream tells them.
	conn := dialGRPC(t, grpcAddr)
	stream, err := skillsv1.NewCatalogServiceClient(conn).WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := stream.Recv(); err != nil || !first.GetInitial() {
		t.Fatalf("WatchCatalog: first message %v, %v", first, err)
	}
	swaps := make(chan time.Time, 16)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			swaps <- m.GetChangedAt().AsTime()
		}
	}()

	embeddedArgs := []string{"--skills-dir", dir}
	remoteArgs := []string{"--server", grpcAddr}
	var clients []notifyClient
	for _, mode := range []struct {
		name   string
		args   []string
		remote bool
	}{{"embedded", embeddedArgs, false}, {"remote", remoteArgs, true}} {
		// stdio: one skills-mcp per session, as a host starts it.
		for _, listed := range []bool{false, true} {
			args := []string{"--stdio", mcpBin}
			for _, a := range mode.args {
				args = append(args, "--arg", a)
			}
			clients = append(clients, notifyClient{name: fmt.Sprintf("stdio/%s/%s", mode.name, role(listed)), d: startDriver(t, args...), remote: mode.remote, listed: listed})
		}
		// Streamable HTTP: one skills-mcp, two sessions.
		_, addr := startOnFreePort(t, mcpBin, func(addr string) []string { return append(slices.Clone(mode.args), "--http", addr) }, httpReady("/readyz"))
		for _, listed := range []bool{false, true} {
			clients = append(clients, notifyClient{name: fmt.Sprintf("http/%s/%s", mode.name, role(listed)), d: startDriver(t, "--url", "http://"+addr+"/mcp"), remote: mode.remote, listed: listed})
		}
	}
	slices.SortFunc(clients, func(a, b notifyClient) int { return strings.Compare(a.name, b.name) })
	if len(clients) != 8 {
		t.Fatalf("%d clients started, want 8", len(clients))
	}

	for _, c := range clients {
		res, _ := c.d.caps["resources"].(map[string]any)
		prompts, _ := c.d.caps["prompts"].(map[string]any)
		tools, _ := c.d.caps["tools"].(map[string]any)
		if res["listChanged"] != true || res["subscribe"] != true || prompts["listChanged"] != true {
			t.Errorf("%s: capabilities resources %v, prompts %v; want listChanged (and subscribe)", c.name, res, prompts)
		}
		if tools["listChanged"] == true {
			t.Errorf("%s: capabilities tools %v; the native tools never change, so no listChanged", c.name, tools)
		}
		if !c.listed {
			continue
		}
		var r map[string]any
		c.d.do(map[string]any{"op": "resources"}, &r)
		c.d.do(map[string]any{"op": "prompts"}, &r)
		for _, uri := range []string{"skill://pdf/SKILL.md", "skill://pdf/reference.md"} {
			c.d.do(map[string]any{"op": "subscribe", "uri": uri}, &r)
			if r["ok"] != true {
				t.Fatalf("%s: subscribe %s: %v", c.name, uri, r)
			}
		}
	}
	time.Sleep(500 * time.Millisecond) // the change streams of the skills-mcp processes open
	for _, c := range clients {
		if n := c.notes(t); len(n) > 0 {
			t.Errorf("%s: notified with the catalog unchanged: %v", c.name, n)
		}
		c.d.clear()
	}

	// Add a skill, change one file of another, remove the first.
	steps := []struct {
		what    string
		change  func()
		updated []string // what the listed sessions hear
	}{
		{"add team/docx", func() { writeSkillFile(t, dir, "team/docx", skillstest.SkillMD("docx", "editing Word documents")) }, nil},
		{"edit pdf/SKILL.md", func() {
			writeSkillFile(t, dir, "pdf", skillstest.SkillMD("pdf", "reading and splitting PDF documents"))
		}, []string{"skill://pdf/SKILL.md"}},
		{"remove team/docx", func() {
			if err := os.RemoveAll(filepath.Join(dir, "team")); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, step := range steps {
		for len(swaps) > 0 {
			<-swaps
		}
		step.change()
		changed := time.Now()
		var swapped time.Time
		select {
		case swapped = <-swaps:
			t.Logf("%s: the remote skillsd swapped its catalog %v after the change", step.what, swapped.Sub(changed).Round(time.Millisecond))
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the remote skillsd did not swap its catalog", step.what)
		}
		for _, c := range clients {
			c.d.waitNote("notifications/resources/list_changed", "")
			c.d.waitNote("notifications/prompts/list_changed", "")
			for _, uri := range step.updated {
				if c.listed {
					c.d.waitNote("notifications/resources/updated", uri)
				}
			}
		}
		time.Sleep(400 * time.Millisecond) // room for duplicates to arrive
		for _, c := range clients {
			notes := c.notes(t)
			count := map[string]int{}
			var updated []string
			for _, n := range notes {
				count[n.Method]++
				if n.Method == "notifications/resources/updated" {
					updated = append(updated, n.URI)
				}
				if n.Method != "notifications/resources/list_changed" && n.Method != "notifications/prompts/list_changed" {
					continue
				}
				at := time.UnixMilli(n.At)
				took := at.Sub(changed)
				if took > notifyWithin {
					t.Errorf("%s, %s: %s %v after the change; want within %v", step.what, c.name, n.Method, took.Round(time.Millisecond), notifyWithin)
				}
				if c.remote {
					t.Logf("%s, %s: %s %v after the change, %v after the swap", step.what, c.name, n.Method, took.Round(time.Millisecond), at.Sub(swapped).Round(time.Millisecond))
				} else {
					t.Logf("%s, %s: %s %v after the change", step.what, c.name, n.Method, took.Round(time.Millisecond))
				}
			}
			if count["notifications/resources/list_changed"] != 1 || count["notifications/prompts/list_changed"] != 1 || count["notifications/tools/list_changed"] != 0 {
				t.Errorf("%s, %s: heard %v; want one resources and one prompts list_changed, no tools list_changed", step.what, c.name, count)
			}
			want := step.updated
			if !c.listed {
				want = nil
			}
			if !slices.Equal(updated, want) {
				t.Errorf("%s, %s: resources/updated for %v; want %v", step.what, c.name, updated, want)
			}
			c.d.clear()
		}
	}
}

func role(listed bool) string {
	if listed {
		return "listed"
	}
	return "idle"
}

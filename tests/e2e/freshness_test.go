package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// freshWithin is the bound: every surface answers the new catalog,
// and MCP clients have been told, within 2 s of a change.
const freshWithin = 2 * time.Second

// mcpDriver is a freshness-client.mjs process: one MCP session driven line
// by line.
type mcpDriver struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *syncBuffer
	// caps are the server's capabilities, as the client saw them.
	caps map[string]any
}

// startDriver starts the Node client with args (--stdio CMD --arg … or --url).
func startDriver(t *testing.T, args ...string) *mcpDriver {
	t.Helper()
	node, _ := requireNode(t)
	script := filepath.Join(repoRoot(t), "tests", "e2e", "node", "freshness-client.mjs")
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Env = cleanEnv(t)
	cmd.Dir = filepath.Dir(script)
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := &mcpDriver{t: t, cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout), stderr: &syncBuffer{}}
	d.lines.Buffer(make([]byte, 1<<20), 16<<20)
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		killGroup(cmd)
		if t.Failed() {
			t.Logf("node client stderr:\n%s", tail(d.stderr.String(), 4000))
		}
	})
	var ready struct {
		Ready        bool           `json:"ready"`
		Capabilities map[string]any `json:"capabilities"`
	}
	d.read(&ready)
	if !ready.Ready {
		t.Fatal("node client: not ready")
	}
	d.caps = ready.Capabilities
	return d
}

func (d *mcpDriver) read(v any) {
	d.t.Helper()
	done := make(chan bool, 1)
	go func() { done <- d.lines.Scan() }()
	select {
	case ok := <-done:
		if !ok {
			d.t.Fatalf("node client ended: %v\nstderr:\n%s", d.lines.Err(), tail(d.stderr.String(), 4000))
		}
	case <-time.After(nodeTimeout):
		d.t.Fatal("node client: no answer")
	}
	if err := json.Unmarshal(d.lines.Bytes(), v); err != nil {
		d.t.Fatalf("node client: decoding %q: %v", d.lines.Text(), err)
	}
}

// do sends one command and decodes its answer into v.
func (d *mcpDriver) do(cmd map[string]any, v any) {
	d.t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.stdin.Write(append(b, '\n')); err != nil {
		d.t.Fatal(err)
	}
	d.read(v)
}

// waitNote waits (up to freshWithin) for a notification and reports how
// long it took after the wait began.
func (d *mcpDriver) waitNote(method, uri string) {
	d.t.Helper()
	var r struct {
		OK    bool   `json:"ok"`
		MS    int    `json:"ms"`
		Error string `json:"error"`
	}
	d.do(map[string]any{"op": "wait", "method": method, "uri": uri, "timeoutMs": freshWithin.Milliseconds()}, &r)
	if !r.OK {
		var all map[string]any
		d.do(map[string]any{"op": "notifications"}, &all)
		d.t.Fatalf("MCP client: no %s %s within %v (got %v) %s", method, uri, freshWithin, all, r.Error)
	}
	d.t.Logf("MCP client: %s %s after waiting %d ms", method, uri, r.MS)
}

func (d *mcpDriver) clear() {
	var r map[string]any
	d.do(map[string]any{"op": "clear"}, &r)
}

type driverCall struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Text              string         `json:"text"`
	Error             string         `json:"error"`
}

func (d *mcpDriver) call(tool string, args map[string]any) driverCall {
	d.t.Helper()
	var c driverCall
	d.do(map[string]any{"op": "call", "tool": tool, "args": args}, &c)
	if c.Error != "" {
		d.t.Fatalf("MCP %s: %s", tool, c.Error)
	}
	return c
}

// eventually retries check until it passes or freshWithin has passed since
// start.
func eventually(t *testing.T, start time.Time, what string, check func() error) {
	t.Helper()
	for {
		err := check()
		if err == nil {
			t.Logf("%s: after %v", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > freshWithin {
			t.Fatalf("%s: not within %v of the change: %v", what, freshWithin, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// surfacesFind checks that gRPC, REST and both MCP clients see skill (or,
// with want false, that they do not), within freshWithin of start.
func surfacesFind(t *testing.T, start time.Time, cat skillsv1.CatalogServiceClient, rest string, mcps []*mcpDriver, skill string, want bool) {
	t.Helper()
	eventually(t, start, "gRPC GetSkill "+skill, func() error {
		_, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: skill})
		if found := err == nil; found != want {
			return errString("found " + boolWord(found) + ": " + status.Code(err).String())
		}
		if err != nil && status.Code(err) != codes.NotFound {
			return err
		}
		return nil
	})
	eventually(t, start, "REST GET /v1/skills/"+skill, func() error {
		resp, err := http.Get(rest + "/v1/skills/" + skill)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if found := resp.StatusCode == http.StatusOK; found != want {
			return errString("HTTP " + resp.Status)
		}
		return nil
	})
	for i, d := range mcps {
		eventually(t, start, "MCP load_skill "+skill+" (client "+string(rune('A'+i))+")", func() error {
			c := d.call("load_skill", map[string]any{"name": skill})
			if found := !c.IsError; found != want {
				return errString("isError " + boolWord(c.IsError) + ": " + c.Text)
			}
			return nil
		})
	}
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestFreshnessLocal runs skillsd on a folder, skills-rest and a remote-mode
// skills-mcp in front of it, and an embedded skills-mcp on the same folder:
// adding, changing and deleting a skill folder reaches every surface within
// 2 s, and both MCP clients are told.
func TestFreshnessLocal(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	writeSkillFile(t, dir, "pdf", skillstest.SkillMD("pdf", "reading PDF documents"))

	_, grpcAddr := startOnFreePort(t, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", dir} }, grpcReady)
	conn := dialGRPC(t, grpcAddr)
	cat := skillsv1.NewCatalogServiceClient(conn)
	_, httpAddr := startOnFreePort(t, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--server", grpcAddr, "--http", addr} }, httpReady("/readyz"))
	rest := "http://" + httpAddr

	remote := startDriver(t, "--stdio", binary(t, "skills-mcp"), "--arg", "--server", "--arg", grpcAddr)
	embedded := startDriver(t, "--stdio", binary(t, "skills-mcp"), "--arg", "--skills-dir", "--arg", dir)
	mcps := []*mcpDriver{remote, embedded}
	for _, d := range mcps {
		var r map[string]any
		d.do(map[string]any{"op": "subscribe", "uri": "skill://pdf/SKILL.md"}, &r)
		if r["ok"] != true {
			t.Fatalf("subscribe: %v", r)
		}
		// The gateways build their resource list on first use.
		d.do(map[string]any{"op": "resources"}, &r)
	}
	time.Sleep(300 * time.Millisecond) // let the change streams open
	for _, d := range mcps {
		d.clear() // the first resources/list registered the resources
	}

	// Add.
	start := time.Now()
	writeSkillFile(t, dir, "team/docx", skillstest.SkillMD("docx", "editing Word documents"))
	for _, d := range mcps {
		d.waitNote("notifications/resources/list_changed", "")
	}
	surfacesFind(t, start, cat, rest, mcps, "team/docx", true)

	// Change.
	for _, d := range mcps {
		d.clear()
	}
	start = time.Now()
	writeSkillFile(t, dir, "pdf", skillstest.SkillMD("pdf", "reading and splitting PDF documents"))
	for _, d := range mcps {
		d.waitNote("notifications/resources/updated", "skill://pdf/SKILL.md")
	}
	eventually(t, start, "gRPC sees the new pdf description", func() error {
		got, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"})
		if err != nil {
			return err
		}
		if !strings.Contains(got.GetSkill().GetDescription(), "splitting") {
			return errString("old description " + got.GetSkill().GetDescription())
		}
		return nil
	})
	for _, d := range mcps {
		if c := d.call("load_skill", map[string]any{"name": "pdf"}); !strings.Contains(c.Text, "splitting") {
			t.Errorf("MCP load_skill pdf after the change: %s", tail(c.Text, 300))
		}
	}

	// Delete. (Notifications of the change may still be on their way: let
	// them arrive before forgetting them.)
	time.Sleep(100 * time.Millisecond)
	for _, d := range mcps {
		d.clear()
	}
	start = time.Now()
	if err := os.RemoveAll(filepath.Join(dir, "team")); err != nil {
		t.Fatal(err)
	}
	for _, d := range mcps {
		d.waitNote("notifications/resources/list_changed", "")
		eventually(t, start, "MCP resources/list without docx", func() error {
			var r struct {
				URIs []string `json:"uris"`
			}
			d.do(map[string]any{"op": "resources"}, &r)
			if slices.Contains(r.URIs, "skill://team/docx/SKILL.md") {
				return errString("still listed")
			}
			return nil
		})
	}
	surfacesFind(t, start, cat, rest, mcps, "team/docx", false)
}

// TestFreshnessGit serves a git source: a push plus refresh_skills serves
// the new skill, and with the remote gone a restarted skillsd serves the
// cached catalog.
func TestFreshnessGit(t *testing.T) {
	skipShort(t)
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "reading PDF documents")})
	home := t.TempDir()
	const token = "ghp_e2eTokenNeverWritten0123456789abcdef"
	env := []string{"SKILLS_REPO=" + repo.URL(), "SKILLS_BRANCH=main", "SKILLSD_HOME=" + home, "GITHUB_TOKEN=" + token}

	proc, grpcAddr := startOnFreePortEnv(t, env, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr} }, grpcReady)
	d := startDriver(t, "--stdio", binary(t, "skills-mcp"), "--arg", "--server", "--arg", grpcAddr)

	c2 := repo.Commit("two", map[string]string{"skills/docx/SKILL.md": skillstest.SkillMD("docx", "editing Word documents")})
	res := d.call("refresh_skills", nil)
	sc := res.StructuredContent
	if res.IsError || sc["success"] != true || sc["mode"] != "git" || sc["commit_hash"] != c2 ||
		sc["files_changed"] != float64(1) || sc["skills_reindexed"] != float64(2) || sc["last_sync"] == nil {
		t.Fatalf("refresh_skills after a push: %s", res.Text)
	}
	if c := d.call("load_skill", map[string]any{"name": "docx"}); c.IsError {
		t.Errorf("load_skill docx after refresh: %s", c.Text)
	}

	// The remote goes away; skillsd restarts on the same state folder.
	proc.stop(t)
	if err := os.RemoveAll(repo.Dir()); err != nil {
		t.Fatal(err)
	}
	p2, addr2 := startOnFreePortEnv(t, env, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr} }, grpcReady)
	conn := dialGRPC(t, addr2)
	list, err := skillsv1.NewCatalogServiceClient(conn).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil || list.GetTotalSize() != 2 {
		t.Fatalf("skillsd with the remote gone: %d skills, %v; want the 2 cached", list.GetTotalSize(), err)
	}
	if !strings.Contains(p2.stderr.String(), "serving its cached checkout") {
		t.Errorf("no warning about the cached checkout in the log:\n%s", tail(p2.stderr.String(), 2000))
	}

	// grep -r <token> $SKILLSD_HOME finds nothing.
	err = filepath.WalkDir(home, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Type()&os.ModeSymlink != 0 { // a checkout link: its tree is walked too
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), token) {
			t.Errorf("the token is written in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeSkillFile(t *testing.T, root, dir, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(dir), "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

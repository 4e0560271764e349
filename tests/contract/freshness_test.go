package contract

import (
	"bufio"
	"encoding/json"
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

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	"github.com/skillsd/skillsd/gateways/rest/restgw"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// Refreshed is a refresh answer as every surface carries it (seed 000 §8.6).
// Commit and LastSync are compared as "set or not" where they change with
// each call.
type Refreshed struct {
	Success         bool   `json:"success"`
	Mode            string `json:"mode"`
	CommitHash      string `json:"commit_hash,omitempty"`
	FilesChanged    int    `json:"files_changed"`
	SkillsReindexed int    `json:"skills_reindexed"`
	HasLastSync     bool   `json:"has_last_sync"`
	Message         string `json:"message"`
}

// refresher is a surface's way to call RefreshSkills.
type refresher struct {
	name    string
	refresh func(t *testing.T) Refreshed
}

func refreshers(t *testing.T, conn *grpc.ClientConn) []refresher {
	t.Helper()
	cat := skillsv1.NewCatalogServiceClient(conn)
	h, err := restgw.New(t.Context(), conn, restgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rest := httptest.NewServer(h)
	t.Cleanup(rest.Close)
	server, err := mcpgw.New(conn, mcpgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "contract-freshness", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })

	return []refresher{
		{"grpc", func(t *testing.T) Refreshed {
			r, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			return Refreshed{Success: r.GetSuccess(), Mode: r.GetMode(), CommitHash: r.GetCommitHash(), FilesChanged: int(r.GetFilesChanged()),
				SkillsReindexed: int(r.GetSkillsReindexed()), HasLastSync: r.GetLastSync() != nil, Message: r.GetMessage()}
		}},
		{"rest", func(t *testing.T) Refreshed {
			resp, err := rest.Client().Post(rest.URL+"/v1/skills:refresh", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("POST /v1/skills:refresh: %s", resp.Status)
			}
			var body struct {
				Success         bool      `json:"success"`
				Mode            string    `json:"mode"`
				CommitHash      string    `json:"commit_hash"`
				FilesChanged    int       `json:"files_changed"`
				SkillsReindexed int       `json:"skills_reindexed"`
				LastSync        string    `json:"last_sync"`
				Message         string    `json:"message"`
				Generation      jsonInt64 `json:"generation"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			return Refreshed{Success: body.Success, Mode: body.Mode, CommitHash: body.CommitHash, FilesChanged: body.FilesChanged,
				SkillsReindexed: body.SkillsReindexed, HasLastSync: body.LastSync != "", Message: body.Message}
		}},
		{"mcp", func(t *testing.T) Refreshed {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refresh_skills", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("refresh_skills: %v", res.Content)
			}
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Success         bool   `json:"success"`
				Mode            string `json:"mode"`
				CommitHash      string `json:"commit_hash"`
				FilesChanged    *int   `json:"files_changed"`
				SkillsReindexed *int   `json:"skills_reindexed"`
				LastSync        string `json:"last_sync"`
				Message         string `json:"message"`
			}
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatal(err)
			}
			// Seed 000 §8.6: git mode has files_changed; local mode has not.
			if (body.FilesChanged != nil) != (body.Mode == "git") {
				t.Errorf("refresh_skills in %s mode: files_changed present %v", body.Mode, body.FilesChanged != nil)
			}
			if body.LastSync != "" {
				if _, err := time.Parse("2006-01-02T15:04:05.000Z", body.LastSync); err != nil {
					t.Errorf("refresh_skills last_sync %q is not seed 000's ISO 8601 with milliseconds", body.LastSync)
				}
			}
			out := Refreshed{Success: body.Success, Mode: body.Mode, CommitHash: body.CommitHash,
				HasLastSync: body.LastSync != "", Message: body.Message}
			if body.FilesChanged != nil {
				out.FilesChanged = *body.FilesChanged
			}
			if body.SkillsReindexed != nil {
				out.SkillsReindexed = *body.SkillsReindexed
			}
			return out
		}},
	}
}

func TestRefreshLocalEverySurface(t *testing.T) {
	root := t.TempDir()
	writeFreshSkill(t, root, "pdf", skillstest.SkillMD("pdf", "reading PDF documents"))
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	want := Refreshed{Success: true, Mode: "local", Message: "Reindexed from local directory (no git sync configured)."}
	for i, r := range refreshers(t, conn) {
		// Each surface finds the skill added just before its call.
		writeFreshSkill(t, root, "s"+string(rune('a'+i)), skillstest.SkillMD("s"+string(rune('a'+i)), "skill"))
		want.SkillsReindexed = i + 2
		if diff := cmp.Diff(want, r.refresh(t)); diff != "" {
			t.Errorf("%s: refresh (-want +got):\n%s", r.name, diff)
		}
	}
}

func TestRefreshGitEverySurface(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "reading PDF documents")})
	home := t.TempDir()
	conn := skillstest.Start(t, skillsd.Options{Getenv: func(k string) string {
		switch k {
		case "SKILLS_REPO":
			return repo.URL()
		case "SKILLSD_HOME":
			return home
		}
		return ""
	}})
	for i, r := range refreshers(t, conn) {
		// A push before each call: the refresh serves it.
		name := "s" + string(rune('a'+i))
		commit := repo.Commit(name, map[string]string{"skills/" + name + "/SKILL.md": skillstest.SkillMD(name, "skill "+name)})
		got := r.refresh(t)
		want := Refreshed{Success: true, Mode: "git", CommitHash: commit, FilesChanged: 1, SkillsReindexed: i + 2, HasLastSync: true,
			Message: "Synchronised the git sources (1 files changed) and reindexed " + itoa(i+2) + " skills."}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: refresh after a push (-want +got):\n%s", r.name, diff)
		}
	}
}

// freshNonNil is s, or [] for nil (proto does not tell them apart).
func freshNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func writeFreshSkill(t *testing.T, root, dir, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(dir), "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWatchCatalogREST reads the change stream through the REST gateway
// (grpc-gateway's newline-delimited JSON, one {"result": …} per change) and
// over gRPC, and checks that both carry the same changes.
func TestWatchCatalogREST(t *testing.T) {
	root := t.TempDir()
	writeFreshSkill(t, root, "pdf", skillstest.SkillMD("pdf", "reading PDF documents"))
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: 50 * time.Millisecond})
	h, err := restgw.New(t.Context(), conn, restgw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v1/catalog:watch", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/catalog:watch: %s", resp.Status)
	}
	grpcStream, err := skillsv1.NewCatalogServiceClient(conn).WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}

	type change struct {
		Generation jsonInt64 `json:"generation"`
		Added      []string  `json:"added"`
		Changed    []string  `json:"changed"`
		Removed    []string  `json:"removed"`
		Initial    bool      `json:"initial"`
	}
	lines := make(chan change, 10)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var msg struct {
				Result *change          `json:"result"`
				Error  *json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.Result == nil {
				t.Errorf("REST stream line %q: %v", sc.Text(), err)
				return
			}
			lines <- *msg.Result
		}
	}()
	next := func(what string) change {
		t.Helper()
		select {
		case c, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the REST stream ended", what)
			}
			return c
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: nothing on the REST stream within 2 s", what)
		}
		return change{}
	}
	fromGRPC := func(what string) change {
		t.Helper()
		m, err := grpcStream.Recv()
		if err != nil {
			t.Fatalf("%s: gRPC stream: %v", what, err)
		}
		return change{Generation: jsonInt64(m.GetGeneration()), Added: freshNonNil(m.GetAdded()), Changed: freshNonNil(m.GetChanged()),
			Removed: freshNonNil(m.GetRemoved()), Initial: m.GetInitial()}
	}

	first := next("initial")
	if !first.Initial || first.Generation < 1 || first.Added == nil {
		t.Errorf("initial REST message: %+v; want initial, generation >= 1, [] lists", first)
	}
	if g := fromGRPC("initial"); g.Generation != first.Generation || !g.Initial {
		t.Errorf("initial: gRPC %+v, REST %+v", g, first)
	}

	writeFreshSkill(t, root, "docx", skillstest.SkillMD("docx", "editing Word documents"))
	added := next("add")
	want := change{Generation: first.Generation + 1, Added: []string{"docx"}, Changed: []string{}, Removed: []string{}}
	if diff := cmp.Diff(want, added); diff != "" {
		t.Errorf("REST change after adding docx (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, fromGRPC("add")); diff != "" {
		t.Errorf("gRPC change after adding docx (-want +got):\n%s", diff)
	}

	if err := os.RemoveAll(filepath.Join(root, "pdf")); err != nil {
		t.Fatal(err)
	}
	want = change{Generation: first.Generation + 2, Added: []string{}, Changed: []string{}, Removed: []string{"pdf"}}
	if diff := cmp.Diff(want, next("remove")); diff != "" {
		t.Errorf("REST change after removing pdf (-want +got):\n%s", diff)
	}
}

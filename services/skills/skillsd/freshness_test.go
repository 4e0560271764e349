package skillsd_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// watchStream opens WatchCatalog and returns its messages on a channel, after
// checking the initial one.
func watchStream(t *testing.T, conn grpc.ClientConnInterface) <-chan *skillsv1.WatchCatalogResponse {
	t.Helper()
	stream, err := skillsv1.NewCatalogServiceClient(conn).WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if !first.GetInitial() || first.GetGeneration() < 1 {
		t.Fatalf("first message: %v, want initial at generation >= 1", first)
	}
	out := make(chan *skillsv1.WatchCatalogResponse, 100)
	go func() {
		defer close(out)
		for {
			m, err := stream.Recv()
			if err != nil {
				return
			}
			out <- m
		}
	}()
	return out
}

// nextChange waits up to 2 s (the bound) for a change.
func nextChange(t *testing.T, ch <-chan *skillsv1.WatchCatalogResponse, what string) *skillsv1.WatchCatalogResponse {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return m
	case <-time.After(2 * time.Second):
		t.Fatalf("%s: no change within 2 s", what)
	}
	return nil
}

func TestWatchLocalSourceUnderLoad(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), skillstest.SkillMD("pdf", "reading PDF documents"))
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: 100 * time.Millisecond})
	changes := watchStream(t, conn)
	cat := skillsv1.NewCatalogServiceClient(conn)
	routing := skillsv1.NewRoutingServiceClient(conn)

	// Searches keep answering while the catalog changes under them.
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var searchErr error
	var errOnce sync.Once
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "pdf documents"}); err != nil && ctx.Err() == nil {
					errOnce.Do(func() { searchErr = err })
				}
			}
		})
	}
	defer func() {
		stop()
		wg.Wait()
		if searchErr != nil {
			t.Errorf("a search failed during the changes: %v", searchErr)
		}
	}()

	writeFile(t, filepath.Join(root, "team", "docx", "SKILL.md"), skillstest.SkillMD("docx", "editing Word documents"))
	m := nextChange(t, changes, "add")
	if !slices.Equal(m.GetAdded(), []string{"team/docx"}) {
		t.Errorf("add: got %v", m)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"}); err != nil {
		t.Errorf("GetSkill(docx) after add: %v", err)
	}

	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), skillstest.SkillMD("pdf", "reading and splitting PDF documents"))
	m = nextChange(t, changes, "edit")
	if !slices.Equal(m.GetChanged(), []string{"pdf"}) || m.GetGeneration() <= 1 {
		t.Errorf("edit: got %v", m)
	}
	got, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"})
	if err != nil || !strings.Contains(got.GetSkill().GetDescription(), "splitting") {
		t.Errorf("GetSkill(pdf) after edit: %v, %v", got.GetSkill().GetDescription(), err)
	}

	// A broken edit: the last good version keeps serving, with a diagnostic.
	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: [oops\n")
	nextChange(t, changes, "broken edit")
	got, err = cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"})
	if err != nil || !strings.Contains(got.GetSkill().GetDescription(), "splitting") {
		t.Errorf("GetSkill(pdf) after a broken edit: %q, %v; want the last good version", got.GetSkill().GetDescription(), err)
	}
	diags, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{FilePrefix: "pdf/"})
	if err != nil || !slices.ContainsFunc(diags.GetDiagnostics(), func(d *skillsv1.Diagnostic) bool { return d.GetCode() == "kept-last-good" }) {
		t.Errorf("diagnostics after a broken edit: %v, %v; want kept-last-good", diags.GetDiagnostics(), err)
	}

	if err := os.RemoveAll(filepath.Join(root, "team")); err != nil {
		t.Fatal(err)
	}
	m = nextChange(t, changes, "delete")
	if !slices.Equal(m.GetRemoved(), []string{"team/docx"}) {
		t.Errorf("delete: got %v", m)
	}
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil || list.GetTotalSize() != 1 {
		t.Errorf("list after delete: %d skills, %v; want 1", list.GetTotalSize(), err)
	}
}

func TestRefreshLocalMode(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), skillstest.SkillMD("pdf", "PDF"))
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	cat := skillsv1.NewCatalogServiceClient(conn)
	writeFile(t, filepath.Join(root, "docx", "SKILL.md"), skillstest.SkillMD("docx", "Word"))
	resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetSuccess() || resp.GetMode() != "local" || resp.GetSkillsReindexed() != 2 || resp.GetCommitHash() != "" ||
		resp.GetMessage() != "Reindexed from local directory (no git sync configured)." {
		t.Errorf("local refresh: got %v", resp)
	}
}

// gitEnv is an environment with SKILLS_REPO and a state folder.
func gitEnv(home string, vars map[string]string) func(string) string {
	return func(k string) string {
		if k == "SKILLSD_HOME" {
			return home
		}
		return vars[k]
	}
}

func TestGitSourceRefreshAndOffline(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	c1 := repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF"), "README.md": "not a skill"})
	home := t.TempDir()
	env := gitEnv(home, map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"})

	conn := skillstest.Start(t, skillsd.Options{Getenv: env})
	cat := skillsv1.NewCatalogServiceClient(conn)
	changes := watchStream(t, conn)
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
		t.Fatalf("GetSkill(pdf) from the git source: %v", err)
	}
	st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if src := st.GetSources(); len(src) != 1 || src[0].GetKind() != "git" || src[0].GetCommit() != c1 ||
		src[0].GetLocation() != repo.URL() || src[0].GetRef() != "main" || src[0].GetLastSync() == nil || src[0].GetError() != "" {
		t.Errorf("status sources: %v", src)
	}

	c2 := repo.Commit("two", map[string]string{"skills/docx/SKILL.md": skillstest.SkillMD("docx", "Word")})
	resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetSuccess() || resp.GetMode() != "git" || resp.GetCommitHash() != c2 || resp.GetFilesChanged() != 1 ||
		resp.GetSkillsReindexed() != 2 || resp.GetLastSync() == nil {
		t.Errorf("git refresh: got %v", resp)
	}
	if m := nextChange(t, changes, "refresh"); !slices.Equal(m.GetAdded(), []string{"docx"}) {
		t.Errorf("change after refresh: %v", m)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"}); err != nil {
		t.Errorf("GetSkill(docx) after refresh: %v", err)
	}

	// The remote becomes unreachable: a new server on the same state folder
	// starts and serves the cached checkout.
	if err := os.RemoveAll(repo.Dir()); err != nil {
		t.Fatal(err)
	}
	offline := skillstest.Start(t, skillsd.Options{Getenv: env, Logger: slog.New(slog.DiscardHandler)})
	ocat := skillsv1.NewCatalogServiceClient(offline)
	list, err := ocat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil || list.GetTotalSize() != 2 {
		t.Fatalf("offline start: %d skills, %v; want the 2 cached ones", list.GetTotalSize(), err)
	}
	st, err = ocat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if src := st.GetSources(); len(src) != 1 || src[0].GetCommit() != c2 || src[0].GetError() == "" {
		t.Errorf("offline status sources: %v; want commit %s and an error", src, c2)
	}
	resp, err = ocat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSuccess() || resp.GetMode() != "git" || resp.GetSkillsReindexed() != 2 || !strings.Contains(resp.GetMessage(), "keep serving") {
		t.Errorf("offline refresh: got %v; want success false, 2 skills still served", resp)
	}
}

func TestRefreshSingleFlight(t *testing.T) {
	root := t.TempDir()
	for i := range 300 {
		writeFile(t, filepath.Join(root, "s", string(rune('a'+i%26))+strings.Repeat("x", i/26), "SKILL.md"), skillstest.SkillMD("s", "skill"))
	}
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true, Logger: slog.New(slog.DiscardHandler)})
	cat := skillsv1.NewCatalogServiceClient(conn)
	// Many concurrent refreshes: whenever two overlap, one answers false at
	// once; at least one succeeds, and every answer is one of the two shapes.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, busy int
	for range 16 {
		wg.Go(func() {
			resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if resp.GetSuccess() {
				ok++
			} else if strings.Contains(resp.GetMessage(), "already running") {
				busy++
			} else {
				t.Errorf("unexpected answer %v", resp)
			}
		})
	}
	wg.Wait()
	if ok == 0 || ok+busy != 16 {
		t.Errorf("got %d successes and %d busy answers, want >= 1 success and 16 answers", ok, busy)
	}
	t.Logf("%d refreshes ran, %d answered busy", ok, busy)
}

// TestConfigGitSources serves two git sources from config.yaml (one at a
// tag, in a sub-folder, one at a branch) before a local folder, in that
// precedence order.
func TestConfigGitSources(t *testing.T) {
	team := skillstest.NewGitRepo(t)
	v1 := team.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF v1")})
	team.Commit("two", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF v2"),
		"skills/later/SKILL.md": skillstest.SkillMD("later", "after the tag")})
	team.Tag("v1", v1)
	shared := skillstest.NewGitRepo(t)
	main := shared.Commit("one", map[string]string{"docx/SKILL.md": skillstest.SkillMD("docx", "Word"),
		"pdf/SKILL.md": skillstest.SkillMD("pdf", "shadowed by team's")})
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "xlsx", "SKILL.md"), skillstest.SkillMD("xlsx", "sheets"))
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "sources:\n"+
		"  - name: team\n    git:\n      url: "+team.URL()+"\n      ref: v1\n      path: skills\n      trusted: true\n"+
		"  - name: shared\n    git:\n      url: "+shared.URL()+"\n"+
		"  - name: local\n    path: "+local+"\n")
	home := t.TempDir()
	conn := skillstest.Start(t, skillsd.Options{ConfigFile: cfg, Getenv: gitEnv(home, nil)})
	cat := skillsv1.NewCatalogServiceClient(conn)
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range list.GetSkills() {
		got = append(got, sk.GetSkillPath()+"@"+sk.GetSource()+":"+sk.GetDescription())
	}
	want := []string{"docx@shared:Word", "pdf@team:PDF v1", "xlsx@local:sheets"}
	if !slices.Equal(got, want) {
		t.Errorf("skills: got %v, want %v", got, want)
	}
	st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, s := range st.GetSources() {
		srcs = append(srcs, s.GetName()+"/"+s.GetKind()+"/"+s.GetRef()+"/"+s.GetCommit()+"/"+boolStr(s.GetTrusted()))
	}
	wantSrcs := []string{"team/git/v1/" + v1 + "/true", "shared/git/main/" + main + "/false", "local/local///true"}
	if !slices.Equal(srcs, wantSrcs) {
		t.Errorf("sources: got %v, want %v", srcs, wantSrcs)
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestWatchAfter: with WatchAfter, the watcher starts once it is closed,
// not with the first catalog; a change made before then is caught up with
// when it starts.
func TestWatchAfter(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), skillstest.SkillMD("pdf", "reading PDF documents"))
	after := make(chan struct{})
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: 50 * time.Millisecond, WatchAfter: after})
	changes := watchStream(t, conn)
	cat := skillsv1.NewCatalogServiceClient(conn)

	writeFile(t, filepath.Join(root, "docx", "SKILL.md"), skillstest.SkillMD("docx", "editing Word documents"))
	select {
	case m := <-changes:
		t.Fatalf("a change was seen before the watcher was let start: %v", m)
	case <-time.After(500 * time.Millisecond): // ten debounces
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"}); err == nil {
		t.Fatal("docx is served before the watcher was let start")
	}
	close(after)
	m := nextChange(t, changes, "catch-up")
	if !slices.Equal(m.GetAdded(), []string{"docx"}) {
		t.Errorf("catch-up: got %v", m)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"}); err != nil {
		t.Errorf("GetSkill(docx) after the watcher started: %v", err)
	}
}

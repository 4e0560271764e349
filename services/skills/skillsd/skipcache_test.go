package skillsd_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSkipCacheFetchesGitSources: a read with skip_cache synchronises the
// git sources first, so a skill committed after start-up is served; when
// the remote is gone the read still succeeds from the checkout on disk and
// the failure is logged.
func TestSkipCacheFetchesGitSources(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF")})
	var logs syncBuffer
	env := gitEnv(t.TempDir(), map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"})
	conn := skillstest.Start(t, skillsd.Options{Getenv: env,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	cat := skillsv1.NewCatalogServiceClient(conn)
	files := skillsv1.NewFileServiceClient(conn)

	repo.Commit("two", map[string]string{"skills/docx/SKILL.md": skillstest.SkillMD("docx", "Word")})
	_, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("GetSkill(docx) without skip_cache before any refresh: %v; want NotFound (the cached catalog)", err)
	}
	got, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx", SkipCache: true})
	if err != nil {
		t.Fatalf("GetSkill(docx, skip_cache): %v; want the skill committed after start-up", err)
	}
	if got.GetSkill().GetDescription() != "Word" {
		t.Errorf("GetSkill(docx, skip_cache): got %v", got.GetSkill())
	}

	// ReadSkillFile's skip_cache fetches too: a changed SKILL.md is read.
	repo.Commit("three", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF, version three")})
	f, err := files.ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: "pdf", File: "SKILL.md", SkipCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.GetText(), "version three") {
		t.Errorf("ReadSkillFile(pdf/SKILL.md, skip_cache): got %q; want the committed change", f.GetText())
	}

	// The remote goes away: skip_cache reads are served from the checkout.
	if err := os.RemoveAll(repo.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx", SkipCache: true}); err != nil {
		t.Errorf("GetSkill(docx, skip_cache) with the remote gone: %v; want the cached checkout served", err)
	}
	if !strings.Contains(logs.String(), "not synchronised") {
		t.Errorf("the failed fetch was not logged as a warning; log:\n%s", logs.String())
	}
}

// TestSkipCacheWaitsForRunningRefresh: a skip_cache read made while a
// refresh runs waits for it to end instead of failing or fetching again.
func TestSkipCacheWaitsForRunningRefresh(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF")})
	env := gitEnv(t.TempDir(), map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"})
	srv, err := skillsd.New(t.Context(), skillsd.Options{Getenv: env, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := srv.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cat := skillsv1.NewCatalogServiceClient(conn)

	release, ok := skillsd.HoldRefresh(srv)
	if !ok {
		t.Fatal("a refresh is already running")
	}
	done := make(chan error, 1)
	go func() {
		_, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf", SkipCache: true})
		done <- err
	}()
	// A RefreshSkills made now answers busy: the held refresh is running.
	resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil || resp.GetSuccess() || !strings.Contains(resp.GetMessage(), "already running") {
		t.Fatalf("RefreshSkills while one runs: %v, %v; want busy", resp, err)
	}
	select {
	case err := <-done:
		t.Fatalf("the skip_cache read returned (%v) while the refresh was still running", err)
	case <-time.After(200 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("the skip_cache read after the refresh ended: %v", err)
	}
}

// TestSkipCacheLocalSources: with local sources only, skip_cache rebuilds
// from disk, as it always did.
func TestSkipCacheLocalSources(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "pdf", "SKILL.md"), skillstest.SkillMD("pdf", "PDF"))
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, NoWatch: true})
	cat := skillsv1.NewCatalogServiceClient(conn)
	writeFile(t, filepath.Join(root, "docx", "SKILL.md"), skillstest.SkillMD("docx", "Word"))
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx"}); status.Code(err) != codes.NotFound {
		t.Fatalf("GetSkill(docx) without skip_cache: %v; want NotFound (not watched)", err)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx", SkipCache: true}); err != nil {
		t.Errorf("GetSkill(docx, skip_cache): %v", err)
	}
}

// TestSkipCacheConcurrentReads: many skip_cache reads at once, while
// refreshes run too: none fails, and every one is served the skill
// committed before they started.
func TestSkipCacheConcurrentReads(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF")})
	env := gitEnv(t.TempDir(), map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"})
	conn := skillstest.Start(t, skillsd.Options{Getenv: env})
	cat := skillsv1.NewCatalogServiceClient(conn)
	repo.Commit("two", map[string]string{"skills/docx/SKILL.md": skillstest.SkillMD("docx", "Word")})
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			if i%6 == 0 {
				if _, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
					t.Errorf("RefreshSkills: %v", err)
				}
				return
			}
			if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "docx", SkipCache: true}); err != nil {
				t.Errorf("GetSkill(docx, skip_cache) among concurrent reads: %v", err)
			}
		})
	}
	wg.Wait()
}

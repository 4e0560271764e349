package skillsd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/testfs"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// watchOf waits until GetCatalogStatus shows, for source, a watch state
// that ok accepts (the deadline only detects a hang).
func watchOf(t *testing.T, cat skillsv1.CatalogServiceClient, source string, ok func(*skillsv1.WatchStatus) bool) *skillsv1.WatchStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var last *skillsv1.WatchStatus
	for ctx.Err() == nil {
		st, err := cat.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range st.GetSources() {
			if src.GetName() == source {
				last = src.GetWatch()
			}
		}
		if last != nil && ok(last) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("source %s: watch state %v never matched", source, last)
	return nil
}

// TestWatchStateInCatalogStatus: a folder too long to watch costs its own
// source a "partial" watch (naming the folder) instead of sending every
// source to polling for good; the other source stays "watching", a change
// there is still seen at once, and deleting the long tree brings back full
// watching.
func TestWatchStateInCatalogStatus(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	writeSkill(t, a, "one")
	writeSkill(t, b, "two")
	long := filepath.Join(a, "long")
	testfs.Nest(t, long, strings.Repeat("x", 250), 21) // a path of 5,000+ characters
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{a, b}, WatchDebounce: 50 * time.Millisecond, PollInterval: time.Hour})
	cat := skillsv1.NewCatalogServiceClient(conn)

	w := watchOf(t, cat, a, func(w *skillsv1.WatchStatus) bool { return w.GetMode() == "partial" })
	if w.GetUnwatchedCount() != 1 || len(w.GetDiagnostics()) != 1 || !strings.HasPrefix(w.GetDiagnostics()[0].GetFile(), "long/xxx") ||
		!strings.Contains(w.GetDiagnostics()[0].GetMessage(), "file name too long") || w.GetNextRetry() == nil {
		t.Errorf("watch of %s: %v; want the long folder named, with why, and a retry", a, w)
	}
	watchOf(t, cat, b, func(w *skillsv1.WatchStatus) bool { return w.GetMode() == "watching" })

	// Still watching, not polling every hour: a new skill shows at once.
	changes := watchStream(t, conn)
	writeSkill(t, b, "three")
	if m := nextChange(t, changes, "new skill beside a long path"); strings.Join(m.GetAdded(), ",") != "three" {
		t.Errorf("change: %v", m)
	}

	if err := os.RemoveAll(long); err != nil {
		t.Fatal(err)
	}
	watchOf(t, cat, a, func(w *skillsv1.WatchStatus) bool { return w.GetMode() == "watching" && w.GetUnwatchedCount() == 0 })
}

func TestWatchStateOffAndGit(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "one")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}, NoWatch: true})
	watchOf(t, skillsv1.NewCatalogServiceClient(conn), dir, func(w *skillsv1.WatchStatus) bool { return w.GetMode() == "off" })

	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF")})
	git := skillstest.Start(t, skillsd.Options{Getenv: gitEnv(t.TempDir(), map[string]string{"SKILLS_REPO": repo.URL()})})
	w := watchOf(t, skillsv1.NewCatalogServiceClient(git), repo.URL(), func(w *skillsv1.WatchStatus) bool { return w.GetMode() == "git" })
	if !strings.Contains(w.GetMessage(), "every 15m0s") {
		t.Errorf("git watch message: %q", w.GetMessage())
	}
}

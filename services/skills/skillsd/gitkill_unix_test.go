//go:build unix

package skillsd_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/gitsync"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestGitKillHelper is not a test: TestKilledCheckoutServesWholeCommits
// runs this test binary again to synchronise the skills repository of a
// state folder as skillsd does, and SIGKILLs it after N files of the
// checkout.
func TestGitKillHelper(t *testing.T) {
	if os.Getenv("SKILLSD_TEST_GIT_KILL") != "1" {
		t.Skip("helper process of TestKilledCheckoutServesWholeCommits")
	}
	n, _ := strconv.Atoi(os.Getenv("SKILLSD_TEST_KILL_AFTER"))
	s, err := gitsync.New(gitsync.Repo{Name: "team", URL: os.Getenv("SKILLSD_TEST_REPO"), Ref: "main", Path: "skills"},
		gitsync.Options{CacheDir: filepath.Join(os.Getenv("SKILLSD_HOME"), "git"), OnCheckoutFile: func(written int) {
			if written == n {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Sync(t.Context())
	t.Fatalf("not killed: %v", err)
}

func skillsOf(prefix string, n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		name := fmt.Sprintf("%s%02d", prefix, i)
		files["skills/"+name+"/SKILL.md"] = skillstest.SkillMD(name, "The "+name+" skill")
		files["skills/"+name+"/ref.md"] = "reference"
	}
	return files
}

// TestKilledCheckoutServesWholeCommits: kill -9 in the middle of checking
// out a new commit of the skills repository (a fault hook after 40 files),
// then start skillsd on the same state folder with the remote unreachable:
// it serves the whole previous commit; once the remote is back, a refresh
// serves the whole new commit and reports every file it changed.
func TestKilledCheckoutServesWholeCommits(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", skillsOf("a", 10))
	home := t.TempDir()
	env := gitEnv(home, map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"})
	// A first server clones the repository, then goes away.
	srv, err := skillsd.New(t.Context(), skillsd.Options{Getenv: env, Home: t.TempDir(), Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	_ = srv.Close()
	c2 := repo.Commit("two", skillsOf("b", 50))

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestGitKillHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SKILLSD_TEST_GIT_KILL=1", "SKILLSD_HOME="+home, "SKILLSD_TEST_REPO="+repo.URL(), "SKILLSD_TEST_KILL_AFTER=40")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if ws, ok := exitStatus(err, &ee); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the helper did not die of SIGKILL mid-checkout: %v\n%s", err, out)
	}

	// The remote is unreachable at the next start.
	hidden := repo.Dir() + ".away"
	if err := os.Rename(repo.Dir(), hidden); err != nil {
		t.Fatal(err)
	}
	conn := skillstest.Start(t, skillsd.Options{Getenv: env})
	cat := skillsv1.NewCatalogServiceClient(conn)
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 200})
	if err != nil || list.GetTotalSize() != 10 {
		t.Fatalf("after the kill, offline: %d skills, %v; want the 10 of the previous commit", list.GetTotalSize(), err)
	}
	for _, sk := range list.GetSkills() {
		if sk.GetFileCount() != 1 {
			t.Errorf("skill %s serves %d companion files, want 1", sk.GetSkillPath(), sk.GetFileCount())
		}
	}

	// The remote is back: a refresh serves the whole new commit.
	if err := os.Rename(hidden, repo.Dir()); err != nil {
		t.Fatal(err)
	}
	resp, err := cat.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetSuccess() || resp.GetCommitHash() != c2 || resp.GetFilesChanged() != 100 || resp.GetSkillsReindexed() != 60 {
		t.Errorf("refresh after the kill: %v; want commit %s, 100 files changed, 60 skills", resp, c2)
	}
}

// exitStatus is the wait status of a command that exited with err.
func exitStatus(err error, ee **exec.ExitError) (syscall.WaitStatus, bool) {
	if !errors.As(err, ee) {
		return 0, false
	}
	ws, ok := (*ee).Sys().(syscall.WaitStatus)
	return ws, ok
}

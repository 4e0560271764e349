package skillsd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// dotfiles makes a home folder whose ~/.claude/skills/x is a link to
// ~/dotfiles/skills/x, as dotfiles set-ups do; inside the dotfiles, a link
// to a planted ~/.ssh/id_rsa and a link back to the skills folder.
func dotfiles(t *testing.T) (home string) {
	t.Helper()
	home = t.TempDir()
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "local")
	writeSkill(t, filepath.Join(home, "dotfiles", "skills"), "x")
	writeFile(t, filepath.Join(home, "dotfiles", "skills", "x", "ref.md"), "from the dotfiles")
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "PRIVATE KEY")
	for link, target := range map[string]string{
		filepath.Join(home, ".claude", "skills", "x"):          filepath.Join(home, "dotfiles", "skills", "x"),
		filepath.Join(home, "dotfiles", "skills", "x", "key"):  filepath.Join(home, ".ssh", "id_rsa"),
		filepath.Join(home, "dotfiles", "skills", "x", "back"): filepath.Join(home, ".claude", "skills"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks not available: %v", err)
		}
	}
	return home
}

func readSkillFile(t *testing.T, files skillsv1.FileServiceClient, skill, file string) (string, error) {
	t.Helper()
	resp, err := files.ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: skill, File: file})
	return resp.GetText(), err
}

// TestFollowExternalSymlinks: by default a link leaving its source is not
// followed (a diagnostic says so); listing the folder it leads into serves
// the skill, through the catalog and the file reader alike, while loops and
// links leading further out (a planted ~/.ssh/id_rsa) stay refused.
func TestFollowExternalSymlinks(t *testing.T) {
	home := dotfiles(t)

	// The safe default.
	conn := skillstest.Start(t, skillsd.Options{Home: home, NoWatch: true})
	cat := skillsv1.NewCatalogServiceClient(conn)
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "x"}); status.Code(err) != codes.NotFound {
		t.Fatalf("default: GetSkill(x) = %v; want NotFound", err)
	}
	diags, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range diags.GetDiagnostics() {
		if d.GetFile() == "x" && d.GetCode() == "symlink-escape" {
			found = true
		}
	}
	if !found {
		t.Errorf("default: no symlink-escape diagnostic for x in %v", diags.GetDiagnostics())
	}

	for name, tc := range map[string]struct {
		opts skillsd.Options
		cfg  string
	}{
		"option":      {opts: skillsd.Options{FollowExternalSymlinks: []string{"~/dotfiles/skills"}}},
		"environment": {opts: skillsd.Options{Getenv: envOf(map[string]string{"SKILLS_FOLLOW_EXTERNAL_SYMLINKS": "/nonexistent" + string(os.PathListSeparator) + "~/dotfiles/skills"})}},
		"config":      {cfg: "sources:\n  - path: ~/.claude/skills\n    follow_external_symlinks: [~/dotfiles/skills]\n"},
	} {
		t.Run(name, func(t *testing.T) {
			opts := tc.opts
			opts.Home, opts.NoWatch = home, true
			if tc.cfg != "" {
				cfg := filepath.Join(t.TempDir(), "config.yaml")
				writeFile(t, cfg, tc.cfg)
				opts.ConfigFile = cfg
			}
			conn := skillstest.Start(t, opts)
			cat := skillsv1.NewCatalogServiceClient(conn)
			files := skillsv1.NewFileServiceClient(conn)
			sk, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "x"})
			if err != nil {
				t.Fatalf("GetSkill(x) with the opt-in: %v", err)
			}
			var listed []string
			for _, f := range sk.GetFiles() {
				listed = append(listed, f.GetPath())
			}
			if strings.Join(listed, ",") != "ref.md" {
				t.Errorf("x's files: %v; want ref.md alone (not the key, not the loop)", listed)
			}
			if got, err := readSkillFile(t, files, "x", "ref.md"); err != nil || got != "from the dotfiles" {
				t.Errorf("ReadSkillFile(x, ref.md) = %q, %v", got, err)
			}
			for _, f := range []string{"key", "back/local/SKILL.md"} {
				if got, err := readSkillFile(t, files, "x", f); status.Code(err) != codes.PermissionDenied {
					t.Errorf("ReadSkillFile(x, %s) = %q, %v; want PermissionDenied", f, got, err)
				}
			}
			if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "local"}); err != nil {
				t.Errorf("GetSkill(local): %v", err)
			}
		})
	}
}

func TestFollowExternalSymlinksRefusesRelativeAndRoot(t *testing.T) {
	for _, follow := range []string{"dotfiles/skills", "/"} {
		_, err := skillsd.New(t.Context(), skillsd.Options{Home: t.TempDir(), Cwd: t.TempDir(), FollowExternalSymlinks: []string{follow}})
		if err == nil || !strings.Contains(err.Error(), "FollowExternalSymlinks[0]") {
			t.Errorf("New(follow %q) = %v; want an error naming the setting", follow, err)
		}
	}
}

// TestFollowExternalSymlinksUnusedIsAnError: the option set while the
// sources come from the config file would be read by nothing: start-up
// fails, naming the setting and where to put it instead.
func TestFollowExternalSymlinksUnusedIsAnError(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "sources:\n  - path: "+t.TempDir()+"\n")
	_, err := skillsd.New(t.Context(), skillsd.Options{ConfigFile: cfg, Home: t.TempDir(), Cwd: t.TempDir(),
		Getenv: envOf(map[string]string{"SKILLS_FOLLOW_EXTERNAL_SYMLINKS": "/dotfiles"})})
	if err == nil || !strings.Contains(err.Error(), "SKILLS_FOLLOW_EXTERNAL_SYMLINKS applies to") || !strings.Contains(err.Error(), "sources[].follow_external_symlinks") {
		t.Errorf("New = %v; want an error naming the setting", err)
	}
}

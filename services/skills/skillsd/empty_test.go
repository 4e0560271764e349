package skillsd_test

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// startLogged starts a server with its log captured (warnings and above).
func startLogged(t *testing.T, opts skillsd.Options) (*skillsd.Server, string, error) {
	t.Helper()
	logs := &syncBuffer{}
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	opts.NoUsage = true
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := skillsd.New(t.Context(), opts)
	if err == nil {
		t.Cleanup(func() { _ = srv.Close() })
	}
	return srv, logs.String(), err
}

// TestEmptyCatalogIsLoud: a catalog with no skills is a warning that says
// why and names the folders searched (issue 18: skillsd --skills-dir
// /nonexistent logged INFO skills=0 and nothing else), and with
// RequireSkills the error that stops the start.
func TestEmptyCatalogIsLoud(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	empty := t.TempDir()
	broken := t.TempDir()
	writeFile(t, filepath.Join(broken, "big", "SKILL.md"), strings.Repeat("x", 2<<20))
	cwd, home := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		name string
		opts skillsd.Options
		want []string // in the warning and in the error
	}{
		{"missing folder", skillsd.Options{SkillsDirs: []string{missing}}, []string{missing + " does not exist", "searched: " + missing}},
		{"empty folder", skillsd.Options{SkillsDirs: []string{empty}}, []string{empty + " holds no skill: no SKILL.md folder", "searched: " + empty}},
		{"two folders", skillsd.Options{SkillsDirs: []string{missing, empty}}, []string{missing + " does not exist; " + empty + " holds no skill", "searched: " + missing + ", " + empty}},
		{"skill files that do not load", skillsd.Options{SkillsDirs: []string{broken}}, []string{"could not be loaded (skills lint " + broken}},
		{"discovery finds no folder", skillsd.Options{Cwd: cwd, Home: home}, []string{
			"none of the default skills folders exists",
			filepath.Join(cwd, ".agents", "skills"), filepath.Join(home, ".claude", "skills"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, logs, err := startLogged(t, tc.opts)
			if err != nil {
				t.Fatalf("without RequireSkills: %v", err)
			}
			if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "the catalog has no skills") {
				t.Errorf("no warning about the empty catalog:\n%s", logs)
			}
			flat := strings.ReplaceAll(logs, `\"`, `"`)
			for _, w := range tc.want {
				w = strings.Replace(w, "searched: ", "searched=", 1)
				if !strings.Contains(flat, w) && !strings.Contains(flat, `searched="`+strings.TrimPrefix(w, "searched=")) {
					t.Errorf("warning lacks %q:\n%s", w, logs)
				}
			}
			opts := tc.opts
			opts.RequireSkills = true
			_, _, err = startLogged(t, opts)
			if err == nil {
				t.Fatal("with RequireSkills: the server started with no skills")
			}
			for _, w := range append(tc.want, "--require-skills") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A catalog with skills says nothing, even when skills are required.
	if _, logs, err := startLogged(t, skillsd.Options{SkillsDirs: []string{examples(t)}, RequireSkills: true}); err != nil || strings.Contains(logs, "no skills") {
		t.Errorf("the examples with RequireSkills: %v\n%s", err, logs)
	}
}

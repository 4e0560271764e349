package source

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiscover(t *testing.T) {
	base := t.TempDir()
	cwd := filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	client := filepath.Join(base, "client")
	for _, d := range []string{
		filepath.Join(cwd, ".claude", "skills"),
		filepath.Join(cwd, ".agents", "skills"),
		filepath.Join(home, ".agent", "skills"),
		filepath.Join(client, ".agents", "skills"),
		filepath.Join(client, ".agent"), // no skills inside
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// ~/.claude/skills is the project's folder through a link: listed once.
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(cwd, ".claude", "skills"), filepath.Join(home, ".claude", "skills"))
	// ~/.agents/skills is a file, not a folder.
	writeTree(t, home, map[string]string{".agents/skills": "not a folder"})

	got := Discover(cwd, home, []string{client, "", cwd})
	type rootView struct{ Name, Dir, Kind string }
	var views []rootView
	for _, r := range got {
		if !r.Trusted {
			t.Errorf("%s is not trusted", r.Name)
		}
		views = append(views, rootView{r.Name, r.Dir, r.Kind})
	}
	want := []rootView{
		{filepath.ToSlash(filepath.Join(client, ".agents", "skills")), filepath.Join(client, ".agents", "skills"), KindLocal},
		{filepath.ToSlash(filepath.Join(cwd, ".agents", "skills")), filepath.Join(cwd, ".agents", "skills"), KindLocal},
		{filepath.ToSlash(filepath.Join(cwd, ".claude", "skills")), filepath.Join(cwd, ".claude", "skills"), KindLocal},
		{"~/.agent/skills", filepath.Join(home, ".agent", "skills"), KindLocal},
	}
	if diff := cmp.Diff(want, views); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}

	// Without client roots, the working folder's roots are named relatively.
	got = Discover(cwd, "", nil)
	var names []string
	for _, r := range got {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"./.agents/skills", "./.claude/skills"}, names); diff != "" {
		t.Errorf("Discover(cwd) names (-want +got):\n%s", diff)
	}
	if got := Discover("", "", nil); len(got) != 0 {
		t.Errorf("Discover with nothing = %v", got)
	}
}

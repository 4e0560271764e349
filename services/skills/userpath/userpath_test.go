package userpath

import (
	"path/filepath"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/me", "PROJ": "/src/proj", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"tilde alone", "~", "/home/me"},
		{"tilde slash", "~/skills", "/home/me/skills"},
		{"tilde user is left", "~other/skills", "~other/skills"},
		{"tilde inside is left", "a/~/b", "a/~/b"},
		{"dollar var", "$HOME/.claude/skills", "/home/me/.claude/skills"},
		{"braced var", "${PROJ}/skills", "/src/proj/skills"},
		{"unset var is empty", "${PROJ}x/$UNSET/y", "/src/projx/y"},
		{"empty var", "$EMPTY/rel", "/rel"},
		{"only an unset var", "$UNSET", ""},
		{"dollar digit is left", "cost$5/x", "cost$5/x"},
		{"bad braced name is left", "a/${bad-name}/b", "a/${bad-name}/b"},
		{"unclosed brace is left", "a/${unclosed", "a/${unclosed"},
		{"trailing dollar is left", "trailing$", "trailing$"},
		{"cleaned", "./rel//dir/../x", "rel/x"},
		{"relative stays relative", "relative/dir", "relative/dir"},
		{"absolute", "/abs/dir/", "/abs/dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Expand(tc.in, "/home/me", getenv); got != filepath.FromSlash(tc.want) {
				t.Errorf("Expand(%q) = %q, want %q", tc.in, got, filepath.FromSlash(tc.want))
			}
		})
	}
	if got := Expand("~/x", "", getenv); got != filepath.FromSlash("~/x") {
		t.Errorf("Expand(%q) with no home = %q, want %q", "~/x", got, "~/x")
	}
	t.Setenv("SKILLSD_TEST_EXPAND", "/from/env")
	if got := Expand("$SKILLSD_TEST_EXPAND/s", "", nil); got != filepath.FromSlash("/from/env/s") {
		t.Errorf("Expand with os.Getenv = %q, want %q", got, "/from/env/s")
	}
}

func TestAbs(t *testing.T) {
	env := map[string]string{"HOME": "/home/me", "PROJ": "/src/proj"}
	getenv := func(k string) string { return env[k] }
	const cwd, home = "/work/here", "/home/me"
	for _, tc := range []struct{ name, in, want string }{
		{"empty is cwd", "", "/work/here"},
		{"unset var is cwd", "$UNSET", "/work/here"},
		{"tilde alone", "~", "/home/me"},
		{"tilde slash", "~/x", "/home/me/x"},
		{"home var", "$HOME/x", "/home/me/x"},
		{"braced var", "${PROJ}/skills/", "/src/proj/skills"},
		{"relative", "skills/a", "/work/here/skills/a"},
		{"dot relative", "./skills/../b", "/work/here/b"},
		{"parent", "../up", "/work/up"},
		{"tilde user is relative", "~other/x", "/work/here/~other/x"},
		{"relative var", "$PROJ/../rel", "/src/rel"},
		{"absolute", "/abs//dir/./x", "/abs/dir/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Abs(tc.in, cwd, home, getenv); got != filepath.FromSlash(tc.want) {
				t.Errorf("Abs(%q) = %q, want %q", tc.in, got, filepath.FromSlash(tc.want))
			}
		})
	}
	if got := Abs("~/x", cwd, "", getenv); got != filepath.FromSlash("/work/here/~/x") {
		t.Errorf("Abs(%q) with no home = %q, want %q", "~/x", got, "/work/here/~/x")
	}
}

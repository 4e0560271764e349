package content

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// write creates files (relative path → content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBlobSHAIsGitsObjectID(t *testing.T) {
	// `printf 'hello\n' | git hash-object --stdin`
	if got, want := BlobSHA([]byte("hello\n")), "ce013625030ba8dba906f756967f9e9ca394464a"; got != want {
		t.Errorf("BlobSHA: got %s, want %s", got, want)
	}
	// The empty blob.
	if got, want := BlobSHA(nil), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"; got != want {
		t.Errorf("BlobSHA(empty): got %s, want %s", got, want)
	}
}

func agentsFixture(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "agents")
	write(t, dir, map[string]string{
		"code-reviewer.md": "---\nname: code-reviewer\ndescription: Reviews diffs for bugs\nmodel: sonnet\ntools: Read, Grep, Glob\n---\nYou review code.\n",
		"planner.md":       "---\nname: Planner\ndescription: Plans work\nallowedTools:\n  - Read\n  - WebSearch\n---\nPlan.\n",
		"plain.md":         "# No frontmatter\n",
		"broken.md":        "---\nname: [unclosed\n---\nbody\n",
		"spaced.md":        "---\ndescription: Spec style\nallowed-tools: Bash(git:*) Read\n---\n",
		"README.txt":       "not a profile",
		".hidden.md":       "---\nname: hidden\n---\n",
		"nested/deep.md":   "---\nname: deep\n---\n",
	})
	return dir
}

func TestListAgents(t *testing.T) {
	dir := agentsFixture(t)
	s := New(Options{Agents: Folder{Dir: dir, Prefix: "agents"}})
	got, _, err := s.ListAgents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Agent{
		{Name: "broken", AllowedTools: []string{}, File: "broken.md", Path: "agents/broken.md"},
		{Name: "code-reviewer", Description: "Reviews diffs for bugs", Model: "sonnet", AllowedTools: []string{"Read", "Grep", "Glob"}, File: "code-reviewer.md", Path: "agents/code-reviewer.md"},
		{Name: "plain", AllowedTools: []string{}, File: "plain.md", Path: "agents/plain.md"},
		{Name: "Planner", Description: "Plans work", AllowedTools: []string{"Read", "WebSearch"}, File: "planner.md", Path: "agents/planner.md"},
		{Name: "spaced", Description: "Spec style", AllowedTools: []string{"Bash(git:*)", "Read"}, File: "spaced.md", Path: "agents/spaced.md"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListAgents:\n got %+v\nwant %+v", got, want)
	}
}

func TestGetAgent(t *testing.T) {
	dir := agentsFixture(t)
	s := New(Options{Agents: Folder{Dir: dir, Prefix: "agents"}})
	ctx := t.Context()

	a, err := s.GetAgent(ctx, "code-reviewer", false)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "code-reviewer.md"))
	if a.Name != "code-reviewer" || a.Path != "agents/code-reviewer.md" || a.Content != string(data) || a.SHA != BlobSHA(data) {
		t.Errorf("GetAgent(code-reviewer) = %+v", a)
	}
	// By frontmatter name, any case, when no file has that name.
	a, err = s.GetAgent(ctx, "PLANNER", false)
	if err != nil || a.Path != "agents/planner.md" || a.Name != "Planner" {
		t.Errorf("GetAgent(PLANNER) = %+v, %v", a, err)
	}
	// Sub-folders hold no profiles.
	if _, err := s.GetAgent(ctx, "nested/deep", false); failure.KindOf(err) != failure.NotFound {
		t.Errorf("GetAgent(nested/deep): got %v, want not found", err)
	}
	_, err = s.GetAgent(ctx, "nobody", false)
	if failure.KindOf(err) != failure.NotFound || !strings.Contains(err.Error(), "code-reviewer") {
		t.Errorf("GetAgent(nobody): got %v, want not found listing the agents", err)
	}
	for _, bad := range []string{"../secrets", "/etc/passwd", `a\b`, "", "x..y"} {
		_, err := s.GetAgent(ctx, bad, false)
		var fe *failure.Error
		if !asFailure(err, &fe) || fe.Reason != "INVALID_PATH" {
			t.Errorf("GetAgent(%q): got %v, want INVALID_PATH", bad, err)
		}
	}
}

func TestGetAgentSeesEditsAndSkipCache(t *testing.T) {
	dir := agentsFixture(t)
	now := time.Unix(1000, 0)
	s := New(Options{Agents: Folder{Dir: dir, Prefix: "agents"}, MaxAge: time.Minute, Now: func() time.Time { return now }})
	ctx := t.Context()
	if _, _, err := s.ListAgents(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"late.md": "---\nname: Latecomer\n---\n"})
	// Within MaxAge, the listing is the cached one...
	if l, _, _ := s.ListAgents(ctx); len(l) != 5 {
		t.Errorf("ListAgents within MaxAge: %d agents, want the 5 cached", len(l))
	}
	// ...but a get by file name reads the folder, and skip_cache a lookup by name.
	if _, err := s.GetAgent(ctx, "late", false); err != nil {
		t.Errorf("GetAgent(late) by file name: %v", err)
	}
	if _, err := s.GetAgent(ctx, "latecomer", false); err == nil {
		t.Errorf("GetAgent(latecomer) without skip_cache found a profile the cached index does not have")
	}
	if a, err := s.GetAgent(ctx, "latecomer", true); err != nil || a.Name != "Latecomer" {
		t.Errorf("GetAgent(latecomer, fresh) = %+v, %v", a, err)
	}
	now = now.Add(2 * time.Minute)
	if l, _, _ := s.ListAgents(ctx); len(l) != 6 {
		t.Errorf("ListAgents after MaxAge: %d agents, want 6", len(l))
	}
}

func TestNoFoldersConfigured(t *testing.T) {
	s := New(Options{})
	ctx := t.Context()
	if l, _, err := s.ListAgents(ctx); err != nil || l == nil || len(l) != 0 {
		t.Errorf("ListAgents = %v, %v; want an empty, non-nil list", l, err)
	}
	if idx, err := s.ListDocs(ctx); err != nil || idx.Pages == nil || len(idx.Pages) != 0 || len(idx.Tree) != 0 {
		t.Errorf("ListDocs = %v, %v", idx, err)
	}
	if _, err := s.GetAgent(ctx, "x", false); failure.KindOf(err) != failure.NotFound || !strings.Contains(err.Error(), "AGENTS_DIR") {
		t.Errorf("GetAgent: %v", err)
	}
	if _, err := s.GetDoc(ctx, []string{"x"}, false); failure.KindOf(err) != failure.NotFound || !strings.Contains(err.Error(), "DOCS_DIR") {
		t.Errorf("GetDoc: %v", err)
	}
}

func docsFixture(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "docs")
	write(t, dir, map[string]string{
		"index.md":                     "---\ntitle: Home\ndescription: Start here\n---\n# Home\n",
		"getting-started.md":           "# Getting started\nInstall it.\n",
		"guides/index.md":              "---\ndescription: All the guides\n---\n",
		"guides/setup.mdx":             "---\ntitle: Setup\ndescription: Set up the server\n---\n<Tabs/>\n",
		"guides/deploy.md":             "---\ndescription: Deploy it\n---\n",
		"guides/deploy.mdx":            "---\ndescription: shadowed by deploy.md\n---\n",
		"reference/api.md":             "---\ndescription: The API\n---\n",
		"reference.md":                 "---\ndescription: Reference overview\n---\n",
		"reference/cli/index.mdx":      "---\ndescription: The CLI\n---\n",
		"reference/cli/commands/ls.md": "---\ndescription: ls\n---\n",
		"notes.txt":                    "not a page",
		".drafts/secret.md":            "---\ndescription: hidden\n---\n",
		"UPPER.MD":                     "not a page (extension case)",
	})
	return dir
}

func TestListDocs(t *testing.T) {
	dir := docsFixture(t)
	s := New(Options{Docs: Folder{Dir: dir, Prefix: "docs"}})
	idx, err := s.ListDocs(t.Context())
	pages, tree := idx.Pages, idx.Tree
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range pages {
		paths = append(paths, p.Path+"="+p.File)
	}
	wantPaths := []string{
		"=index.md", "getting-started=getting-started.md", "guides=guides/index.md", "guides/deploy=guides/deploy.md",
		"guides/setup=guides/setup.mdx", "reference=reference.md", "reference/api=reference/api.md",
		"reference/cli=reference/cli/index.mdx", "reference/cli/commands/ls=reference/cli/commands/ls.md",
	}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("pages:\n got %v\nwant %v", paths, wantPaths)
	}
	if pages[1].Title != "Getting started" || pages[4].Title != "Setup" || pages[2].Title != "guides" {
		t.Errorf("titles: %q %q %q", pages[1].Title, pages[4].Title, pages[2].Title)
	}
	got, _ := json.Marshal(tree)
	want := `{"getting-started":"Getting started","guides":{"deploy":"Deploy it","index":"All the guides","setup":"Set up the server"},` +
		`"index":"Start here","reference":{"api":"The API","cli":{"commands":{"ls":"ls"},"index":"The CLI"},"index":"Reference overview"}}`
	if string(got) != want {
		t.Errorf("tree:\n got %s\nwant %s", got, want)
	}
}

func TestGetDoc(t *testing.T) {
	dir := docsFixture(t)
	s := New(Options{Docs: Folder{Dir: dir, Prefix: "docs"}})
	ctx := t.Context()
	for _, tc := range []struct {
		path     []string
		wantFile string
	}{
		{nil, "docs/index.md"},
		{[]string{"guides"}, "docs/guides/index.md"},
		{[]string{"guides", "index"}, "docs/guides/index.md"},
		{[]string{"guides", "setup"}, "docs/guides/setup.mdx"},
		{[]string{"guides", "deploy"}, "docs/guides/deploy.md"},
		{[]string{"guides/deploy"}, "docs/guides/deploy.md"},
		{[]string{"reference"}, "docs/reference.md"},
		{[]string{"reference", "cli"}, "docs/reference/cli/index.mdx"},
	} {
		d, err := s.GetDoc(ctx, tc.path, false)
		if err != nil {
			t.Errorf("GetDoc(%q): %v", tc.path, err)
			continue
		}
		data, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), filepath.FromSlash(tc.wantFile)))
		if d.FilePath != tc.wantFile || d.Content != string(data) || d.SHA != BlobSHA(data) || d.Path != strings.Join(tc.path, "/") {
			t.Errorf("GetDoc(%q) = %+v, want file %s", tc.path, d, tc.wantFile)
		}
	}
	_, err := s.GetDoc(ctx, []string{"guides", "nope"}, false)
	if failure.KindOf(err) != failure.NotFound || !strings.Contains(err.Error(), "docs/guides/nope/index.md") {
		t.Errorf("GetDoc(missing): %v", err)
	}
	for _, bad := range [][]string{{".."}, {"guides", "../../etc"}, {"/etc"}, {`guides\setup`}, {""}, {"guides//setup"}, {"a", "."}} {
		_, err := s.GetDoc(ctx, bad, false)
		var fe *failure.Error
		if !asFailure(err, &fe) || fe.Reason != "INVALID_PATH" {
			t.Errorf("GetDoc(%q): got %v, want INVALID_PATH", bad, err)
		}
	}
}

func TestSymlinkOutsideFolderRefused(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "secret.md")
	write(t, base, map[string]string{"secret.md": "---\ndescription: secret\n---\nTOP SECRET\n", "docs/ok.md": "# ok\n"})
	if err := os.Symlink(outside, filepath.Join(base, "docs", "leak.md")); err != nil {
		t.Skip("symlinks not available:", err)
	}
	s := New(Options{Docs: Folder{Dir: filepath.Join(base, "docs"), Prefix: "docs"}})
	idx, err := s.ListDocs(t.Context())
	pages := idx.Pages
	if err != nil || len(pages) != 1 || pages[0].Path != "ok" {
		t.Errorf("ListDocs = %+v, %v; want only ok", pages, err)
	}
	d, err := s.GetDoc(t.Context(), []string{"leak"}, false)
	if err == nil || strings.Contains(d.Content, "SECRET") {
		t.Errorf("GetDoc(leak) = %+v, %v; want refused", d, err)
	}
}

func asFailure(err error, fe **failure.Error) bool {
	if err == nil {
		return false
	}
	f, ok := err.(*failure.Error)
	*fe = f
	return ok
}

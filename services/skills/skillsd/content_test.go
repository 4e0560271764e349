package skillsd_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Agents and docs each from their own local folder, through the environment.
func TestContentFromLocalFolders(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "skills", "a", "SKILL.md"), skillstest.SkillMD("a", "does a"))
	writeFile(t, filepath.Join(base, "team-agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews\nmodel: opus\ntools: [Read]\n---\nReview.\n")
	writeFile(t, filepath.Join(base, "site", "index.md"), "---\ndescription: Home\n---\n")
	writeFile(t, filepath.Join(base, "site", "guides", "setup.mdx"), "---\ndescription: Setup\n---\n")
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{filepath.Join(base, "skills")},
		Getenv:     envOf(map[string]string{"AGENTS_DIR": filepath.Join(base, "team-agents"), "DOCS_DIR": filepath.Join(base, "site")}),
	})
	c := skillsv1.NewContentServiceClient(conn)
	ctx := t.Context()
	la, err := c.ListAgents(ctx, &skillsv1.ListAgentsRequest{})
	if err != nil || len(la.GetAgents()) != 1 || la.GetAgents()[0].GetModel() != "opus" || la.GetAgents()[0].GetPath() != "reviewer.md" {
		t.Fatalf("ListAgents = %v, %v", la, err)
	}
	ga, err := c.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "reviewer"})
	if err != nil || ga.GetPath() != "team-agents/reviewer.md" || len(ga.GetSha()) != 40 {
		t.Fatalf("GetAgent = %v, %v", ga, err)
	}
	ld, err := c.ListDocs(ctx, &skillsv1.ListDocsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"index": "Home", "guides": map[string]any{"setup": "Setup"}}
	if got := ld.GetTree().AsMap(); !reflect.DeepEqual(got, want) {
		t.Errorf("ListDocs tree = %v, want %v", got, want)
	}
	gd, err := c.GetDoc(ctx, &skillsv1.GetDocRequest{Path: []string{"guides", "setup"}})
	if err != nil || gd.GetFilePath() != "site/guides/setup.mdx" {
		t.Errorf("GetDoc = %v, %v", gd, err)
	}
	_, err = c.GetDoc(ctx, &skillsv1.GetDocRequest{Path: []string{"..", "skills"}})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("GetDoc(..): %v, want InvalidArgument", err)
	}
	_, err = c.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "nobody"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("GetAgent(nobody): %v, want NotFound", err)
	}
}

// Agents from a git repository on its own branch and path, docs from another
// repository; skip_cache fetches the new commit.
func TestContentFromGitRepositories(t *testing.T) {
	agentsRepo := skillstest.NewGitRepo(t)
	agentsRepo.Commit("agents", map[string]string{"team/agents/planner.md": "---\nname: planner\ndescription: Plans\n---\n"})
	docsRepo := skillstest.NewGitRepo(t)
	docsRepo.Commit("docs", map[string]string{"content/index.md": "# Welcome\n", "content/api/index.mdx": "---\ndescription: API\n---\n"})
	state := t.TempDir()
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{t.TempDir()},
		Getenv: envOf(map[string]string{
			"SKILLSD_HOME": state,
			"AGENTS_REPO":  agentsRepo.URL(), "AGENTS_PATH": "team/agents",
			"DOCS_REPO": docsRepo.URL(), "DOCS_PATH": "content",
		}),
	})
	c := skillsv1.NewContentServiceClient(conn)
	ctx := t.Context()
	ga, err := c.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "planner"})
	if err != nil || ga.GetPath() != "team/agents/planner.md" {
		t.Fatalf("GetAgent = %v, %v", ga, err)
	}
	gd, err := c.GetDoc(ctx, &skillsv1.GetDocRequest{Path: []string{"api"}})
	if err != nil || gd.GetFilePath() != "content/api/index.mdx" {
		t.Fatalf("GetDoc = %v, %v", gd, err)
	}
	agentsRepo.Commit("more", map[string]string{"team/agents/coder.md": "---\nname: coder\n---\n"})
	if _, err := c.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "coder"}); status.Code(err) != codes.NotFound {
		t.Errorf("GetAgent(coder) before skip_cache: %v, want NotFound", err)
	}
	if ga, err := c.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "coder", SkipCache: true}); err != nil || ga.GetName() != "coder" {
		t.Errorf("GetAgent(coder, skip_cache) = %v, %v", ga, err)
	}
}

func TestGitHubRepoOf(t *testing.T) {
	for _, tc := range []struct{ url, api, want string }{
		{"https://github.com/octo/skills.git", "https://api.github.com", "octo/skills"},
		{"https://github.com/octo/skills", "https://api.github.com", "octo/skills"},
		{"git@github.com:octo/skills.git", "https://api.github.com", "octo/skills"},
		{"ssh://git@github.com/octo/skills", "https://api.github.com", "octo/skills"},
		{"https://ghe.example.com/org/docs.git", "https://ghe.example.com/api/v3", "org/docs"},
		{"https://gitlab.com/octo/skills.git", "https://api.github.com", ""},
		{"file:///tmp/repo", "https://api.github.com", ""},
		{"https://github.com/octo", "https://api.github.com", ""},
	} {
		got, ok := skillsd.GitHubRepoOf(tc.url, tc.api)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("GitHubRepoOf(%q, %q) = %q, %v; want %q", tc.url, tc.api, got, ok, tc.want)
		}
	}
}

func TestGitHubAuthSettings(t *testing.T) {
	srv, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{t.TempDir()}, Cwd: t.TempDir(), Home: t.TempDir(),
		Getenv: envOf(map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if g := srv.GitHubAuth(); g.Enabled || g.APIURL != "https://ghe.example.com/api/v3" || len(g.Repos) != 0 {
		t.Errorf("GitHubAuth() = %+v", g)
	}
	srv2, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{t.TempDir()}, Cwd: t.TempDir(), Home: t.TempDir(),
		Getenv: envOf(map[string]string{"GITHUB_AUTH_REPOS": "octo/skills,octo/docs"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv2.Close()
	if g := srv2.GitHubAuth(); !reflect.DeepEqual(g.Repos, []string{"octo/skills", "octo/docs"}) || g.APIURL != "https://api.github.com" {
		t.Errorf("GitHubAuth() = %+v", g)
	}
}

// One repository serving the skills, agents and docs (SKILLS_REPO alone):
// all three are served, from one checkout under the state folder (that one
// syncer does it is checked in package refresh).
func TestSkillsRepoServesContentFromOneCheckout(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{
		"skills/a/SKILL.md":  skillstest.SkillMD("a", "does a"),
		"agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n",
		"docs/index.md":      "---\ndescription: Home\n---\n",
	})
	state := t.TempDir()
	conn := skillstest.Start(t, skillsd.Options{
		Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true,
		Getenv: envOf(map[string]string{"SKILLS_REPO": repo.URL(), "SKILLSD_HOME": state}),
	})
	ctx := t.Context()
	if _, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "a"}); err != nil {
		t.Fatalf("GetSkill(a): %v", err)
	}
	c := skillsv1.NewContentServiceClient(conn)
	if la, err := c.ListAgents(ctx, &skillsv1.ListAgentsRequest{}); err != nil || len(la.GetAgents()) != 1 {
		t.Fatalf("ListAgents = %v, %v", la, err)
	}
	if ld, err := c.ListDocs(ctx, &skillsv1.ListDocsRequest{}); err != nil || len(ld.GetTree().AsMap()) != 1 {
		t.Fatalf("ListDocs = %v, %v", ld, err)
	}
	clones, err := filepath.Glob(filepath.Join(state, "git", "*.git"))
	if err != nil || len(clones) != 1 {
		t.Errorf("clones under the state folder: got %v (%v), want one", clones, err)
	}
}

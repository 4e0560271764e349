package mcpgw

import (
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestToolsDuringFirstClone: an MCP server in front of a skillsd still
// cloning its git source for the first time answers at once — a tool says
// the catalog is loading, not that the server is unreachable — and tells
// the client when the catalog is in (resources/list_changed), after which
// the tools answer.
func TestToolsDuringFirstClone(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "reading PDF documents")})
	url, release := skillstest.ServeGitGated(t, repo)
	home := t.TempDir()
	env := map[string]string{"SKILLS_REPO": url, "SKILLSD_HOME": home}
	srv, err := skillsd.New(t.Context(), skillsd.Options{Getenv: func(k string) string { return env[k] }, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cs, n, _ := watchedClient(t, conn, "")

	res, text := callTool(t, cs, "list_skills", map[string]any{})
	if !res.IsError || !strings.Contains(text, "catalog is loading (cloning") || strings.Contains(text, "unreachable") {
		t.Fatalf("list_skills during the first clone: %q; want an error saying the catalog is loading", text)
	}

	// A client lists the resources at start: that fails while loading…
	if _, err := cs.ListResources(t.Context(), nil); err == nil || !strings.Contains(err.Error(), "catalog is loading") {
		t.Fatalf("resources/list during the first clone: %v; want an error saying the catalog is loading", err)
	}

	// …and it is told when the catalog is in.
	release()
	if err := srv.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	n.waitFor(t, "resources/list_changed", "")
	if uris := resourceURIs(t, cs); strings.Join(uris, ",") != "skill://pdf/SKILL.md" {
		t.Errorf("resources after the clone: %v", uris)
	}
	deadline := time.Now().Add(20 * time.Second) // hang detection
	for {
		res, text = callTool(t, cs, "list_skills", map[string]any{})
		if !res.IsError && strings.Contains(text, `"pdf"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("list_skills after the clone: %q", text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

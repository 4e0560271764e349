package skillsd_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// semanticServer serves the examples with env and returns a routing client;
// when semantic search is on, once every skill has its vector (the vectors
// of a restart come from the disk cache, read in the background: until then
// searches are lexical and send no query).
func semanticServer(t *testing.T, env map[string]string, logs *syncBuffer) skillsv1.RoutingServiceClient {
	t.Helper()
	srv, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{examples(t)}, Cwd: t.TempDir(), Home: t.TempDir(), Getenv: envOf(env),
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cc := skillsv1.NewCatalogServiceClient(conn)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := cc.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if sem := st.GetSemantic(); sem == nil || sem.GetPendingCount() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("semantic search not ready: %v", st.GetSemantic())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return skillsv1.NewRoutingServiceClient(conn)
}

func route(t *testing.T, rc skillsv1.RoutingServiceClient) {
	t.Helper()
	for _, q := range []string{"harden a docker image", "write a postmortem", "database migration"} {
		resp, err := rc.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: q})
		if err != nil || len(resp.GetResults()) == 0 {
			t.Fatalf("search %q: %v, %d results", q, err, len(resp.GetResults()))
		}
		if _, err := rc.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: q}); err != nil {
			t.Fatalf("match %q: %v", q, err)
		}
	}
}

// With the default provider (none) nothing leaves the machine, even with an
// endpoint and a key configured.
func TestEmbeddingNoneSendsNothing(t *testing.T) {
	fake := embedtest.NewServer(t)
	logs := &syncBuffer{}
	rc := semanticServer(t, map[string]string{
		"EMBEDDING_BASE_URL": fake.BaseURL(), "OPENAI_API_KEY": "sk-never-sent", "SKILLSD_HOME": t.TempDir(),
		"SKILLS_MATCHING_STRATEGY": "ranked",
	}, logs)
	route(t, rc)
	time.Sleep(50 * time.Millisecond) // room for a background pass that must not exist
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("provider none: %d requests sent to the embedding endpoint", n)
	}
}

func TestEmbeddingOpenAIThroughSkillsd(t *testing.T) {
	fake := embedtest.NewServer(t)
	home := t.TempDir()
	const key = "sk-skillsd-test-key"
	env := map[string]string{
		"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": fake.BaseURL(), "EMBEDDING_MODEL": "fake-bow",
		"OPENAI_API_KEY": key, "SKILLSD_HOME": home, "SKILLS_MATCHING_STRATEGY": "ranked",
	}
	logs := &syncBuffer{}
	rc := semanticServer(t, env, logs)
	// The skills are embedded at start, in the background.
	deadline := time.Now().Add(10 * time.Second)
	var cache []string
	for len(cache) == 0 && time.Now().Before(deadline) {
		cache, _ = filepath.Glob(filepath.Join(home, "embeddings", "*.gob"))
		time.Sleep(5 * time.Millisecond)
	}
	if len(cache) == 0 {
		t.Fatalf("no embedding cache under SKILLSD_HOME; requests: %d", len(fake.Requests()))
	}
	skillTexts := fake.Inputs()
	route(t, rc)
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Authorization != "Bearer "+key || last.Model != "fake-bow" || len(last.Input) != 1 {
		t.Errorf("query request: %+v", last)
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the API key is in the log")
	}

	// A restart embeds no skill again: only queries go out.
	fi, _ := os.Stat(cache[0])
	rc2 := semanticServer(t, env, &syncBuffer{})
	before := fake.Inputs()
	route(t, rc2)
	time.Sleep(50 * time.Millisecond)
	if got := fake.Inputs() - before; got != 6 { // 3 searches + 3 matches
		t.Errorf("after a restart: %d texts sent, want the 6 queries only (skills: %d)", got, skillTexts)
	}
	if fi2, _ := os.Stat(cache[0]); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("the cache was rewritten although nothing changed")
	}
}

// A skill added to the catalog is embedded when the catalog is rebuilt, not
// at the next search; the others are not embedded again.
func TestEmbeddingAtCatalogBuild(t *testing.T) {
	fake := embedtest.NewServer(t)
	root := t.TempDir()
	writeSkill(t, root, "alpha")
	env := map[string]string{"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": fake.BaseURL(), "SKILLSD_HOME": t.TempDir()}
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, NoWatch: true, Cwd: t.TempDir(), Home: t.TempDir(), Getenv: envOf(env)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	waitInputs := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for fake.Inputs() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := fake.Inputs(); got != n {
			t.Fatalf("texts embedded: got %d, want %d", got, n)
		}
	}
	waitInputs(1)
	writeSkill(t, root, "beta")
	if _, err := skillsv1.NewCatalogServiceClient(conn).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
		t.Fatal(err)
	}
	waitInputs(2)
	reqs := fake.Requests()
	if in := reqs[len(reqs)-1].Input; len(in) != 1 || !strings.HasPrefix(in[0], "beta\n") {
		t.Errorf("after the rebuild: embedded %q, want beta only", in)
	}
}

// GetCatalogStatus reports the semantic search's progress: absent without a
// provider; pending skills and the endpoint's error while it fails; every
// routable skill embedded once it answers.
func TestSemanticStatus(t *testing.T) {
	status := func(env map[string]string) func() *skillsv1.GetCatalogStatusResponse {
		t.Helper()
		srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true,
			Cwd: t.TempDir(), Home: t.TempDir(), Getenv: envOf(env)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		conn, err := srv.DialInProcess(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		cc := skillsv1.NewCatalogServiceClient(conn)
		return func() *skillsv1.GetCatalogStatusResponse {
			t.Helper()
			resp, err := cc.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
	}
	if s := status(map[string]string{"SKILLSD_HOME": t.TempDir()})().GetSemantic(); s != nil {
		t.Errorf("provider none: semantic status %v, want none", s)
	}

	const key = "sk-status-test-key"
	down := embedtest.NewServer(t)
	down.Fail(503)
	get := status(map[string]string{"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": down.BaseURL(),
		"EMBEDDING_MODEL": "fake-bow", "OPENAI_API_KEY": key, "SKILLSD_HOME": t.TempDir()})
	deadline := time.Now().Add(10 * time.Second)
	resp := get()
	for resp.GetSemantic().GetLastError() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		resp = get()
	}
	s := resp.GetSemantic()
	if s.GetModel() != "fake-bow" || s.GetEmbeddedCount() != 0 || s.GetPendingCount() != resp.GetRoutableCount() ||
		!strings.Contains(s.GetLastError(), "503") || s.GetLastErrorAt() == nil || strings.Contains(s.GetLastError(), key) {
		t.Errorf("endpoint down: %v (routable %d)", s, resp.GetRoutableCount())
	}

	up := embedtest.NewServer(t)
	get = status(map[string]string{"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": up.BaseURL(), "SKILLSD_HOME": t.TempDir()})
	deadline = time.Now().Add(10 * time.Second)
	resp = get()
	for resp.GetSemantic().GetPendingCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		resp = get()
	}
	s = resp.GetSemantic()
	if s.GetPendingCount() != 0 || s.GetEmbeddedCount() != resp.GetRoutableCount() || s.GetEmbeddedCount() == 0 || s.GetLastError() != "" {
		t.Errorf("endpoint up: %v (routable %d)", s, resp.GetRoutableCount())
	}
}

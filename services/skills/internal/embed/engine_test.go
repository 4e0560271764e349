package embed_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

type hitView struct {
	Path    string
	Score   float64
	Matched []string
	Excerpt string
}

// view is what a hit shows of itself (catalog.Skill has unexported fields).
func view(hits []search.Hit) []hitView {
	out := make([]hitView, 0, len(hits))
	for _, h := range hits {
		out = append(out, hitView{h.Skill.Path, h.Score, h.Matched, h.Excerpt})
	}
	return out
}

func decisionView(d search.Decision) string {
	s := fmt.Sprintf("%v %s %q", d.Outcome, d.Strategy, d.Message)
	for _, c := range d.Candidates {
		s += fmt.Sprintf(" [%s %v %v]", c.Skill.Path, c.Score, c.Matched)
	}
	return s
}

func names(hits []search.Hit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Skill.Name)
	}
	return out
}

// ready waits until every skill of set has its vector.
func ready(t *testing.T, set *embed.Set) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for set.Pending() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d skills still without a vector", set.Pending())
		}
		time.Sleep(time.Millisecond)
	}
}

func inProcess(t *testing.T, opts embed.Options) (*embed.Engine, *embed.Set, *search.Index) {
	t.Helper()
	if opts.Provider == nil {
		opts.Provider = embedtest.Provider{}
	}
	e := embed.New(opts)
	t.Cleanup(e.Close)
	skills := fixture()
	set := e.Sync(skills)
	ready(t, set)
	return e, set, search.New(skills, search.Options{})
}

func TestFusionReordersLexicalHits(t *testing.T) {
	_, set, ix := inProcess(t, embed.Options{Weight: 5})
	q := search.Query{Text: "columns collections mongodb backups"}
	lex := ix.Search(q)
	if got, want := names(lex), []string{"csv-tools", "document-store-admin", "nosql-modeling"}; !slices.Equal(got, want) {
		t.Fatalf("lexical: got %v, want %v (fixture changed?)", got, want)
	}
	// The fake model knows MongoDB is NoSQL: nosql-modeling (collections
	// and NoSQL) is the most similar, then document-store-admin (NoSQL
	// only), then csv-tools; at weight 5 that outweighs the lexical gaps.
	fused := set.Search(t.Context(), ix, q)
	if got, want := names(fused), []string{"nosql-modeling", "document-store-admin", "csv-tools"}; !slices.Equal(got, want) {
		t.Errorf("fused: got %v, want %v", got, want)
	}
	byName := map[string]search.Hit{}
	for _, h := range lex {
		byName[h.Skill.Name] = h
	}
	for i, h := range fused {
		l := byName[h.Skill.Name]
		if h.Score > l.Score || i > 0 && h.Score > fused[i-1].Score {
			t.Errorf("%s: score %v, lexical %v: a hit's score is its own, capped so that scores never rise down the list", h.Skill.Name, h.Score, l.Score)
		}
		if !slices.Equal(h.Matched, l.Matched) || h.Excerpt != l.Excerpt {
			t.Errorf("%s: matched %v excerpt %q, want the lexical hit's", h.Skill.Name, h.Matched, h.Excerpt)
		}
	}
	if fused[0].Score != byName["nosql-modeling"].Score {
		t.Errorf("first hit's score %v, want its lexical score", fused[0].Score)
	}
	// The lexical engine's own answer is untouched.
	if again := ix.Search(q); !cmp.Equal(view(again), view(lex)) {
		t.Errorf("lexical search changed: %v", names(again))
	}
	// The default weight for a query alone (0) keeps the lexical order.
	_, def, _ := inProcess(t, embed.Options{})
	if got := def.Search(t.Context(), ix, q); !cmp.Equal(view(got), view(lex)) {
		t.Errorf("default weight: got %v, want the lexical %v", names(got), names(lex))
	}
}

// recorder is a Provider that records the texts of each request.
type recorder struct {
	embedtest.Provider
	mu    sync.Mutex
	calls [][]string
}

func (r *recorder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.calls = append(r.calls, slices.Clone(texts))
	r.mu.Unlock()
	return r.Provider.Embed(ctx, texts)
}

func TestRestatedWeight(t *testing.T) {
	rec := &recorder{}
	_, set, ix := inProcess(t, embed.Options{Provider: rec, RestatedWeight: 5})
	// No skill spells MongoDB: the restatement adds nothing lexically, so
	// the lexical ranking is the query's; its vector means NoSQL.
	q := search.Query{Text: "columns collections backups", Restated: []string{"mongodb mongo"}}
	lex := ix.Search(q)
	if got, want := names(lex), []string{"csv-tools", "document-store-admin", "nosql-modeling"}; !slices.Equal(got, want) {
		t.Fatalf("lexical: got %v, want %v (fixture changed?)", got, want)
	}
	// Alone, the query keeps the lexical order (Weight 0).
	alone := search.Query{Text: q.Text}
	if got, want := set.Search(t.Context(), ix, alone), ix.Search(alone); !cmp.Equal(view(got), view(want)) {
		t.Errorf("alone: got %v, want the lexical %v", names(got), names(want))
	}
	// With the restatement both phrasings go out in one request, their mean
	// vector prefers the NoSQL skills, and RestatedWeight applies.
	rec.mu.Lock()
	rec.calls = nil
	rec.mu.Unlock()
	if got := names(set.Search(t.Context(), ix, q)); got[0] == "csv-tools" || got[2] != "csv-tools" {
		t.Errorf("restated: got %v, want the NoSQL skills before csv-tools", got)
	}
	rec.mu.Lock()
	if len(rec.calls) != 1 || !slices.Equal(rec.calls[0], []string{"columns collections backups", "mongodb mongo"}) {
		t.Errorf("query requests: %q, want one with both phrasings", rec.calls)
	}
	rec.mu.Unlock()
	// A negative RestatedWeight keeps the lexical order; Weight does not
	// apply to a restated query.
	_, off, _ := inProcess(t, embed.Options{Weight: 5, RestatedWeight: -1})
	if got := off.Search(t.Context(), ix, q); !cmp.Equal(view(got), view(lex)) {
		t.Errorf("RestatedWeight -1: got %v, want the lexical %v", names(got), names(lex))
	}
}

func TestMeaningOnlySkillsComeAfterLexicalHits(t *testing.T) {
	// A model that finds sql-schema most similar to every query.
	model := tableModel{query: map[string]float32{"sql-schema": 1, "pdf": 0.05}}
	_, set, ix := inProcess(t, embed.Options{Provider: model, Weight: 1})
	q := search.Query{Text: "fill pdf forms"}
	lex := ix.Search(q)
	if got := names(lex); !slices.Equal(got, []string{"pdf"}) {
		t.Fatalf("lexical: got %v, want [pdf] (fixture changed?)", got)
	}
	got := set.Search(t.Context(), ix, q)
	if !slices.Equal(names(got), []string{"pdf", "sql-schema"}) {
		t.Fatalf("got %v, want the lexical hit first, then the strongly similar skill", names(got))
	}
	if got[1].Score > got[0].Score || len(got[1].Matched) != 0 || got[1].Excerpt == "" {
		t.Errorf("meaning-only hit: %+v", got[1])
	}
	// Limit 1: the lexical hit only.
	q.Limit = 1
	if got := names(set.Search(t.Context(), ix, q)); !slices.Equal(got, []string{"pdf"}) {
		t.Errorf("limit 1: got %v", got)
	}
}

func TestAbstentionKeptUnlessStrong(t *testing.T) {
	_, set, ix := inProcess(t, embed.Options{})
	// No skill spells "mongodb"; nosql-modeling means it.
	q := search.Query{Text: "mongodb"}
	if lex := ix.Search(q); len(lex) != 0 {
		t.Fatalf("lexical: got %v, want abstention", names(lex))
	}
	hits := set.Search(t.Context(), ix, q)
	if got := names(hits); !slices.Equal(got, []string{"nosql-modeling"}) {
		t.Fatalf("fused: got %v, want [nosql-modeling]", got)
	}
	if h := hits[0]; h.Score < embed.DefaultStrongSimilarity || h.Score > 1 || h.Excerpt == "" || h.Matched == nil {
		t.Errorf("semantic hit: %+v", h)
	}
	// Weakly similar: the abstention stays.
	if got := set.Search(t.Context(), ix, search.Query{Text: "mongodb collections of tables"}); len(got) != 0 {
		t.Errorf("weak similarity: got %v, want no hit", names(got))
	}
	// Filters apply to the semantic ranking too.
	q.Allow = func(sk *catalog.Skill) bool { return sk.Name != "nosql-modeling" }
	if got := set.Search(t.Context(), ix, q); len(got) != 0 {
		t.Errorf("filtered: got %v, want no hit", names(got))
	}
	q = search.Query{Text: "mongodb", Category: "documents"}
	if got := set.Search(t.Context(), ix, q); len(got) != 0 {
		t.Errorf("category filter: got %v, want no hit", names(got))
	}
	// A stricter threshold keeps the abstention.
	_, strict, ix2 := inProcess(t, embed.Options{StrongSimilarity: 0.99})
	if got := strict.Search(t.Context(), ix2, search.Query{Text: "mongodb"}); len(got) != 0 {
		t.Errorf("strong_similarity 0.99: got %v, want no hit", names(got))
	}
}

func TestAllTermsIsLexical(t *testing.T) {
	_, set, ix := inProcess(t, embed.Options{})
	q := search.Query{Text: "mongodb", AllTerms: true}
	if got := set.Search(t.Context(), ix, q); len(got) != 0 {
		t.Errorf("all_terms: got %v, want the lexical answer (none)", names(got))
	}
}

func TestMatch(t *testing.T) {
	_, set, ix := inProcess(t, embed.Options{})
	th := search.DefaultThresholds()
	lexical := func(text string) search.Decision {
		return search.Decide(search.RankedCandidates(ix, text, max(th.MaxResults, 2)), th)
	}
	// Abstention overridden by a strong similarity.
	if d := lexical("mongodb"); d.Outcome != search.NoMatch {
		t.Fatalf("lexical: got %v", d.Outcome)
	}
	d := set.Match(t.Context(), ix, "mongodb", nil, th)
	if d.Outcome != search.Match || d.Best().Skill.Name != "nosql-modeling" || d.Strategy != search.StrategyRanked {
		t.Errorf("got %v %v, want a match of nosql-modeling", d.Outcome, d.Candidates)
	}
	// Weak similarity: no match stays.
	if d := set.Match(t.Context(), ix, "mongodb collections of tables", nil, th); d.Outcome != search.NoMatch || d.Message != search.NoMatchMessage {
		t.Errorf("weak: got %v", d.Outcome)
	}
	// Both engines agree: the lexical decision, unchanged.
	text := "extract tables from pdf forms"
	want := lexical(text)
	want.Strategy = search.StrategyRanked
	if want.Outcome != search.Match {
		t.Fatalf("lexical: got %v, want a match (fixture changed?)", want.Outcome)
	}
	if got := set.Match(t.Context(), ix, text, nil, th); decisionView(got) != decisionView(want) {
		t.Errorf("agreement: got %+v, want %+v", got, want)
	}
}

func TestMatchDisagreementIsAmbiguous(t *testing.T) {
	// A model that prefers sql-schema for every query, pdf far behind.
	model := tableModel{query: map[string]float32{"sql-schema": 1, "csv-tools": 0.9, "billing-reports": 0.8, "pdf": 0.1}}
	_, set, ix := inProcess(t, embed.Options{Provider: model, Weight: 3})
	th := search.DefaultThresholds()
	text := "extract tables from pdf forms"
	lex := search.Decide(search.RankedCandidates(ix, text, 3), th)
	if lex.Outcome != search.Match || lex.Best().Skill.Name != "pdf" {
		t.Fatalf("lexical: got %s, want a match of pdf (fixture changed?)", decisionView(lex))
	}
	if got := names(ix.Search(search.Query{Text: text})); !slices.Equal(got, []string{"pdf", "sql-schema"}) {
		t.Fatalf("lexical search: got %v, want [pdf sql-schema] (fixture changed?)", got)
	}
	if got := names(set.Search(t.Context(), ix, search.Query{Text: text})); !slices.Equal(got, []string{"sql-schema", "pdf"}) {
		t.Errorf("fused search: got %v, want [sql-schema pdf]", got)
	}
	d := set.Match(t.Context(), ix, text, nil, th)
	if d.Outcome != search.Ambiguous || d.Message != search.AmbiguousMessage || len(d.Candidates) != 2 ||
		d.Candidates[0].Skill.Name != "sql-schema" || d.Candidates[1].Skill.Name != "pdf" {
		t.Errorf("got %s, want ambiguous between sql-schema and pdf", decisionView(d))
	}
	// With the default weight (0) a query alone keeps the lexical decision.
	_, def, _ := inProcess(t, embed.Options{Provider: model})
	want := lex
	want.Strategy = search.StrategyRanked
	if got := def.Match(t.Context(), ix, text, nil, th); decisionView(got) != decisionView(want) {
		t.Errorf("default weight: got %s, want %s", decisionView(got), decisionView(want))
	}
}

func TestEngineOverHTTP(t *testing.T) {
	srv := embedtest.NewServer(t)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL(), APIKey: secret, Model: "fake-bow"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	skills := fixture()
	ix := search.New(skills, search.Options{})
	e := embed.New(embed.Options{Provider: p, CacheDir: dir, BatchSize: 3})
	set := e.Sync(skills)
	ready(t, set)
	if got := len(srv.Requests()); got != 3 { // 7 skills, 3 a request
		t.Errorf("requests: got %d, want 3", got)
	}
	if got := srv.Inputs(); got != len(skills) {
		t.Errorf("texts embedded: got %d, want %d", got, len(skills))
	}
	if got := names(set.Search(t.Context(), ix, search.Query{Text: "mongodb"})); !slices.Equal(got, []string{"nosql-modeling"}) {
		t.Errorf("search over HTTP: got %v", got)
	}
	if r := srv.Requests()[3]; !slices.Equal(r.Input, []string{"mongodb"}) || r.Authorization != "Bearer "+secret {
		t.Errorf("query request: %+v", r)
	}
	e.Close()

	// A restart reads the cache: no skill is embedded again.
	before := srv.Inputs()
	e2 := embed.New(embed.Options{Provider: p, CacheDir: dir, BatchSize: 3})
	t.Cleanup(e2.Close)
	ready(t, e2.Sync(skills))
	if got := srv.Inputs(); got != before {
		t.Errorf("after a restart: %d texts embedded again, want 0", got-before)
	}

	// An incremental rebuild with one changed skill embeds that one only.
	changed := slices.Clone(skills)
	c := *changed[4]
	c.Description = "Extract text, tables and images from PDF files."
	changed[4] = &c
	ready(t, e2.Sync(changed))
	reqs := srv.Requests()
	if got := srv.Inputs() - before; got != 1 || len(reqs[len(reqs)-1].Input) != 1 {
		t.Fatalf("after one change: %d texts embedded, want 1", got)
	}
	if in := reqs[len(reqs)-1].Input[0]; in[:len("pdf\nExtract text, tables and images")] != "pdf\nExtract text, tables and images" {
		t.Errorf("re-embedded %q, want the changed skill", in)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gob"))
	if len(files) != 1 {
		t.Errorf("cache files: %v, want one for the model", files)
	}
}

func TestEndpointDownSearchStaysLexical(t *testing.T) {
	srv := embedtest.NewServer(t)
	srv.Fail(503)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL(), APIKey: secret})
	if err != nil {
		t.Fatal(err)
	}
	skills := fixture()
	ix := search.New(skills, search.Options{})
	e := embed.New(embed.Options{Provider: p, RetryAfter: 10 * time.Millisecond})
	t.Cleanup(e.Close)
	set := e.Sync(skills)
	queries := []string{"columns collections mongodb backups", "pdf forms", "mongodb"}
	for _, q := range queries {
		if got, want := set.Search(t.Context(), ix, search.Query{Text: q}), ix.Search(search.Query{Text: q}); !cmp.Equal(view(got), view(want)) {
			t.Errorf("%q with the endpoint down: got %v, want the lexical %v", q, names(got), names(want))
		}
	}
	if set.Pending() != len(skills) {
		t.Fatalf("pending: %d", set.Pending())
	}

	// The endpoint comes back: a later search retries and the vectors come.
	srv.Fail(200)
	deadline := time.Now().Add(10 * time.Second)
	for set.Pending() > 0 && time.Now().Before(deadline) {
		set.Search(t.Context(), ix, search.Query{Text: "pdf"})
		time.Sleep(5 * time.Millisecond)
	}
	if set.Pending() != 0 {
		t.Fatalf("vectors not retried: %d pending", set.Pending())
	}
	if got := names(set.Search(t.Context(), ix, search.Query{Text: "mongodb"})); !slices.Equal(got, []string{"nosql-modeling"}) {
		t.Errorf("after recovery: got %v", got)
	}
}

func TestSlowQueryAnswersLexically(t *testing.T) {
	srv := embedtest.NewServer(t)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	skills := fixture()
	ix := search.New(skills, search.Options{})
	e := embed.New(embed.Options{Provider: p, QueryTimeout: 50 * time.Millisecond, RetryAfter: time.Hour})
	t.Cleanup(e.Close)
	set := e.Sync(skills)
	ready(t, set)
	srv.Delay(3 * time.Second)
	q := search.Query{Text: "columns collections mongodb backups"}
	start := time.Now()
	got := set.Search(t.Context(), ix, q)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("search waited %v for the endpoint", d)
	}
	if want := ix.Search(q); !cmp.Equal(view(got), view(want)) {
		t.Errorf("got %v, want the lexical %v", names(got), names(want))
	}
	// Within RetryAfter of the failure no query goes out.
	n := len(srv.Requests())
	set.Search(t.Context(), ix, q)
	if len(srv.Requests()) != n {
		t.Errorf("a query was sent while the endpoint is considered down")
	}
}

func TestCorruptCacheIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	e := embed.New(embed.Options{Provider: embedtest.Provider{}, CacheDir: dir})
	ready(t, e.Sync(fixture()))
	e.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*.gob"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	if err := os.WriteFile(files[0], []byte("not a gob"), 0o600); err != nil {
		t.Fatal(err)
	}
	e2 := embed.New(embed.Options{Provider: embedtest.Provider{}, CacheDir: dir})
	t.Cleanup(e2.Close)
	ready(t, e2.Sync(fixture()))
}

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEval(t *testing.T) {
	dir := catalog(t)
	queries := filepath.Join(t.TempDir(), "queries.jsonl")
	lines := strings.Join([]string{
		`{"id": "q1", "query": "merge PDF documents", "expected": ["pdf"], "kind": "keyword"}`,
		``,
		`{"id": "q2", "query": "zebra xylophone quantum", "expected": []}`,
		`{"id": 3, "query": "   "}`,
	}, "\n")
	if err := os.WriteFile(queries, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "eval", "--skills-dir", dir, "--queries", queries, "--limit", "3")
	r.want(t, 0)
	out := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(out) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(out), r.stdout)
	}
	type result struct {
		ID     any       `json:"id"`
		Ranked []string  `json:"ranked"`
		Scores []float64 `json:"scores"`
	}
	var got []result
	for _, l := range out {
		var res result
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&res); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if res.Ranked == nil || res.Scores == nil || len(res.Ranked) != len(res.Scores) || len(res.Ranked) > 3 {
			t.Errorf("line %q: want ranked and scores of the same length, at most 3", l)
		}
		got = append(got, res)
	}
	if got[0].ID != "q1" || len(got[0].Ranked) == 0 || got[0].Ranked[0] != "pdf" {
		t.Errorf("q1: got %+v, want pdf first", got[0])
	}
	if got[1].ID != "q2" || len(got[1].Ranked) != 0 {
		t.Errorf("q2: got %+v, want an empty ranking (abstain)", got[1])
	}
	if got[2].ID != float64(3) || len(got[2].Ranked) != 0 {
		t.Errorf("id 3: got %+v, want the numeric id kept and an empty ranking", got[2])
	}
}

func TestEvalErrors(t *testing.T) {
	dir := catalog(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"id\": \"q1\", \"query\": \"pdf\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"eval", "--skills-dir", dir}, 2, "--queries"},
		{[]string{"eval", "--skills-dir", dir, "--queries", bad, "--limit", "0"}, 2, "--limit"},
		{[]string{"eval", "--skills-dir", dir, "--queries", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
		{[]string{"eval", "--skills-dir", dir, "--queries", bad}, 1, "line 2"},
	} {
		r := runCLI(t, tt.args...)
		r.want(t, tt.code)
		if !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%v: stderr %q, want %q", tt.args, r.stderr, tt.stderr)
		}
	}
}

// embeddingsAPI is an OpenAI-compatible embeddings endpoint on 127.0.0.1
// (the hosted APIs cannot run here): letter counts as vectors, answers to
// several texts (skills, not a query) after delay, or status when it is not 200. It records each request's
// inputs.
func embeddingsAPI(t *testing.T, delay time.Duration, status int) (url string, inputs func() [][]string) {
	t.Helper()
	var mu sync.Mutex
	var got [][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, in.Input)
		mu.Unlock()
		if len(in.Input) > 1 { // skills, not a query
			time.Sleep(delay)
		}
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"model overloaded"}}`, status)
			return
		}
		type datum struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []datum `json:"data"`
		}
		for i, text := range in.Input {
			v := make([]float32, 26)
			for _, c := range strings.ToLower(text) {
				if c >= 'a' && c <= 'z' {
					v[c-'a']++
				}
			}
			out.Data = append(out.Data, datum{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return append([][]string(nil), got...)
	}
}

// With semantic search on, eval ranks only once every skill has a vector,
// and says so; when the endpoint fails it stops with the endpoint's error
// instead of measuring lexical rankings.
func TestEvalWaitsForSemanticSearch(t *testing.T) {
	dir := catalog(t)
	queries := filepath.Join(t.TempDir(), "queries.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id": "q1", "query": "merge PDF documents"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url, inputs := embeddingsAPI(t, 300*time.Millisecond, http.StatusOK)
	t.Setenv("EMBEDDING_PROVIDER", "openai")
	t.Setenv("EMBEDDING_BASE_URL", url)
	t.Setenv("SKILLSD_HOME", t.TempDir())
	r := runCLI(t, "eval", "--skills-dir", dir, "--queries", queries)
	r.want(t, 0)
	if !strings.Contains(r.stderr, "semantic search ready") || !strings.Contains(r.stdout, `"pdf"`) {
		t.Errorf("stdout %q, stderr %q: want the ranking after \"semantic search ready\"", r.stdout, r.stderr)
	}
	reqs := inputs()
	if len(reqs) < 2 || len(reqs[0]) < 2 || reqs[len(reqs)-1][0] != "merge PDF documents" {
		t.Errorf("requests %q: want the skills embedded, then the query", reqs)
	}

	url, _ = embeddingsAPI(t, 0, http.StatusServiceUnavailable)
	t.Setenv("EMBEDDING_BASE_URL", url)
	t.Setenv("SKILLSD_HOME", t.TempDir())
	r = runCLI(t, "eval", "--skills-dir", dir, "--queries", queries)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "embedding endpoint failed") || !strings.Contains(r.stderr, "503") || r.stdout != "" {
		t.Errorf("endpoint down: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	// --wait 0 ranks at once, with what is there (here: lexically).
	r = runCLI(t, "eval", "--skills-dir", dir, "--queries", queries, "--wait", "0")
	r.want(t, 0)
	if !strings.Contains(r.stdout, `"pdf"`) {
		t.Errorf("--wait 0: stdout %q", r.stdout)
	}
	r = runCLI(t, "eval", "--skills-dir", dir, "--queries", queries, "--wait", "-1s")
	r.want(t, 2)
}

// TestEvalRestated: the restated field (a string or a list) is passed as the
// query's restatements; --no-restated ranks each query alone.
func TestEvalRestated(t *testing.T) {
	dir := catalog(t)
	queries := filepath.Join(t.TempDir(), "queries.jsonl")
	lines := strings.Join([]string{
		`{"id": "a", "query": "stitch my scanned handouts together", "restated": "merge PDF files"}`,
		`{"id": "b", "query": "stitch my scanned handouts together", "restated": ["", "merge PDF files"]}`,
		`{"id": "c", "query": "stitch my scanned handouts together", "restated": null}`,
	}, "\n")
	if err := os.WriteFile(queries, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	first := func(stdout string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
			var res struct {
				Ranked []string `json:"ranked"`
			}
			if err := json.Unmarshal([]byte(l), &res); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			top := ""
			if len(res.Ranked) > 0 {
				top = res.Ranked[0]
			}
			out = append(out, top)
		}
		return out
	}
	r := runCLI(t, "eval", "--skills-dir", dir, "--queries", queries)
	r.want(t, 0)
	if got, want := first(r.stdout), []string{"pdf", "pdf", ""}; !slices.Equal(got, want) {
		t.Errorf("with restated: got %q, want %q", got, want)
	}
	r = runCLI(t, "eval", "--skills-dir", dir, "--queries", queries, "--no-restated")
	r.want(t, 0)
	if got, want := first(r.stdout), []string{"", "", ""}; !slices.Equal(got, want) {
		t.Errorf("--no-restated: got %q, want %q", got, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	for _, line := range []string{`{"id": "d", "query": "pdf", "restated": 5}`, `{"id": "d", "query": "pdf", "restated": [1]}`} {
		if err := os.WriteFile(bad, []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "eval", "--skills-dir", dir, "--queries", bad)
		r.want(t, 1)
		if !strings.Contains(r.stderr, "line 1") || !strings.Contains(r.stderr, "restated") {
			t.Errorf("%s: stderr %q, want the line and the field named", line, r.stderr)
		}
	}
}

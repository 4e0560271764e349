package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

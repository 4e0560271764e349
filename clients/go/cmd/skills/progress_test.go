package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgress: a long run reports how far it is on stderr, and ends with a
// total; a short one says nothing.
func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "eval", "queries ranked", 4, 0)
	for range 4 {
		p.step()
	}
	p.finish()
	for _, want := range []string{"eval: 1 of 4 queries ranked (25%)", "eval: 4 of 4 queries ranked (100%)", "eval: 4 queries ranked in "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	p = newProgress(&buf, "eval", "queries ranked", 0, time.Hour)
	p.step()
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("a short run reported: %q", buf.String())
	}
	p = newProgress(&buf, "eval", "queries ranked", 0, 0)
	p.step()
	if !strings.Contains(buf.String(), "eval: 1 queries ranked, ") {
		t.Errorf("unknown total: %q", buf.String())
	}
}

func TestCountLinesRewinds(t *testing.T) {
	name := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(name, []byte("{\"id\":1}\n\n{\"id\":2}\n  \n{\"id\":3}"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, done, err := openQueries(name)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if n := countLines(in); n != 3 {
		t.Errorf("countLines = %d, want 3", n)
	}
	var rest bytes.Buffer
	if _, err := rest.ReadFrom(in); err != nil || !strings.HasPrefix(rest.String(), "{\"id\":1}") {
		t.Errorf("not rewound: %q, %v", rest.String(), err)
	}
}

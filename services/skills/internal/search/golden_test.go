package search

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/ranking/*.golden from the current ranking")

// goldenQueries are representative requests of each kind the routing
// benchmark has (written for these files, not taken from its queries): the
// ranking of each on the benchmark's corpus is kept in
// testdata/ranking/<name>.golden, so that a change to the engine shows, in
// review, every ranking it moves. Regenerate with -update and read the
// diff.
var goldenQueries = []struct{ name, kind, text string }{
	{"keyword-pdf-merge", "keyword", "merge two PDF files and add page numbers"},
	{"keyword-dockerfile", "keyword", "write a multi-stage Dockerfile for a Go service"},
	{"keyword-terraform", "keyword", "plan and apply Terraform changes to an AWS VPC"},
	{"paraphrase-flaky", "paraphrase", "the tests pass on my laptop but fail at random in the pipeline"},
	{"paraphrase-release-notes", "paraphrase", "summarise what changed since the last tag for our users"},
	{"paraphrase-slides", "paraphrase", "turn these bullet points into something I can present on Monday"},
	{"short-slides", "short", "pptx"},
	{"short-fuzzing", "short", "fuzzing"},
	{"typo-kubernetes", "typo", "kuberntes netwrok policy"},
	{"multi-intent-observability", "multi-intent", "We have five Python services behind an API gateway. Latency went up last week and nobody knows which hop is slow. I want request traces across services and a dashboard of the slowest spans."},
	{"french-pdf", "non-English", "fusionner plusieurs fichiers PDF en un seul document"},
	{"spanish-slides", "non-English", "crear una presentación de diapositivas sobre ventas"},
	{"german-tests", "non-English", "Unit-Tests für eine Python-Bibliothek schreiben"},
	{"japanese-pdf", "non-English", "PDFのフォームに入力して保存したい"},
	{"none-bread", "none", "what is a good recipe for banana bread"},
	{"none-flight", "none", "book me a window seat on a flight to Lisbon"},
}

// goldenRanking renders a query's hits (the best five) for its golden file.
func goldenRanking(ix *Index, kind, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kind: %s\n# query: %s\n", kind, text)
	hits := ix.Search(Query{Text: text, Limit: 5})
	if len(hits) == 0 {
		b.WriteString("(no skill: abstained)\n")
	}
	for i, h := range hits {
		fmt.Fprintf(&b, "%d. %s %.2f %s\n", i+1, h.Skill.Name, h.Score, strings.Join(h.Matched, " "))
	}
	return b.String()
}

func TestRankingGolden(t *testing.T) {
	ix := New(corpusSkills(t), Options{})
	dir := filepath.Join("testdata", "ranking")
	if *updateGolden {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range goldenQueries {
		t.Run(g.name, func(t *testing.T) {
			checkGolden(t, filepath.Join(dir, g.name+".golden"), goldenRanking(ix, g.kind, g.text))
		})
	}
}

// checkGolden compares got with the golden file at path, or with -update
// writes it.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("ranking changed\n--- want (%s)\n%s--- got\n%s", path, want, got)
	}
}

package search

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// restatedQueries are requests of each kind with the restatement a host
// model would pass (written for these files against the small catalog in
// testdata/restated/catalog, not taken from the routing benchmark), and
// two restatements of the wrong kind: a generic category phrase, and a
// restatement that misses where the request itself is right. want is the
// skill the restated search must put first ("" = abstain).
var restatedQueries = []struct{ name, kind, query, restated, want string }{
	{"paraphrase-document-db", "paraphrase", "which database should hold our product catalogue, the kind that stores JSON documents",
		"MongoDB document database schema design for a product catalog", "nosql-data-modeling"},
	{"paraphrase-slow-phones", "paraphrase", "the shop takes ages to show anything on phones",
		"web performance optimization on mobile: lazy loading, bundle size, Core Web Vitals", "web-performance"},
	{"paraphrase-random-failures", "paraphrase", "our checkout tests pass locally and fail at random in the pipeline",
		"flaky tests in CI: race conditions, nondeterminism", "flaky-tests"},
	{"typo-network-policy", "typo", "kuberntes netwrok polcy for the payments namespace",
		"Kubernetes NetworkPolicy restricting traffic to the payments namespace", "k8s-network-policy"},
	{"french-screen-reader", "non-English", "rendre le site utilisable avec un lecteur d'écran",
		"web accessibility for screen readers: ARIA roles, WCAG", "accessibility-audit"},
	{"none-dinner", "none", "what should I cook for dinner tonight", "dinner recipe ideas", ""},
	{"generic-restatement", "keyword", "the dashboard SQL query on PostgreSQL takes 30 seconds",
		"a tool for databases", "sql-query-tuning"},
	{"restatement-misses", "keyword", "merge these two PDFs with pypdf", "document combination utility", "pdf-forms"},
}

// restatedCatalog builds testdata/restated/catalog.
func restatedCatalog(t *testing.T) []*catalog.Skill {
	t.Helper()
	root := &source.Root{Name: "restated", Dir: filepath.Join("testdata", "restated", "catalog"), Kind: source.KindLocal, Trusted: true}
	snap, err := catalog.Build(t.Context(), []*source.Root{root}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Skills()
}

// restatedRanking renders a query's best five hits alone and with its
// restatement: score, the phrasing that matched (q: the query, r1: the
// restatement) and the matched words.
func restatedRanking(ix *Index, kind, query, restated string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kind: %s\n# query: %s\n# restated: %s\n", kind, query, restated)
	for _, run := range []struct {
		label string
		q     Query
	}{
		{"alone", Query{Text: query, Limit: 5}},
		{"restated", Query{Text: query, Restated: []string{restated}, Limit: 5}},
	} {
		fmt.Fprintf(&b, "%s:\n", run.label)
		hits := ix.Search(run.q)
		if len(hits) == 0 {
			b.WriteString("  (no skill: abstained)\n")
		}
		for i, h := range hits {
			phr := "q"
			if h.Phrasing > 0 {
				phr = fmt.Sprintf("r%d", h.Phrasing)
			}
			fmt.Fprintf(&b, "  %d. %s %.2f %s [%s]\n", i+1, h.Skill.Name, h.Score, phr, strings.Join(h.Matched, " "))
		}
	}
	return b.String()
}

// TestRestatedGolden keeps, for each of restatedQueries, the ranking alone
// and restated in testdata/restated/<name>.golden (-update rewrites them;
// read the diff), and checks the skill each restated search must put first.
func TestRestatedGolden(t *testing.T) {
	ix := New(restatedCatalog(t), Options{})
	dir := filepath.Join("testdata", "restated")
	for _, g := range restatedQueries {
		t.Run(g.name, func(t *testing.T) {
			hits := ix.Search(Query{Text: g.query, Restated: []string{g.restated}, Limit: 5})
			switch {
			case g.want == "" && len(hits) > 0:
				t.Errorf("got %s first, want an abstention", hits[0].Skill.Name)
			case g.want != "" && (len(hits) == 0 || hits[0].Skill.Name != g.want):
				t.Errorf("got %v, want %s first", hitNames(hits), g.want)
			}
			checkGolden(t, filepath.Join(dir, g.name+".golden"), restatedRanking(ix, g.kind, g.query, g.restated))
		})
	}
}

func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Skill.Name
	}
	return out
}

// TestRestatedKeepsTypoTolerance: a misspelt request whose restatement
// misses the skill still finds it through its own typo tolerance, and says
// so (phrasing 0, the corrected words).
func TestRestatedKeepsTypoTolerance(t *testing.T) {
	ix := New(restatedCatalog(t), Options{})
	q := Query{Text: "kuberntes netwrok polcy", Restated: []string{"cluster traffic rules between services"}, Limit: 5}
	hits := ix.Search(q)
	if len(hits) == 0 || hits[0].Skill.Name != "k8s-network-policy" || hits[0].Phrasing != 0 {
		t.Fatalf("got %v, want k8s-network-policy first from the query itself", hitNames(hits))
	}
	if got := strings.Join(hits[0].Matched, " "); got != "kubernetes network policy" {
		t.Errorf("matched %q, want the corrected words", got)
	}
}

// TestRestatedAbstention: when the query abstains, a restatement answers
// only from restatedThreshold; when the query answers, the threshold does
// not matter.
func TestRestatedAbstention(t *testing.T) {
	skills := restatedCatalog(t)
	strict := defaultTuning
	strict.restatedThreshold = 1.01
	def, never := New(skills, Options{}), New(skills, Options{tune: &strict})
	rescued := Query{Text: "the shop takes ages to show anything on phones",
		Restated: []string{"web performance optimization on mobile: lazy loading, bundle size, Core Web Vitals"}}
	if hits := def.Search(Query{Text: rescued.Text}); len(hits) != 0 {
		t.Fatalf("alone: got %v, want an abstention (fixture changed?)", hitNames(hits))
	}
	if hits := def.Search(rescued); len(hits) == 0 || hits[0].Skill.Name != "web-performance" {
		t.Errorf("restated, threshold 0.5: got %v, want web-performance", hitNames(hits))
	}
	if hits := never.Search(rescued); len(hits) != 0 {
		t.Errorf("restated, threshold above 1: got %v, want an abstention", hitNames(hits))
	}
	answered := Query{Text: "merge these two PDFs with pypdf", Restated: []string{"document combination utility"}}
	if a, b := hitNames(def.Search(answered)), hitNames(never.Search(answered)); len(a) == 0 || !slices.Equal(a, b) {
		t.Errorf("the query answers: got %v and %v, want the same answer whatever the restated threshold", a, b)
	}
}

// TestRestatedRepeatsIgnored: a restatement that repeats the query (case
// and spaces aside), or a blank one, changes nothing.
func TestRestatedRepeatsIgnored(t *testing.T) {
	ix := New(restatedCatalog(t), Options{})
	text := "merge PDF files with pypdf"
	want := ix.Search(Query{Text: text})
	for _, rest := range [][]string{{"  MERGE pdf  files with PYPDF "}, {""}, {" ", text}} {
		got := ix.Search(Query{Text: text, Restated: rest})
		if len(got) != len(want) {
			t.Fatalf("%q: got %v, want %v", rest, hitNames(got), hitNames(want))
		}
		for i := range got {
			if got[i].Skill != want[i].Skill || got[i].Score != want[i].Score || got[i].Phrasing != 0 {
				t.Errorf("%q: hit %d %s %v phrasing %d, want %s %v", rest, i, got[i].Skill.Name, got[i].Score, got[i].Phrasing,
					want[i].Skill.Name, want[i].Score)
			}
		}
	}
	if got := (Query{Text: text, Restated: []string{"", text, "pdf forms", "PDF  forms"}}).Phrasings(); !slices.Equal(got, []string{text, "pdf forms"}) {
		t.Errorf("Phrasings: got %q", got)
	}
}

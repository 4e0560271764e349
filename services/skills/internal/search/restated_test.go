package search

import (
	"fmt"
	"os"
	"path/filepath"
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
			got := restatedRanking(ix, g.kind, g.query, g.restated)
			path := filepath.Join(dir, g.name+".golden")
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

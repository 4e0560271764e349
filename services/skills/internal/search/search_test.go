package search

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// rankSkill is a routable skill for ranking tests.
func rankSkill(name, desc, body string) *catalog.Skill {
	return &catalog.Skill{
		Path: name, Name: name, Description: desc, Routable: true,
		Doc: &skill.Document{HasFrontmatter: true, Body: body, Frontmatter: skill.Frontmatter{Name: name, Description: desc}},
	}
}

// rankFixture is a small catalog with confusable skills.
func rankFixture() []*catalog.Skill {
	pdf := rankSkill("pdf", "Extract text and tables from PDF files, fill PDF forms, merge and split documents.",
		"# PDF\n\nUse pypdf to read pages.\n\n```python\nfrom pypdf import PdfReader\n```\n")
	pdf.Doc.Frontmatter.Category = "documents"
	pdf.Doc.Frontmatter.Tags = []string{"pdf", "forms"}
	docx := rankSkill("docx", "Create and edit Word documents (.docx) with tracked changes and comments.",
		"# DOCX\n\nWord documents are zip files of XML. Comments and tracked changes live in separate parts.\n")
	docx.Doc.Frontmatter.Category = "documents"
	docx.Doc.Frontmatter.Tags = []string{"word"}
	k8s := rankSkill("k8s-security-policies", "Kubernetes network policies, RBAC and pod security standards to isolate namespaces.",
		"# Kubernetes security\n\nNetworkPolicy objects isolate pods; RBAC limits what service accounts can do.\n")
	k8s.Doc.Frontmatter.Category = "infrastructure"
	fix := rankSkill("fix", "Fix failing or flaky Playwright tests.",
		"# Fix flaky tests\n\nDiagnose a Playwright test that passes intermittently.\n")
	e2e := rankSkill("e2e-testing-patterns", "End-to-end testing patterns with Playwright and Cypress.",
		"# E2E\n\nPage objects, fixtures and retries in Playwright. Playwright traces help with debugging.\n")
	worktrees := rankSkill("using-git-worktrees", "Use git worktrees to work on several branches at once in separate folders.",
		"# Worktrees\n\ngit worktree add ../hotfix main\n")
	scrna := rankSkill("scanpy", "Single-cell RNA-seq analysis with scanpy: clustering, UMAP, marker genes.",
		"# scanpy\n\nscRNA-seq workflows: quality control, normalisation, clustering.\n")
	// A skill that mentions PDFs many times in its body, but is about
	// something else: the name and description must win over it.
	report := rankSkill("report-writer", "Write business reports with charts and an executive summary.",
		strings.Repeat("The report can be exported as PDF. ", 20))
	hidden := rankSkill("pdf-secret", "PDF PDF PDF: hidden from models.", "pdf")
	hidden.Routable = false
	return []*catalog.Skill{pdf, docx, k8s, fix, e2e, worktrees, scrna, report, hidden}
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Skill.Name
	}
	return out
}

func TestSearchFindsTheRightSkill(t *testing.T) {
	ix := New(rankFixture(), Options{})
	tests := []struct {
		name, query string
		want        string // or any of wantAny
		wantAny     []string
	}{
		{"name", "pdf", "pdf", nil},
		{"description words", "fill in a form in a PDF", "pdf", nil},
		{"stemming", "editing word documents with comments", "docx", nil},
		{"name beats repeated body mentions", "the PDF", "pdf", nil},
		{"typo", "kuberentes network polices", "k8s-security-policies", nil},
		{"typo at distance two", "kbernetess network policies", "k8s-security-policies", nil},
		{"french", "Configure une politique réseau Kubernetes pour isoler le namespace des paiements.", "k8s-security-policies", nil},
		{"spanish", "políticas de red de Kubernetes", "k8s-security-policies", nil},
		{"japanese with an english word", "Playwrightの不安定なテストを直して", "", []string{"fix", "e2e-testing-patterns"}},
		{"words run together", "scrnaseq clustering", "scanpy", nil},
		{"irregular verb", "I wrote a hotfix on another branch in a separate folder with git", "using-git-worktrees", nil},
		{"proximity", "flaky playwright tests", "fix", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search(Query{Text: tt.query})
			want := tt.wantAny
			if tt.want != "" {
				want = []string{tt.want}
			}
			if len(hits) == 0 || !slices.Contains(want, hits[0].Skill.Name) {
				t.Errorf("Search(%q) = %v, want %v first", tt.query, names(hits), want)
			}
		})
	}
}

func TestSearchInvariants(t *testing.T) {
	skills := rankFixture()
	ix := New(skills, Options{})
	queries := []string{
		"pdf", "pdf forms", "word documents", "kubernetes", "playwright tests", "git", "clustering",
		"Extract text and tables from PDF files", "tests tests tests", "PDF pdf Pdf",
	}
	for _, q := range queries {
		for _, limit := range []int{0, 1, 3} {
			hits := ix.Search(Query{Text: q, Limit: limit})
			if want := cmpLimit(limit); len(hits) > want {
				t.Errorf("%q limit %d: %d hits", q, limit, len(hits))
			}
			words := strings.Fields(strings.ToLower(q))
			for i, h := range hits {
				if h.Score <= 0 || h.Score > 1 {
					t.Errorf("%q: hit %s score %v outside (0, 1]", q, h.Skill.Name, h.Score)
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("%q: scores not sorted: %v then %v", q, hits[i-1].Score, h.Score)
				}
				if !h.Skill.Routable {
					t.Errorf("%q: non-routable skill %s returned", q, h.Skill.Name)
				}
				if len(h.Matched) == 0 {
					t.Errorf("%q: hit %s matched nothing", q, h.Skill.Name)
				}
				for _, m := range h.Matched {
					if !slices.Contains(words, m) {
						t.Errorf("%q: hit %s matched %q, not a query word", q, h.Skill.Name, m)
					}
				}
				if h.Excerpt == "" {
					t.Errorf("%q: hit %s has no excerpt", q, h.Skill.Name)
				}
			}
			// Deterministic.
			if again := ix.Search(Query{Text: q, Limit: limit}); !slices.Equal(names(again), names(hits)) {
				t.Errorf("%q: %v then %v", q, names(hits), names(again))
			}
		}
	}
}

func cmpLimit(limit int) int {
	if limit <= 0 {
		return DefaultLimit
	}
	return limit
}

func TestSearchMatchedReportsTypoCorrections(t *testing.T) {
	ix := New(rankFixture(), Options{})
	hits := ix.Search(Query{Text: "kuberentes rbac"})
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	if got := hits[0].Matched; !slices.Equal(got, []string{"kubernetes", "rbac"}) {
		t.Errorf("Matched = %q, want the skill's spelling of the misspelt word", got)
	}
}

func TestSearchAbstains(t *testing.T) {
	ix := New(rankFixture(), Options{})
	for _, q := range []string{
		"",
		"   ",
		"the and of to",                         // stop words only
		"How do I descale my espresso machine?", // nothing applies
		"Write a limerick about a cat who loves lasagna.",
		"1234 5678",
	} {
		if hits := ix.Search(Query{Text: q}); len(hits) != 0 || hits == nil {
			t.Errorf("Search(%q) = %v (nil %v), want an empty answer", q, names(hits), hits == nil)
		}
	}
	// The same query answers without a threshold, and with a low one.
	q := Query{Text: "How do I descale my espresso machine with a PDF manual?"}
	if hits := New(rankFixture(), Options{Threshold: -1}).Search(q); len(hits) == 0 {
		t.Errorf("Threshold -1: no hits for %q", q.Text)
	}
	// A strict threshold abstains on a good query.
	if hits := New(rankFixture(), Options{Threshold: 0.999}).Search(Query{Text: "pdf forms"}); len(hits) != 0 {
		t.Errorf("Threshold 0.999: %v", names(hits))
	}
}

func TestSearchFilters(t *testing.T) {
	ix := New(rankFixture(), Options{Threshold: -1})
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"category", Query{Text: "documents", Category: "Documents"}, []string{"docx", "pdf"}},
		{"category excludes", Query{Text: "kubernetes", Category: "documents"}, []string{}},
		{"tags: all must be there", Query{Text: "pdf forms", Tags: []string{"PDF", "forms"}}, []string{"pdf"}},
		{"tags: a missing tag", Query{Text: "pdf", Tags: []string{"pdf", "word"}}, []string{}},
		{"allow", Query{Text: "playwright tests", Allow: func(sk *catalog.Skill) bool { return sk.Name != "fix" }}, []string{"e2e-testing-patterns"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(ix.Search(tt.q))
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSearchDynamicCut(t *testing.T) {
	// Eight skills mention "widget"; one is about widgets.
	var skills []*catalog.Skill
	skills = append(skills, rankSkill("widget-builder", "Build and theme widgets: widget layout, widget state.", "# Widgets\n\nwidget widget widget"))
	for i := range 7 {
		skills = append(skills, rankSkill(fmt.Sprintf("other-%d", i), fmt.Sprintf("Unrelated tool number %d for reports.", i),
			strings.Repeat("Lorem ipsum dolor sit amet. ", 30)+"It has a widget."))
	}
	all := New(skills, Options{Threshold: -1, CutRatio: -1}).Search(Query{Text: "widget"})
	cut := New(skills, Options{Threshold: -1}).Search(Query{Text: "widget"})
	if len(all) != 8 {
		t.Fatalf("without the cut: %d hits, want 8", len(all))
	}
	if len(cut) == 0 || len(cut) >= len(all) || cut[0].Skill.Name != "widget-builder" {
		t.Fatalf("with the cut: %v", names(cut))
	}
	for _, h := range cut {
		if h.Score < DefaultCutRatio*cut[0].Score {
			t.Errorf("%s kept with %v < %v × %v", h.Skill.Name, h.Score, DefaultCutRatio, cut[0].Score)
		}
	}
	for _, h := range all[len(cut):] {
		if h.Score >= DefaultCutRatio*all[0].Score {
			t.Errorf("%s dropped with %v ≥ %v × %v", h.Skill.Name, h.Score, DefaultCutRatio, all[0].Score)
		}
	}
	// Five hits or fewer are never cut.
	few := New(skills[:5], Options{Threshold: -1}).Search(Query{Text: "widget"})
	if len(few) != 5 {
		t.Errorf("5 candidates: %d hits, want 5", len(few))
	}
}

func TestSearchEmptyIndex(t *testing.T) {
	for _, skills := range [][]*catalog.Skill{nil, {rankFixture()[8]}} { // none, or only a hidden one
		ix := New(skills, Options{})
		if ix.Len() != 0 {
			t.Errorf("Len = %d, want 0", ix.Len())
		}
		for _, q := range []Query{{Text: "pdf"}, {Text: "pdf", AllTerms: true}} {
			if hits := ix.Search(q); hits == nil || len(hits) != 0 {
				t.Errorf("Search(%+v) = %v, want []", q, hits)
			}
		}
	}
}

func TestSearchConcurrent(t *testing.T) {
	ix := New(rankFixture(), Options{})
	want := names(ix.Search(Query{Text: "pdf forms"}))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				q := []string{"pdf forms", "kubernetes rbac", "flaky playwright", "pdf", "scrnaseq"}[(g+i)%5]
				hits := ix.Search(Query{Text: q, AllTerms: i%7 == 0})
				if q == "pdf forms" && i%7 != 0 && !slices.Equal(names(hits), want) {
					t.Errorf("concurrent search: %v, want %v", names(hits), want)
				}
			}
		})
	}
	wg.Wait()
}

func TestStopWordsOption(t *testing.T) {
	skills := rankFixture()
	plain := New(skills, Options{Threshold: -1}).Search(Query{Text: "playwright"})
	if len(plain) == 0 {
		t.Fatal("no hits for playwright")
	}
	stopped := New(skills, Options{Threshold: -1, StopWords: []string{"Playwright"}}).Search(Query{Text: "playwright"})
	if len(stopped) != 0 {
		t.Errorf("with playwright a stop word: %v", names(stopped))
	}
}

package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

func TestAllTerms(t *testing.T) {
	skills := rankFixture()
	ix := New(skills, Options{})
	tests := []struct {
		name  string
		q     Query
		want  []string // in order
		score float64
	}{
		{"one token", Query{Text: "pypdf", AllTerms: true}, []string{"pdf"}, 1},
		{"every token must be there", Query{Text: "playwright flaky", AllTerms: true}, []string{"fix"}, 2},
		{"substrings count, case ignored", Query{Text: "PLAYWRI", AllTerms: true}, []string{"e2e-testing-patterns", "fix"}, 1},
		{"name and metadata count", Query{Text: "k8s infrastructure", AllTerms: true}, []string{"k8s-security-policies"}, 2},
		{"repeated tokens count once", Query{Text: "pypdf pypdf", AllTerms: true}, []string{"pdf"}, 1},
		{"no stemming, no stop words", Query{Text: "the flakiest", AllTerms: true}, []string{}, 0},
		{"non-routable skills never", Query{Text: "hidden", AllTerms: true}, []string{}, 0},
		{"filters apply", Query{Text: "documents", AllTerms: true, Tags: []string{"word"}}, []string{"docx"}, 1},
		{"limit", Query{Text: "e", AllTerms: true, Limit: 2}, nil, 1},
		{"empty query", Query{Text: "  ", AllTerms: true}, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search(tt.q)
			if hits == nil {
				t.Fatal("nil hits, want an empty slice")
			}
			if tt.want != nil {
				got := names(hits)
				if tt.name == "substrings count, case ignored" {
					slices.Sort(got)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("hits %v, want %v", got, tt.want)
				}
			} else if len(hits) != tt.q.Limit {
				t.Errorf("%d hits, want %d", len(hits), tt.q.Limit)
			}
			for _, h := range hits {
				if h.Score != tt.score {
					t.Errorf("%s: score %v, want %v", h.Skill.Name, h.Score, tt.score)
				}
				if len(h.Matched) == 0 || h.Excerpt == "" {
					t.Errorf("%s: matched %q excerpt %q", h.Skill.Name, h.Matched, h.Excerpt)
				}
			}
		})
	}
}

func TestAllTermsOrderAndExcerpt(t *testing.T) {
	// Both have "widget"; the one about widgets comes first.
	a := rankSkill("mentions-widget", "A tool for reports.", strings.Repeat("Filler words here. ", 30)+"It can embed a widget.")
	b := rankSkill("widget-builder", "Build widgets: widget layout, widget themes.", "# Widgets\n\nwidget")
	ix := New([]*catalog.Skill{a, b}, Options{})
	hits := ix.Search(Query{Text: "Widget", AllTerms: true})
	if got := names(hits); !slices.Equal(got, []string{"widget-builder", "mentions-widget"}) {
		t.Fatalf("hits %v", got)
	}
	if ex := hits[1].Excerpt; !strings.Contains(ex, "embed a widget") || !strings.HasPrefix(ex, "…") {
		t.Errorf("excerpt %q: want the window around the first match in the body", ex)
	}
	if !slices.Equal(hits[0].Matched, []string{"widget"}) {
		t.Errorf("matched %q", hits[0].Matched)
	}
}

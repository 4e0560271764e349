package search

import (
	"math"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzSearch feeds arbitrary query text and restatements (any script,
// broken UTF-8, control characters, huge repetitions) to the ranked and the
// all-terms search. It must never panic, must respect the limit, and ranked
// scores must stay in (0, 1], best first; excerpts must be valid UTF-8; a
// hit's phrasing must be one that was given; the same query must give the
// same answer twice.
func FuzzSearch(f *testing.F) {
	for _, seed := range []string{
		"pdf forms", "Playwrightの不安定なテストを直して", "fusionner des PDF", "k8s RBAC", "",
		"\xff\xfe broken", "c#é f#日本 c#", "a-b_c/d.e", "tests tests tests tests", "ﬁle ligature", "Ⅻ",
	} {
		f.Add(seed, "", 3, false)
		f.Add(seed, "PDF form filling with pypdf", 3, false)
	}
	f.Add("pdf forms", "pdf forms", 5, false)
	f.Add("", "k8s RBAC", 5, false)
	ix := New(rankFixture(), Options{})
	f.Fuzz(func(t *testing.T, text, restated string, limit int, allTerms bool) {
		limit = limit % 60
		q := Query{Text: text, Limit: limit, AllTerms: allTerms}
		if restated != "" {
			q.Restated = []string{restated, text}
		}
		hits := ix.Search(q)
		if len(hits) > cmpLimit(limit) {
			t.Fatalf("%q limit %d: %d hits", text, limit, len(hits))
		}
		for i, h := range hits {
			if !allTerms && (h.Score <= 0 || h.Score > 1) {
				t.Errorf("%q: hit %s score %v outside (0, 1]", text, h.Skill.Name, h.Score)
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("%q: scores not sorted: %v then %v", text, hits[i-1].Score, h.Score)
			}
			if !utf8.ValidString(h.Excerpt) {
				t.Errorf("%q: hit %s has an excerpt that is not UTF-8: %q", text, h.Skill.Name, h.Excerpt)
			}
			if h.Phrasing < 0 || h.Phrasing > len(q.Restated) || (allTerms && h.Phrasing != 0) {
				t.Errorf("%q + %q: hit %s from phrasing %d", text, restated, h.Skill.Name, h.Phrasing)
			}
		}
		if again := ix.Search(q); !slices.Equal(names(again), names(hits)) {
			t.Errorf("%q: %v then %v", text, names(hits), names(again))
		}
	})
}

// FuzzMatch feeds arbitrary contexts to both match strategies over seed
// 000's reference tree: never a panic; a match names exactly one skill, an
// ambiguous answer at least two and at most MaxResults, no match none;
// scores stay finite and not negative.
func FuzzMatch(f *testing.F) {
	for _, seed := range []string{
		"create a React login form with JWT", "go", "golang gin api", "le composant React", "",
		"c#é", "\x00\x01", "REACT react React", "auth auth auth auth",
	} {
		f.Add(seed, "")
		f.Add(seed, "React authentication with JWT")
	}
	skills := matchFixture(f)
	matchers := []*Matcher{
		NewMatcher(skills, MatcherOptions{Strategy: StrategyKeyword}),
		NewMatcher(skills, MatcherOptions{Strategy: StrategyRanked}),
	}
	f.Fuzz(func(t *testing.T, context, restated string) {
		for _, m := range matchers {
			d := m.Match(context, restated)
			switch d.Outcome {
			case Match:
				if len(d.Candidates) != 1 {
					t.Errorf("%s %q: a match with %d candidates", m.Strategy(), context, len(d.Candidates))
				}
			case Ambiguous:
				if n := len(d.Candidates); n < 2 || n > DefaultThresholds().MaxResults {
					t.Errorf("%s %q: ambiguous with %d candidates", m.Strategy(), context, n)
				}
			case NoMatch:
				if len(d.Candidates) != 0 {
					t.Errorf("%s %q: no match with %d candidates", m.Strategy(), context, len(d.Candidates))
				}
			}
			for _, c := range d.Candidates {
				if c.Score < 0 || math.IsNaN(c.Score) || math.IsInf(c.Score, 0) {
					t.Errorf("%s %q: %s scored %v", m.Strategy(), context, c.Skill.Path, c.Score)
				}
			}
		}
	})
}

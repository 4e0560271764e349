package search

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzSearch feeds arbitrary query text (any script, broken UTF-8, control
// characters, huge repetitions) to the ranked and the all-terms search. It
// must never panic, must respect the limit, and ranked scores must stay in
// (0, 1], best first; excerpts must be valid UTF-8; the same query must
// give the same answer twice.
func FuzzSearch(f *testing.F) {
	for _, seed := range []string{
		"pdf forms", "Playwrightの不安定なテストを直して", "fusionner des PDF", "k8s RBAC", "",
		"\xff\xfe broken", "c#é f#日本 c#", "a-b_c/d.e", "tests tests tests tests", "ﬁle ligature", "Ⅻ",
	} {
		f.Add(seed, 3, false)
	}
	ix := New(rankFixture(), Options{})
	f.Fuzz(func(t *testing.T, text string, limit int, allTerms bool) {
		limit = limit % 60
		q := Query{Text: text, Limit: limit, AllTerms: allTerms}
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
		}
		if again := ix.Search(q); !slices.Equal(names(again), names(hits)) {
			t.Errorf("%q: %v then %v", text, names(hits), names(again))
		}
	})
}

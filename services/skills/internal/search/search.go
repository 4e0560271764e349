package search

import (
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// Query is one search.
type Query struct {
	// Text is the user's words: a task description, a few keywords, a
	// question.
	Text string
	// Restated are other phrasings of Text by the caller — a host model's
	// restatement in plain technical terms, naming the technologies and
	// concepts the request implies. In ranked mode each phrasing is ranked
	// on its own and the rankings are fused (restated.go); blank ones and
	// repeats of Text are ignored. All-terms mode ignores them.
	Restated []string
	// Limit is the most hits returned; 0 means DefaultLimit.
	Limit int
	// AllTerms selects seed 002's mode: only skills whose name, description,
	// keywords, tags, category and body together contain every token of Text
	// (lower-cased, split at white space; substrings count) hit, scored by
	// the number of tokens. Otherwise search is ranked.
	AllTerms bool
	// Category, when set, keeps only skills of this category (case
	// insensitive).
	Category string
	// Tags, when set, keeps only skills that have every one of these tags
	// (case insensitive).
	Tags []string
	// Allow, when set, keeps only the skills it returns true for (the
	// enabled subset of seed 004 §8.3).
	Allow func(*catalog.Skill) bool
}

// Hit is one skill found.
type Hit struct {
	Skill *catalog.Skill
	// Score is, in ranked mode, in 0..1: for the best hit, the calibrated
	// probability that it is the right skill (1 = certain); for the others,
	// that times their raw relevance relative to the best's. In all-terms
	// mode it is the number of query tokens matched.
	Score float64
	// Matched are the query's words that the skill matched (lower case;
	// for a misspelt word, the skill's spelling), in query order.
	Matched []string
	// Excerpt is about 160 characters of the skill's text around the best
	// match, cut at word boundaries, with "…" where cut.
	Excerpt string
	// Phrasing says which phrasing of the query the hit's score, Matched
	// and Excerpt come from: 0 for Query.Text, i for Query.Restated[i-1].
	Phrasing int
}

// Search returns the skills for q, best first. In ranked mode it returns no
// hits when nothing applies: when the best skill's calibrated score is below
// the threshold (Options.Threshold).
func (ix *Index) Search(q Query) []Hit {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	if q.AllTerms {
		return ix.searchAllTerms(q)
	}
	if rest := restatements(q); len(rest) > 0 {
		return ix.searchRestated(q, rest)
	}
	// Seed 004: rank limit×4 candidates; when more than 5 hit, keep those
	// with at least CutRatio of the best score; then limit.
	r := ix.rank(q, q.Limit*4)
	defer ix.release(r)
	if len(r.cands) == 0 || r.cands[0].score < ix.threshold {
		return []Hit{}
	}
	cands := ix.cut(r.cands, q.Limit)
	hits := make([]Hit, len(cands))
	for i, c := range cands {
		hits[i] = ix.hit(r, c.doc, c.score, 0)
	}
	return hits
}

// hit is skill d's hit with score, its matched words and excerpt those of
// result r, the ranking of phrasing.
func (ix *Index) hit(r *result, d int32, score float64, phrasing int) Hit {
	doc := &ix.docs[d]
	return Hit{
		Skill:    doc.skill,
		Score:    score,
		Matched:  r.matched(ix, d),
		Excerpt:  ix.excerpt(doc, r, d),
		Phrasing: phrasing,
	}
}

// cut is seed 004's dynamic cut (when more than 5 candidates hit, keep those
// scoring at least cutRatio times the best), then the limit.
func (ix *Index) cut(cands []cand, limit int) []cand {
	if len(cands) > 5 && ix.cutRatio > 0 {
		top := cands[0].score
		n := 0
		for n < len(cands) && cands[n].score >= top*ix.cutRatio {
			n++
		}
		cands = cands[:n]
	}
	return cands[:min(len(cands), limit)]
}

// Allows reports whether sk passes q's filters: Category, Tags and Allow.
// Ranked and all-terms search apply it, and so does package embed's fusion.
func (q Query) Allows(sk *catalog.Skill) bool {
	sel := catalog.Selection{Category: q.Category, Tags: q.Tags}
	return sel.Selects(sk) && (q.Allow == nil || q.Allow(sk))
}

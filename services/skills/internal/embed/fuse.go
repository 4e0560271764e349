package embed

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// The fusion rule (docs/routing.md, "Semantic search (optional)"). Semantic
// evidence may refine what the lexical engine found, never outweigh it:
//
//   - The lexical engine ranks as always (search.Index.Search: a query's
//     restatements fused, abstention, seed 004's cut, the limit).
//   - The query's vector is its embedding, or with restatements the mean of
//     its phrasings' embeddings. Each skill the query's filters allow has a
//     similarity (cosine) and a z: that similarity in standard deviations
//     above the mean over those skills, which does not depend on the
//     model's scale (unrelated texts score 0.1 with some models, 0.5 with
//     others).
//   - When the lexical engine answers, its hits are reordered by their
//     score times exp(w × z) — w is Options.Weight for a query alone,
//     Options.RestatedWeight with restatements: a small weight only swaps
//     hits whose lexical scores are close. The skills it did not find join
//     after its hits only when strongly similar (≥ StrongSimilarity, 0.75
//     by default) and among the limit most similar. A hit's score is its
//     own evidence (the lexical score; the similarity for a skill found by
//     meaning alone), capped so that scores never rise down the list.
//   - When the lexical engine abstains, the answer stays empty unless some
//     skill's similarity is strong: then those skills answer, scored by
//     their similarity.
//   - When the query cannot be embedded in time, or no skill vector is known
//     yet, the answer is the lexical engine's, unchanged.
//
// The weights are calibrated on the routing benchmark with the model make
// bench-quality-semantic uses (a small English sentence encoder): for a
// query alone every weight above 0 lowered some figure of the development
// queries (a near-tie of a Japanese query flips first), so the default is
// 0; with a restatement the mean vector is better evidence: weights from
// 0.05 to 0.5 lower no figure, 0.2 to 0.5 gain in both halves of the
// queries, and the default is 0.3. Other models: measure, then set the
// weights.

// fused is one skill of the fused ranking.
type fused struct {
	skill *catalog.Skill
	lex   *search.Hit // nil when found by meaning alone
	cos   float64
	key   float64
}

// Search is search.Index.Search with the semantic evidence fused in.
func (s *Set) Search(ctx context.Context, ix *search.Index, q search.Query) []search.Hit {
	if q.AllTerms {
		return ix.Search(q)
	}
	if q.Limit <= 0 {
		q.Limit = search.DefaultLimit
	}
	lex := ix.Search(q)
	ranked, lexicalOnly := s.fuse(ctx, lex, q)
	if lexicalOnly {
		return lex
	}
	hits := make([]search.Hit, 0, len(ranked))
	for i, f := range ranked {
		var h search.Hit
		if f.lex != nil {
			h = *f.lex
		} else {
			h = search.Hit{Skill: f.skill, Score: f.cos, Matched: []string{}, Excerpt: descriptionExcerpt(f.skill.Description)}
		}
		if i > 0 {
			h.Score = min(h.Score, hits[i-1].Score)
		}
		hits = append(hits, h)
	}
	return hits
}

// fuse orders the lexical hits and the strongly similar skills;
// lexicalOnly is true when there is no semantic evidence to fuse.
func (s *Set) fuse(ctx context.Context, lex []search.Hit, q search.Query) (ranked []fused, lexicalOnly bool) {
	e := s.e
	r := s.vectors()
	e.kick(false) // retries a failed pass once RetryAfter has passed
	if r.missing == len(s.skills) {
		return nil, true
	}
	phrasings := q.Phrasings()
	qv, ok := e.query(ctx, phrasings)
	if !ok {
		return nil, true
	}
	// cos[i] is skill i's similarity; noCos when it has no vector or the
	// filters leave it out. strong are the skills at least StrongSimilarity
	// similar.
	const noCos = -2.0
	cos := make([]float64, len(s.skills))
	var strong []int
	var sum, sumSq, n float64
	for i, sk := range s.skills {
		v := r.vecs[i]
		if v == nil || !q.Allows(sk) {
			cos[i] = noCos
			continue
		}
		c := dot(qv, v)
		if c != c { // NaN: another dimension (model changed under the same name)
			e.log.WarnContext(ctx, "query and skill vectors differ in dimension; answering lexically")
			return nil, true
		}
		cos[i] = c
		sum, sumSq, n = sum+c, sumSq+c*c, n+1
		if c >= e.opts.StrongSimilarity {
			strong = append(strong, i)
		}
	}
	slices.SortFunc(strong, func(a, b int) int {
		if c := cmp.Compare(cos[b], cos[a]); c != 0 {
			return c
		}
		return cmp.Compare(s.skills[a].Path, s.skills[b].Path)
	})
	strong = strong[:min(len(strong), q.Limit)]

	if len(lex) == 0 {
		// Keep the lexical abstention unless the similarity is strong.
		out := make([]fused, len(strong))
		for k, i := range strong {
			out[k] = fused{skill: s.skills[i], cos: cos[i]}
		}
		return out, false
	}

	// z of a similarity: standard deviations above the mean.
	mean := sum / max(n, 1)
	sd := math.Sqrt(max(sumSq/max(n, 1)-mean*mean, 0))
	w := e.opts.Weight
	if len(phrasings) > 1 {
		w = e.opts.RestatedWeight
	}
	out := make([]fused, 0, len(lex)+len(strong))
	in := make(map[*catalog.Skill]bool, len(lex))
	for k := range lex {
		f := fused{skill: lex[k].Skill, lex: &lex[k], key: lex[k].Score}
		if i, ok := s.pos[f.skill]; ok && cos[i] != noCos {
			f.cos = cos[i]
			if sd > 0 && w > 0 {
				f.key *= math.Exp(w * (cos[i] - mean) / sd)
			}
		}
		in[f.skill] = true
		out = append(out, f)
	}
	// Ties keep the lexical order.
	slices.SortStableFunc(out, func(a, b fused) int { return cmp.Compare(b.key, a.key) })
	// A skill the lexical engine did not find joins after its hits, only
	// when strongly similar and among the limit most similar.
	for _, i := range strong {
		if !in[s.skills[i]] {
			out = append(out, fused{skill: s.skills[i], cos: cos[i]})
		}
	}
	return out[:min(len(out), q.Limit)], false
}

// Match is the ranked strategy's decision (search.Matcher with
// search.StrategyRanked) with the semantic evidence, for a context and its
// restatements:
//
//   - the lexical decision is made as always;
//   - no match stays no match unless the best similarity is strong: then the
//     decision (search.Decide) is taken over the strongly similar skills,
//     scored by similarity;
//   - a match stays the match when the fused ranking puts the same skill
//     first; when it puts another first the two rankings disagree and the
//     answer is ambiguous, the candidates in fused order;
//   - an ambiguous answer stays ambiguous, its candidates in fused order.
func (s *Set) Match(ctx context.Context, ix *search.Index, text string, restated []string, th search.Thresholds) search.Decision {
	if th == (search.Thresholds{}) {
		th = search.DefaultThresholds()
	}
	n := max(th.MaxResults, 2)
	lexCands := search.RankedCandidates(ix, text, n, restated...)
	d := search.Decide(lexCands, th)
	d.Strategy = search.StrategyRanked
	hits := s.Search(ctx, ix, search.Query{Text: text, Restated: restated, Limit: n})
	if len(hits) == 0 {
		return d
	}
	cands := make([]search.Candidate, len(hits))
	for i, h := range hits {
		cands[i] = search.Candidate{Skill: h.Skill, Score: h.Score, Matched: h.Matched, Phrasing: h.Phrasing}
	}
	switch d.Outcome {
	case search.NoMatch:
		if len(lexCands) > 0 {
			// The lexical engine ranked skills, all under MinScore: the
			// decision stays no match.
			return d
		}
		// The lexical engine abstained and the hits are the strongly
		// similar skills, scored by similarity.
		sd := search.Decide(cands, th)
		sd.Strategy = search.StrategyRanked
		return sd
	case search.Match:
		if hits[0].Skill == d.Best().Skill {
			return d
		}
		return search.Decision{Outcome: search.Ambiguous, Strategy: search.StrategyRanked,
			Candidates: cands[:min(max(th.MaxResults, 2), len(cands))], Message: search.AmbiguousMessage}
	default:
		d.Candidates = cands[:min(max(th.MaxResults, 1), len(cands))]
		return d
	}
}

// descriptionExcerpt is the description cut to about 160 characters at a
// word boundary, the excerpt of a skill found by meaning alone.
func descriptionExcerpt(desc string) string {
	const n = 160
	r := []rune(strings.Join(strings.Fields(desc), " "))
	if len(r) <= n {
		return string(r)
	}
	cut := n
	for cut > n/2 && r[cut] != ' ' {
		cut--
	}
	return strings.TrimSpace(string(r[:cut])) + "…"
}

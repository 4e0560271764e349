package embed

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// The fusion rule (docs/routing.md, "Semantic search (optional)"):
//
//   - The lexical engine ranks as always (search.Index.Search: abstention,
//     seed 004's cut, the limit). The semantic ranking orders the skills the
//     query's filters allow by the cosine similarity of their vector with
//     the query's.
//   - When the lexical engine answers, the candidates are its hits plus the
//     skills it did not find that are strongly similar (≥ StrongSimilarity,
//     0.75 by default) and among the limit most similar: semantic evidence
//     reorders what the lexical engine found, and adds a skill only when it
//     is strong. They are ranked by reciprocal rank fusion: a skill scores
//     Σ 1/(k + rank) over the two rankings it is in (k = 60); ties go to
//     the better lexical rank, then the path; then the limit applies.
//     A hit's score is its own evidence, capped so that scores never rise
//     down the list: the lexical score (calibrated, 0..1) for a lexical
//     hit, the similarity for a skill found by meaning alone.
//   - When the lexical engine abstains, the answer stays empty unless the
//     best similarity is strong (≥ StrongSimilarity, 0.75 by default): then
//     the skills at least that similar are the answer, scored by their
//     similarity.
//   - When the query cannot be embedded in time, or no skill vector is known
//     yet, the answer is the lexical engine's, unchanged.

// fused is one skill of the fused ranking.
type fused struct {
	skill   *catalog.Skill
	lex     *search.Hit // nil when not a lexical hit
	lexRank int         // 1-based; 0 when not a lexical hit
	cos     float64
	semRank int // 1-based; 0 when not in the semantic ranking
	rrf     float64
}

// Search is search.Index.Search fused with the semantic ranking.
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

// fuse ranks the union of the lexical hits and the semantic ranking;
// lexicalOnly is true when there is no semantic ranking to fuse with.
func (s *Set) fuse(ctx context.Context, lex []search.Hit, q search.Query) (ranked []fused, lexicalOnly bool) {
	e := s.e
	r := s.vectors()
	e.kick(false) // retries a failed pass once RetryAfter has passed
	if r.missing == len(s.skills) {
		return nil, true
	}
	qv, ok := e.query(ctx, q.Text)
	if !ok {
		return nil, true
	}
	// cos[i] is skill i's similarity; noCos when it has no vector or the
	// filters leave it out. strong are the skills at least StrongSimilarity
	// similar. Only they and the lexical hits need a rank: no full sort.
	const noCos = -2.0
	cos := make([]float64, len(s.skills))
	var strong []int
	for i, sk := range s.skills {
		v := r.vecs[i]
		if v == nil || !allowed(q, sk) {
			cos[i] = noCos
			continue
		}
		c := dot(qv, v)
		if c != c { // NaN: another dimension (model changed under the same name)
			e.log.WarnContext(ctx, "query and skill vectors differ in dimension; answering lexically")
			return nil, true
		}
		cos[i] = c
		if c >= e.opts.StrongSimilarity {
			strong = append(strong, i)
		}
	}
	// semRank is skill i's 1-based rank by similarity (ties by path).
	semRank := func(i int) int {
		rank := 1
		for j, c := range cos {
			if c > cos[i] || (c == cos[i] && j != i && s.skills[j].Path < s.skills[i].Path) {
				rank++
			}
		}
		return rank
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
		for n, i := range strong {
			out[n] = fused{skill: s.skills[i], cos: cos[i], semRank: n + 1}
		}
		return out, false
	}

	k := float64(e.opts.RRFK)
	byPath := make(map[string]*fused, len(lex)+len(strong))
	all := make([]*fused, 0, len(lex)+len(strong))
	for n := range lex {
		f := &fused{skill: lex[n].Skill, lex: &lex[n], lexRank: n + 1, rrf: 1 / (k + float64(n+1))}
		if i, ok := s.pos[f.skill]; ok && cos[i] != noCos {
			f.cos, f.semRank = cos[i], semRank(i)
			f.rrf += 1 / (k + float64(f.semRank))
		}
		byPath[f.skill.Path] = f
		all = append(all, f)
	}
	// A skill the lexical engine did not find joins only when strongly
	// similar and among the limit most similar.
	for n, i := range strong {
		if _, ok := byPath[s.skills[i].Path]; ok {
			continue
		}
		f := &fused{skill: s.skills[i], cos: cos[i], semRank: n + 1, rrf: 1 / (k + float64(n+1))}
		byPath[f.skill.Path] = f
		all = append(all, f)
	}
	slices.SortStableFunc(all, func(a, b *fused) int {
		if c := cmp.Compare(b.rrf, a.rrf); c != 0 {
			return c
		}
		if c := cmp.Compare(rankOrMax(a.lexRank), rankOrMax(b.lexRank)); c != 0 {
			return c
		}
		return cmp.Compare(a.skill.Path, b.skill.Path)
	})
	all = all[:min(len(all), q.Limit)]
	out := make([]fused, len(all))
	for i, f := range all {
		out[i] = *f
	}
	return out, false
}

// Match is the ranked strategy's decision (search.Matcher with
// search.StrategyRanked) with the semantic ranking:
//
//   - the lexical decision is made as always;
//   - no match stays no match unless the best similarity is strong: then the
//     decision (search.Decide) is taken over the strongly similar skills,
//     scored by similarity;
//   - a match stays the match when the fused ranking puts the same skill
//     first; when it puts another first the two rankings disagree and the
//     answer is ambiguous, the candidates in fused order;
//   - an ambiguous answer stays ambiguous, its candidates in fused order.
func (s *Set) Match(ctx context.Context, ix *search.Index, text string, th search.Thresholds) search.Decision {
	if th == (search.Thresholds{}) {
		th = search.DefaultThresholds()
	}
	n := max(th.MaxResults, 2)
	lexCands := search.RankedCandidates(ix, text, n)
	d := search.Decide(lexCands, th)
	d.Strategy = search.StrategyRanked
	hits := s.Search(ctx, ix, search.Query{Text: text, Limit: n})
	if len(hits) == 0 {
		return d
	}
	cands := make([]search.Candidate, len(hits))
	for i, h := range hits {
		cands[i] = search.Candidate{Skill: h.Skill, Score: h.Score, Matched: h.Matched}
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

func rankOrMax(r int) int {
	if r == 0 {
		return int(^uint(0) >> 1)
	}
	return r
}

// allowed applies q's filters (as search does).
func allowed(q search.Query, sk *catalog.Skill) bool {
	if q.Category != "" && (sk.Doc == nil || !strings.EqualFold(q.Category, sk.Doc.Frontmatter.Category)) {
		return false
	}
	for _, t := range q.Tags {
		if sk.Doc == nil || !slices.ContainsFunc(sk.Doc.Frontmatter.Tags, func(have string) bool { return strings.EqualFold(have, t) }) {
			return false
		}
	}
	return q.Allow == nil || q.Allow(sk)
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

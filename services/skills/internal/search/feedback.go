package search

import (
	"slices"
	"strings"
)

// Pseudo-relevance feedback, RM3-style (see expand.go; off by default): the
// best few skills of a first ranking are taken as relevant, the terms that
// characterise them (each skill's share weighted by its score relative to
// the best) are added to the query as bonus groups, and the skills are
// ranked again.

// fwdTerm is one of a skill's characteristic terms.
type fwdTerm struct {
	term int32
	w    float32 // share of the skill's feedback mass
}

// fwdTermsPerDoc bounds each skill's feedback terms.
const fwdTermsPerDoc = 40

// buildForward keeps, for each skill, its fwdTermsPerDoc terms of highest
// saturated-tf × idf, among the words shared with at least one other skill
// (a term of one skill cannot move another), normalised to sum to 1.
func (ix *Index) buildForward() {
	n := len(ix.docs)
	k1 := ix.tune.k1
	per := make([][]fwdTerm, n)
	for t := range ix.terms {
		e := &ix.terms[t]
		df := len(e.postings)
		if df < 2 || strings.HasPrefix(e.text, "\x00") || float64(df) > ix.tune.expansion.fbMaxDF*float64(n) {
			continue
		}
		for _, p := range e.postings {
			tf := float64(p.tf)
			per[p.doc] = append(per[p.doc], fwdTerm{term: int32(t), w: float32(tf / (k1 + tf) * e.idf)})
		}
	}
	ix.fwd = per
	for d, ts := range per {
		slices.SortFunc(ts, func(a, b fwdTerm) int {
			switch {
			case a.w > b.w:
				return -1
			case a.w < b.w:
				return 1
			}
			return int(a.term - b.term)
		})
		ts = slices.Clip(ts[:min(len(ts), fwdTermsPerDoc)])
		var sum float32
		for _, x := range ts {
			sum += x.w
		}
		for i := range ts {
			ts[i].w /= sum
		}
		per[d] = ts
	}
}

// feedback expands r's query from the first ranking's best skills and scores
// the expansion into the accumulators.
func (ix *Index) feedback(r *result, first []cand) {
	nd := min(ix.tune.expansion.fbDocs, len(first))
	if nd == 0 || ix.fwd == nil {
		return
	}
	inQuery := map[int32]bool{}
	for _, g := range r.groups {
		for _, a := range g.alts {
			inQuery[a.term] = true
		}
	}
	weights := map[int32]float64{}
	for _, c := range first[:nd] {
		dw := c.raw / first[0].raw
		for _, ft := range ix.fwd[c.doc] {
			if !inQuery[ft.term] {
				weights[ft.term] += dw * float64(ft.w)
			}
		}
	}
	type tw struct {
		t int32
		w float64
	}
	var ts []tw
	for t, w := range weights {
		ts = append(ts, tw{t, w})
	}
	slices.SortFunc(ts, func(a, b tw) int {
		switch {
		case a.w > b.w:
			return -1
		case a.w < b.w:
			return 1
		}
		return int(a.t - b.t)
	})
	ts = ts[:min(len(ts), ix.tune.expansion.fbTerms)]
	if len(ts) == 0 {
		return
	}
	var sum float64
	for _, x := range ts {
		sum += x.w
	}
	// The expansion as a whole weighs fbWeight times the original query's
	// words.
	var ng []qgroup
	for _, x := range ts {
		ng = append(ng, qgroup{word: ix.terms[x.t].text, bonus: true,
			weight: ix.tune.expansion.fbWeight * r.words * x.w / sum,
			alts:   []qalt{{term: x.t, w: 1, word: ix.terms[x.t].text}}})
	}
	ix.score(ng, r.s)
}

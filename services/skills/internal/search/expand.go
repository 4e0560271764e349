package search

// Recall expansions for paraphrases: four general ways of letting a query
// reach a skill that says the same thing in other words, each measured on
// the routing benchmark (TestAblation, docs/routing.md) and each OFF by
// default because none helped there:
//
//   - pseudo-relevance feedback (feedback.go): RM3-style, the terms of the
//     first ranking's best skills are added to the query;
//   - latent semantic indexing (lsi.go): a truncated SVD of the catalog's
//     term × skill matrix, blended into the lexical score or fused by
//     reciprocal rank;
//   - term co-occurrence (cooc.go): a query word also stands for the words
//     the catalog's names, descriptions and headings use with it;
//   - WordNet synonyms (wordnet.go), read at run time from the system's
//     WordNet database when one is installed.
//
// With one right skill per query, feedback reinforces whatever the first
// ranking put on top, and the catalog (a few hundred short documents) is
// too small for co-occurrence, first- or second-order, to learn the
// paraphrases that matter; WordNet's senses are general English, not a
// developer's. They stay so that the measurement can be repeated on another
// catalog.

// expansion configures the recall expansions; the zero value is all off.
type expansion struct {
	// fbDocs is how many of the first ranking's skills feed back (0: off),
	// fbTerms how many terms are added, fbWeight the weight of the added
	// terms together relative to the query's words, fbMaxDF the largest
	// share of skills a feedback term may occur in.
	fbDocs, fbTerms   int
	fbWeight, fbMaxDF float64
	// lsiRank is the number of latent dimensions (0: off), lsiIters the
	// subspace iterations of the randomized SVD; lsiWeight scales the
	// latent score (a share of the best lexical score), or the latent
	// ranking's reciprocal-rank votes when lsiRRF (RRF's k) is set.
	lsiRank, lsiIters int
	lsiWeight, lsiRRF float64
	// wnSenses is how many senses of each part of speech give synonyms (0:
	// off); a synonym scores wnWeight times the word; only words in at most
	// wnMaxDF skills are expanded (0: all). wn overrides the
	// system's database (tests).
	wnSenses, wnMaxDF int
	wnWeight          float64
	wn                *wordnetDB
	// coocTerms is how many associated words a query word gains (0: off),
	// coocMin the least association, coocMinShared the least number of
	// skills the two share, coocWeight the weight of an associated word.
	coocTerms, coocMinShared int
	coocMin, coocWeight      float64
}

// buildExpansions prepares the expansions that are on, after the postings.
func (ix *Index) buildExpansions() {
	x := &ix.tune.expansion
	if x.fbDocs > 0 {
		ix.buildForward()
	}
	if x.lsiRank > 0 {
		ix.buildLSI()
	}
	if x.coocTerms > 0 {
		ix.buildCooc()
	}
	if x.wnSenses > 0 {
		ix.wn = x.wn
		if ix.wn == nil {
			ix.wn = systemWordnet()
		}
	}
}

// expand re-ranks r with feedback and the latent model, when on, and keeps
// the best k. Whether to answer at all stays the first ranking's decision:
// the calibrated probability of the first ranking's best skill carries over
// to the new best one, and the others' scores are relative to it as
// always.
func (ix *Index) expand(q Query, r *result, k int) {
	x := &ix.tune.expansion
	if len(r.cands) == 0 || (x.fbDocs == 0 && ix.lsi == nil) {
		r.cands = r.cands[:min(len(r.cands), k)]
		return
	}
	p := r.cands[0].score
	if x.fbDocs > 0 {
		ix.feedback(r, r.cands)
	}
	if ix.lsi != nil {
		ix.blendLSI(r, r.cands[0].raw)
	}
	r.cands = ix.top(q, r.s, k)
	for i := range r.cands {
		r.cands[i].score = p * r.cands[i].raw / r.cands[0].raw
	}
}

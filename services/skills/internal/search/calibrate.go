package search

import "math"

// Calibration turns the best skill's raw score into the probability that it
// is the right answer — and says when nothing applies. Raw BM25F scores grow
// with the catalog's size (idf) and the query's length, so they cannot be
// compared with a fixed threshold; three ratios of the match can:
//
//   - quality: raw / attainable, the share of the best score the query could
//     get (every word matched, saturated, in every field) that the skill got;
//   - coverage: the share of the query's idf mass in the words the skill
//     matched at all;
//   - length: the number of query words. Requests get wordier without
//     getting more topic words — a paragraph of context has a handful of
//     words that matter — so a long query's right skill matches a smaller
//     share of it. Topic words growing as the square root of length is the
//     correction used.
//
// x = ln(quality) + ln(coverage) + ½ ln(words), and the score is the
// logistic σ(calSlope·x + calBias). Unknown words (in no skill) count in the
// attainable score with the idf of a word no skill has: a query about
// something the catalog never mentions ("descale my espresso machine") has
// its topic words there, and gets a low score. Words of a language no skill
// is written in count tuning.foreignUnknown as much (they may be
// untranslated topic words), and CJK words in a catalog without CJK skills
// not at all (bigrams of a script the catalog does not use say nothing).
//
// calSlope and calBias are a logistic regression of "the top hit is right"
// on x over the routing benchmark's development queries; DefaultThreshold
// lies near the middle of the x interval where that split's targets hold
// (fewer than 25% of the queries without an answer answered, at least 95%
// of the others). TestCalibration refits both and logs the operating points.
const (
	calSlope = 2.7
	calBias  = 4.2
)

// calibrate sets the candidates' scores: the best one's is its calibrated
// probability; each other one scores that times its raw score relative to
// the best, so that score ratios are raw score ratios (what seed 004's
// dynamic cut, score / top score, is defined on) and two hits are close in
// score exactly when they are close in raw score (what the match decision's
// ambiguity gap needs).
func (r *result) calibrate() {
	if len(r.cands) == 0 {
		return
	}
	top := r.cands[0]
	p := 0.0
	if x, ok := r.feature(top.doc, top.raw); ok {
		p = 1 / (1 + math.Exp(-(calSlope*x + calBias)))
	}
	for i := range r.cands {
		r.cands[i].score = p * r.cands[i].raw / top.raw
	}
}

// feature is the calibration feature x of skill d (see calSlope). Query
// words past the 64th do not count in coverage.
func (r *result) feature(d int32, raw float64) (float64, bool) {
	if r.attainable <= 0 || raw <= 0 {
		return 0, false
	}
	m := r.s.mask[d]
	matched := 0.0
	for gi, g := range r.groups {
		if m&groupBit(gi) != 0 {
			matched += g.attainable
		}
	}
	if matched <= 0 {
		return 0, false
	}
	return math.Log(raw/r.attainable) + math.Log(matched/r.attainable) + 0.5*math.Log(max(r.words, 1)), true
}

package search

import (
	"cmp"
	"slices"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// This file is the match decision of seed 000 §5.3 (get_skill): one skill, an
// ambiguous set of candidates, or no match, over the scores of either strategy.

// Matching strategies (config matching.strategy, ARCHITECTURE §11).
const (
	// StrategyAuto is StrategyKeyword when every routable skill declares
	// keywords, StrategyRanked otherwise.
	StrategyAuto = "auto"
	// StrategyKeyword scores with seed 000's keyword matcher, exactly.
	StrategyKeyword = "keyword"
	// StrategyRanked scores with the search engine, calibrated to 0..1.
	StrategyRanked = "ranked"
)

// The sentences of seed 000 §8.1's answers.
const (
	NoMatchMessage   = "No skill matches the given context."
	AmbiguousMessage = "Multiple skills match. Specify your need or pick a skill_path."
)

// Outcome is the kind of a match decision.
type Outcome int

const (
	// NoMatch: no skill scores at least MinScore.
	NoMatch Outcome = iota
	// Match: one skill is clearly the best.
	Match
	// Ambiguous: the two best are closer than AmbiguityThreshold.
	Ambiguous
)

// String returns "no_match", "match" or "ambiguous".
func (o Outcome) String() string {
	switch o {
	case Match:
		return "match"
	case Ambiguous:
		return "ambiguous"
	}
	return "no_match"
}

// Thresholds drive the decision (config matching.*, seed 000 §5.3). They apply
// to both strategies: keyword scores (0..1, plus priority/1000) and the search
// engine's calibrated 0..1 scores.
type Thresholds struct {
	// MinScore excludes candidates scoring below it.
	MinScore float64
	// AmbiguityThreshold: when the best two scores differ by less than this,
	// the answer is ambiguous.
	AmbiguityThreshold float64
	// MaxResults caps the candidates of an ambiguous answer.
	MaxResults int
}

// DefaultThresholds are seed 000's defaults: 0.2, 0.1 and 3.
func DefaultThresholds() Thresholds {
	return Thresholds{MinScore: 0.2, AmbiguityThreshold: 0.1, MaxResults: 3}
}

// Candidate is one scored skill.
type Candidate struct {
	Skill *catalog.Skill
	Score float64
	// Matched are the keywords (keyword strategy) or query terms (ranked) that
	// matched, in the phrasing that matched best.
	Matched []string
	// Phrasing is that phrasing: 0 for the context, i for the ith
	// restatement.
	Phrasing int
}

// Decision is the answer of a match.
type Decision struct {
	Outcome Outcome
	// Strategy is the strategy that scored: StrategyKeyword or StrategyRanked.
	Strategy string
	// Candidates, best first: the matched skill alone (Match), up to
	// MaxResults candidates (Ambiguous), none (NoMatch).
	Candidates []Candidate
	// Message is NoMatchMessage or AmbiguousMessage; empty for a match.
	Message string
}

// Best is the matched candidate (the first), or the zero Candidate.
func (d Decision) Best() Candidate {
	if len(d.Candidates) == 0 {
		return Candidate{}
	}
	return d.Candidates[0]
}

// Decide is seed 000 §5.3: keep the candidates scoring at least MinScore, sort
// them by score, best first (equal scores by path, so that answers are
// deterministic; the keyword score already holds the priority tie-break),
// then: none is no match, one is a match, and two or more whose best two
// scores differ by less than AmbiguityThreshold are ambiguous (the first
// MaxResults of them); otherwise the best is a match. cands is not modified.
func Decide(cands []Candidate, th Thresholds) Decision {
	kept := make([]Candidate, 0, len(cands))
	for _, c := range cands {
		if c.Skill != nil && c.Score >= th.MinScore {
			kept = append(kept, c)
		}
	}
	slices.SortStableFunc(kept, func(a, b Candidate) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Skill.Path, b.Skill.Path)
	})
	switch {
	case len(kept) == 0:
		return Decision{Outcome: NoMatch, Message: NoMatchMessage}
	case len(kept) >= 2 && kept[0].Score-kept[1].Score < th.AmbiguityThreshold:
		return Decision{Outcome: Ambiguous, Candidates: kept[:min(max(th.MaxResults, 1), len(kept))], Message: AmbiguousMessage}
	}
	return Decision{Outcome: Match, Candidates: kept[:1]}
}

// KeywordCandidates scores every skill that declares keywords against the
// context's tokens (seed 000 §5.2). Skills that match no keyword are left
// out, whatever their priority.
func KeywordCandidates(tok *KeywordTokenizer, skills []*catalog.Skill, context string) []Candidate {
	tokens := tok.Tokenize(context)
	if len(tokens) == 0 {
		return nil
	}
	var out []Candidate
	for _, sk := range skills {
		kws := keywordsOf(sk)
		if len(kws) == 0 {
			continue
		}
		score, matched := KeywordScore(tokens, kws, sk.Doc.Frontmatter.Priority)
		if len(matched) > 0 {
			out = append(out, Candidate{Skill: sk, Score: score, Matched: matched})
		}
	}
	return out
}

// KeywordCandidatesRestated is KeywordCandidates over the context and its
// restatements: each skill keeps its best score over the phrasings, with
// that phrasing's matched keywords. Without restatements it is
// KeywordCandidates exactly.
func KeywordCandidatesRestated(tok *KeywordTokenizer, skills []*catalog.Skill, context string, restated []string) []Candidate {
	out := KeywordCandidates(tok, skills, context)
	rest := restatements(Query{Text: context, Restated: restated})
	if len(rest) == 0 {
		return out
	}
	at := make(map[*catalog.Skill]int, len(out))
	for i, c := range out {
		at[c.Skill] = i
	}
	for p, text := range rest {
		for _, c := range KeywordCandidates(tok, skills, text) {
			c.Phrasing = p + 1
			i, ok := at[c.Skill]
			switch {
			case !ok:
				at[c.Skill] = len(out)
				out = append(out, c)
			case c.Score > out[i].Score:
				out[i] = c
			}
		}
	}
	return out
}

// RankedCandidates asks the search engine for the best limit skills for the
// context and its restatements (fused as Search fuses them); its scores
// are calibrated to 0..1 and it returns nothing when nothing applies.
func RankedCandidates(idx *Index, context string, limit int, restated ...string) []Candidate {
	hits := idx.Search(Query{Text: context, Limit: limit, Restated: restated})
	out := make([]Candidate, 0, len(hits))
	for _, h := range hits {
		out = append(out, Candidate{Skill: h.Skill, Score: h.Score, Matched: h.Matched, Phrasing: h.Phrasing})
	}
	return out
}

// ResolveStrategy turns the configured strategy into the one that scores:
// StrategyKeyword and StrategyRanked as they are; anything else (StrategyAuto,
// "") is StrategyKeyword when there is at least one skill and every one
// declares keywords (a seed-000 catalog keeps seed-000 behaviour exactly), and
// StrategyRanked otherwise. skills are the routable skills being served.
func ResolveStrategy(configured string, skills []*catalog.Skill) string {
	switch configured {
	case StrategyKeyword, StrategyRanked:
		return configured
	}
	if len(skills) == 0 {
		return StrategyRanked
	}
	for _, sk := range skills {
		if len(keywordsOf(sk)) == 0 {
			return StrategyRanked
		}
	}
	return StrategyKeyword
}

func keywordsOf(sk *catalog.Skill) []string {
	if sk.Doc == nil {
		return nil
	}
	return sk.Doc.Frontmatter.Keywords
}

// MatcherOptions configures a Matcher.
type MatcherOptions struct {
	// Strategy is the configured strategy (StrategyAuto when empty).
	Strategy string
	// Thresholds drive the decision; the zero value means DefaultThresholds.
	Thresholds Thresholds
	// Tokenizer tokenizes contexts for the keyword strategy; nil means the
	// built-in stop words only.
	Tokenizer *KeywordTokenizer
	// Index ranks for the ranked strategy; nil builds one over the skills
	// with default Options when the ranked strategy is used.
	Index *Index
}

// Matcher decides matches over one set of routable skills (one catalog
// snapshot, already narrowed to the skills the server exposes). It is
// immutable and safe for concurrent use.
type Matcher struct {
	strategy string
	th       Thresholds
	tok      *KeywordTokenizer
	skills   []*catalog.Skill
	idx      *Index
}

// NewMatcher returns a matcher over skills.
func NewMatcher(skills []*catalog.Skill, opts MatcherOptions) *Matcher {
	m := &Matcher{
		strategy: ResolveStrategy(opts.Strategy, skills),
		th:       opts.Thresholds,
		tok:      opts.Tokenizer,
		skills:   skills,
		idx:      opts.Index,
	}
	if m.th == (Thresholds{}) {
		m.th = DefaultThresholds()
	}
	if m.tok == nil {
		m.tok = NewKeywordTokenizer(nil)
	}
	if m.strategy == StrategyRanked && m.idx == nil {
		m.idx = New(skills, Options{})
	}
	return m
}

// Strategy is the strategy the matcher scores with: StrategyKeyword or
// StrategyRanked.
func (m *Matcher) Strategy() string { return m.strategy }

// Match decides which skill fits the context, with the caller's
// restatements of it (see Query.Restated) fused in.
func (m *Matcher) Match(context string, restated ...string) Decision {
	var cands []Candidate
	if m.strategy == StrategyKeyword {
		cands = KeywordCandidatesRestated(m.tok, m.skills, context, restated)
	} else {
		// The decision needs the best two, and an ambiguous answer up to
		// MaxResults.
		cands = RankedCandidates(m.idx, context, max(m.th.MaxResults, 2), restated...)
	}
	d := Decide(cands, m.th)
	d.Strategy = m.strategy
	return d
}

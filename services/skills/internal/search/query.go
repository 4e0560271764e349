package search

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Query analysis: each distinct word of the query (stop words of English and
// of the query's language dropped) becomes a group of the index terms it may
// stand for; a skill scores the best term of each group. Adjacent words that
// the skills also write next to each other add a bonus group (proximity).

// qalt is one index term a query word may stand for.
type qalt struct {
	term int32
	// w scales the term's score: 1 for the word itself, less for a typo
	// correction.
	w float64
	// word is what Hit.Matched reports when the term matched.
	word string
}

// qgroup is one word of the query and the terms it may stand for; a skill
// scores the best of them.
type qgroup struct {
	word string
	alts []qalt
	// weight scales the group's score.
	weight float64
	// attainable is the group's share of the query's attainable score, for
	// calibration: weight × the best alternative's idf, or the idf of an
	// unknown word.
	attainable float64
	// bonus marks a group that is not a query word (a pair of adjacent
	// words): it scores, but is not reported or counted as matched.
	bonus bool
}

// analyzeQuery turns a query into groups: one per distinct word (stop words
// dropped), each with the index terms it may stand for.
func (ix *Index) analyzeQuery(text string, s *scratch) []qgroup {
	ql := detectLang(text)
	foreign := ix.langs&(1<<ql) == 0
	var groups []qgroup
	seen := map[int32]bool{} // first terms of the groups so far
	addGroup := func(g qgroup) {
		// A repeated word counts once.
		if len(g.alts) > 0 {
			if seen[g.alts[0].term] {
				return
			}
			seen[g.alts[0].term] = true
		} else if slices.ContainsFunc(groups, func(h qgroup) bool { return h.word == g.word }) {
			return
		}
		groups = append(groups, g)
	}
	for tok := range tokens(text) {
		raw := text[tok.start:tok.end]
		if tok.kind == tokCJK {
			cjkBigrams(raw, func(gram string) {
				g := qgroup{word: gram, weight: 1}
				if t, ok := ix.vocab.id(gram); ok {
					g.alts = []qalt{{term: t, w: 1, word: gram}}
					g.attainable = ix.terms[t].idf
				} else if ix.hasCJK {
					g.attainable = ix.unknownIDF
				}
				addGroup(g)
			})
			continue
		}
		var lower string
		if isASCII(raw) {
			lower = strings.ToLower(raw)
		} else {
			lower = strings.ToLower(norm.NFKC.String(raw))
		}
		surface := foldWord(lower)
		if surface == "" || len(surface) > maxWordLen || isDigits(surface) {
			continue
		}
		if ix.tune.analysis.stopWords && (ix.stops[langEnglish][surface] || ix.stops[ql][surface]) {
			continue
		}
		g := qgroup{word: surface, weight: 1}
		add := func(t int32, w float64, word string) {
			if !slices.ContainsFunc(g.alts, func(a qalt) bool { return a.term == t }) {
				g.alts = append(g.alts, qalt{term: t, w: w, word: word})
			}
		}
		// The word as its language stems it, as written (a skill in
		// another language may have it), and, for a word of another
		// language than English, as English stems it (cognates: "isoler"
		// and "isolate" share "isol").
		if t, ok := ix.vocab.id(termOf(s.env, lower, surface, ql, ix.tune.analysis)); ok {
			add(t, 1, surface)
		}
		if t, ok := ix.surfaceTerm(surface); ok {
			add(t, 1, surface)
		}
		if ql != langEnglish && ix.tune.crossLang {
			if t, ok := ix.vocab.id(termOf(s.env, surface, surface, langEnglish, ix.tune.analysis)); ok {
				add(t, 1, surface)
			}
		}
		// A word no skill has: a typo of one that some skill has, or two
		// words written as one.
		if len(g.alts) == 0 && ix.tune.typo {
			for _, m := range ix.typoIndex().near(ix, surface, 3) {
				add(m.term, ix.tune.typoWeight[m.dist], m.surface)
			}
		}
		if len(g.alts) == 0 && ix.tune.split && len(surface) >= 6 {
			if l, r, ok := ix.typoIndex().split(ix, surface); ok {
				// Two half-weight words, one share of the attainable score.
				for _, part := range []string{l, r} {
					t, _ := ix.surfaceTerm(part)
					addGroup(qgroup{word: part, weight: 0.5, alts: []qalt{{term: t, w: 1, word: part}},
						attainable: 0.5 * ix.terms[t].idf})
				}
				continue
			}
		}
		for _, a := range g.alts {
			g.attainable = max(g.attainable, g.weight*a.w*ix.terms[a.term].idf)
		}
		if len(g.alts) == 0 {
			// Unknown: it counts against the query's confidence (see
			// calibrate.go), less so in a language no skill is written in.
			g.attainable = ix.unknownIDF
			if foreign {
				g.attainable *= ix.tune.foreignUnknown
			}
		}
		addGroup(g)
	}
	return groups
}

// addBigrams adds a bonus group for each pair of adjacent query words that
// the skills also have next to each other (in a name, description, keywords
// or heading).
func (ix *Index) addBigrams(groups []qgroup, w float64) []qgroup {
	n := len(groups)
	for i := 0; i+1 < n; i++ {
		a, b := groups[i], groups[i+1]
		if len(a.alts) == 0 || len(b.alts) == 0 {
			continue
		}
		key := bigramKey(ix.vocab.key(a.alts[0].term), ix.vocab.key(b.alts[0].term))
		if t, ok := ix.vocab.id(key); ok {
			word := a.word + " " + b.word
			groups = append(groups, qgroup{word: word, weight: w, bonus: true, alts: []qalt{{term: t, w: 1, word: word}}})
		}
	}
	return groups
}

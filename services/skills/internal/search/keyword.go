package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is seed 000 §5's keyword matcher, reproduced exactly for skills that
// declare keywords (a compatibility contract), with one decision of
// ARCHITECTURE §11: the short-token rule follows the seed's example table, so
// that "go" never matches "golang".

// KeywordStopWords returns the keyword matcher's stop words: the English and
// French lists of the ranked engine (stopwords.go, one source for both
// matchers), a superset of seed 000 §5.1's examples, without the one-letter
// fragments that list carries for split contractions and elisions ("d", "l",
// "s"): this tokenizer removes apostrophes instead of splitting at them, so a
// lone letter here is a real token such as the languages "c" and "r". Then
// extra (config search.stop_words), folded like the lists (lower case, accents
// removed). No duplicates.
func KeywordStopWords(extra []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, list := range [][]string{stopEnglish, stopFrench} {
		for _, w := range list {
			if utf8.RuneCountInString(w) > 1 || w == "a" || w == "y" {
				add(w)
			}
		}
	}
	for _, w := range extra {
		add(foldWord(strings.TrimSpace(w)))
	}
	return out
}

// KeywordTokenizer is seed 000 §5.1's tokenize: lower-case, remove punctuation
// (keeping hyphens), split on white space, drop stop words, deduplicate. It is
// safe for concurrent use.
type KeywordTokenizer struct {
	stop map[string]bool
}

// NewKeywordTokenizer returns a tokenizer that drops KeywordStopWords(extra),
// comparing each token in its folded form, so "très" and "tres" are both
// stopped.
func NewKeywordTokenizer(extra []string) *KeywordTokenizer {
	words := KeywordStopWords(extra)
	stop := make(map[string]bool, len(words))
	for _, w := range words {
		stop[w] = true
	}
	return &KeywordTokenizer{stop: stop}
}

// Tokenize returns the distinct tokens of text, in order of first appearance.
//
// Punctuation is every rune other than a letter, a digit, a combining mark,
// white space, '-' and '_' (the reference implementation keeps word characters,
// white space and hyphens); it is removed, not replaced by a space, so "don't"
// is "dont" and "ui/react" is "uireact". A token left without any letter or
// digit (a lone "-") is dropped.
func (t *KeywordTokenizer) Tokenize(text string) []string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	var tokens []string
	seen := map[string]bool{}
	for _, tok := range strings.Fields(b.String()) {
		if t.stop[foldWord(tok)] || seen[tok] || !strings.ContainsFunc(tok, isWordRune) {
			continue
		}
		seen[tok] = true
		tokens = append(tokens, tok)
	}
	return tokens
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// shortToken is the length under which a token or keyword matches only exactly.
const shortToken = 3

// KeywordMatches reports whether a context token matches a keyword (both
// lower-case), seed 000 §5.2 as ARCHITECTURE §11 settles it: equal, or, when
// both have at least 3 characters, one contains the other. When either is
// shorter than 3 characters only an exact match counts ("go" does not match
// "golang", "js" does not match "json").
func KeywordMatches(token, keyword string) bool {
	if token == keyword {
		return true
	}
	if utf8.RuneCountInString(token) < shortToken || utf8.RuneCountInString(keyword) < shortToken {
		return false
	}
	return strings.Contains(token, keyword) || strings.Contains(keyword, token)
}

// priorityWeight is what one point of frontmatter priority adds to a score.
const priorityWeight = 0.001

// KeywordScore is seed 000 §5.2's score: the share of the skill's keywords
// (lower-cased) that some token matches, plus priority × 0.001. matched lists
// the matching keywords, lower-cased, in declaration order; a keyword declared
// twice counts twice, as in the reference. A skill without keywords scores 0
// (the priority alone never makes a match).
func KeywordScore(tokens, keywords []string, priority int) (score float64, matched []string) {
	if len(keywords) == 0 {
		return 0, nil
	}
	for _, kw := range keywords {
		kw = strings.ToLower(kw)
		for _, tok := range tokens {
			if KeywordMatches(tok, kw) {
				matched = append(matched, kw)
				break
			}
		}
	}
	return float64(len(matched))/float64(len(keywords)) + float64(priority)*priorityWeight, matched
}

package search

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/spanish"
	"golang.org/x/text/unicode/norm"
)

// Text analysis: how a string becomes index terms.
//
//  1. Tokens are runs of letters and digits (any script) split at everything
//     else, so "pdf-creator", "snake_case" and "node.js" give two tokens
//     each, and apostrophes split contractions and elisions ("l'index"). A
//     one- or two-letter word followed by "++" or "#" keeps them ("c++",
//     "c#", "f#").
//  2. Runs of Han, Hiragana and Katakana (Japanese and Chinese write without
//     spaces) become overlapping character bigrams, the standard
//     dictionary-free way to index them: "不安定なテスト" → 不安 安定 定な なテ
//     テス スト.
//  3. Each word is NFKC-normalised, lower-cased and accent-folded ("Réseau" →
//     "reseau", full-width "ＰＤＦ" → "pdf"); that is its surface form. Words of
//     digits only, and words longer than maxWordLen bytes (hashes, base64),
//     are dropped.
//  4. Stop words of the text's language are dropped.
//  5. The rest are stemmed with the Snowball stemmer of the text's language
//     (English, French, Spanish, German) and folded again: the term.
//
// The language of a text is guessed from its function words (detectLang):
// skills are stemmed in their own language, and a query term is looked up
// both as its language stems it and as English does, so "isoler" (French)
// meets "isolate" at the shared stem "isol".

// lang is a language the analyzer stems.
type lang uint8

const (
	langEnglish lang = iota
	langFrench
	langSpanish
	langGerman
	numLangs
)

var langNames = [numLangs]string{"english", "french", "spanish", "german"}

func (l lang) String() string { return langNames[l] }

// stemFuncs are the Snowball stemmers, by language.
var stemFuncs = [numLangs]func(*snowballstem.Env) bool{
	langEnglish: english.Stem,
	langFrench:  french.Stem,
	langSpanish: spanish.Stem,
	langGerman:  german.Stem,
}

const (
	// maxWordLen drops longer words (digests, base64, minified code).
	maxWordLen = 48
	// minStemLen: shorter words are not stemmed ("ci", "ios").
	minStemLen = 3
)

// tokKind tells a word token from a run of CJK characters.
type tokKind uint8

const (
	tokWord tokKind = iota
	tokCJK
)

// wordByte marks the ASCII bytes that belong to words.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// runeKind classifies a non-ASCII rune: part of a word, part of a CJK run,
// or a separator (ok false).
func runeKind(r rune) (tokKind, bool) {
	switch {
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == 'ｰ':
		return tokCJK, true
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return tokWord, true
	}
	return tokWord, false
}

// token is a token of a text: its byte offsets and its kind.
type token struct {
	start, end int
	kind       tokKind
}

// tokens yields the tokens of text in order, as a scanner finds them.
func tokens(text string) iter.Seq[token] {
	return func(yield func(token) bool) {
		sc := scanner{text: text}
		for {
			start, end, kind, ok := sc.next()
			if !ok || !yield(token{start, end, kind}) {
				return
			}
		}
	}
}

// scanner walks the tokens of a text: words and CJK runs, with their byte
// offsets.
type scanner struct {
	text string
	pos  int
}

// next returns the next token's offsets and kind; ok is false at the end.
func (s *scanner) next() (start, end int, kind tokKind, ok bool) {
	text := s.text
	i := s.pos
	// Skip separators.
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if wordByte[c] {
				kind = tokWord
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if k, in := runeKind(r); in {
			kind = k
			break
		}
		i += n
	}
	if i >= len(text) {
		s.pos = i
		return 0, 0, 0, false
	}
	start = i
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if kind != tokWord || !wordByte[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if k, in := runeKind(r); !in || k != kind {
			break
		}
		i += n
	}
	end = i
	// "c++", "c#", "f#": keep the symbols after a very short word.
	if kind == tokWord && end-start <= 2 && end < len(text) {
		switch {
		case strings.HasPrefix(text[end:], "++"):
			end += 2
		case text[end] == '#' && !wordAt(text, end+1):
			end++
		}
	}
	s.pos = end
	return start, end, kind, true
}

// wordAt reports whether a word's character starts at byte i of text (false
// at the end, and on bytes that are not UTF-8).
func wordAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	if c := text[i]; c < utf8.RuneSelf {
		return wordByte[c]
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	k, in := runeKind(r)
	return in && k == tokWord
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isDigits reports whether s is all ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// foldSpecial are letters that do not decompose into a base letter and a
// mark.
var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l", 'ı': "i", 'þ': "th", 'ð': "d",
}

// foldWord returns the surface form of a word: NFKC, lower case, and without
// the accents of Latin, Greek and Cyrillic letters. Other scripts keep their
// marks (in Devanagari or Thai they are letters' vowels, not accents).
func foldWord(w string) string {
	if isASCII(w) {
		return strings.ToLower(w)
	}
	w = strings.ToLower(norm.NFKC.String(w))
	var b strings.Builder
	b.Grow(len(w))
	base := rune(0)
	changed := false
	d := norm.NFD.String(w)
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) && (unicode.In(base, unicode.Latin, unicode.Greek, unicode.Cyrillic)) {
			changed = true
			continue
		}
		if s, ok := foldSpecial[r]; ok {
			b.WriteString(s)
			base = r
			changed = true
			continue
		}
		b.WriteRune(r)
		base = r
	}
	if !changed {
		return w
	}
	return norm.NFC.String(b.String())
}

// analyzed is what the analyzer makes of one word.
type analyzed struct {
	// surface is the folded word; term the stemmed and folded one.
	surface, term string
	// stop is true for a stop word (term is then empty).
	stop bool
	// skip is true for a word that is not indexed at all (digits, too long).
	skip bool
}

// analysis switches parts of the analysis. All are on in the product; they
// exist to measure what each adds (TestAblation).
type analysis struct {
	stopWords, stem, irregular bool
}

var fullAnalysis = analysis{stopWords: true, stem: true, irregular: true}

// analyzer turns words into terms; it is not safe for concurrent use.
type analyzer struct {
	stops stopSet
	opts  analysis
	env   *snowballstem.Env
}

func newAnalyzer(stops stopSet, opts analysis) *analyzer {
	return &analyzer{stops: stops, opts: opts, env: snowballstem.NewEnv("")}
}

// stemWord stems a lower-case word of letters with the Snowball stemmer of
// language l. English plurals of acronyms, which Snowball leaves alone
// because they have no vowel ("pdfs", "prs", "llms"), lose their "s".
func stemWord(env *snowballstem.Env, w string, l lang) string {
	if l == langEnglish && len(w) >= 3 && len(w) <= 6 && w[len(w)-1] == 's' && w[len(w)-2] != 's' &&
		!strings.ContainsAny(w, "aeiouy") {
		return w[:len(w)-1]
	}
	env.SetCurrent(w)
	stemFuncs[l](env)
	return env.Current()
}

// isLetters reports whether an ASCII word has no digits (stemming "s3" or
// "v4" is meaningless); non-ASCII words are stemmed.
func isLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < utf8.RuneSelf && !(c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// analyze makes the analysis of a lower-case word and its surface form.
func (a *analyzer) analyze(lower, surface string, l lang) analyzed {
	switch {
	case surface == "" || len(surface) > maxWordLen || isDigits(surface):
		return analyzed{skip: true}
	case a.opts.stopWords && a.stops[l][surface]:
		return analyzed{surface: surface, stop: true}
	}
	return analyzed{surface: surface, term: termOf(a.env, lower, surface, l, a.opts)}
}

// termOf returns the index term of a word of language l, given lower-cased
// (lower) and folded (surface). English words are stemmed folded (after
// irregular forms are mapped to their base); the stemmers of the accented
// languages see the accents, and their stems are folded.
func termOf(env *snowballstem.Env, lower, surface string, l lang, opts analysis) string {
	w := lower
	if l == langEnglish {
		w = surface
		if base, ok := irregular[w]; ok && opts.irregular {
			w = base
		}
	}
	if !opts.stem || len(w) < minStemLen || !isLetters(w) {
		return foldWord(w)
	}
	return foldWord(stemWord(env, w, l))
}

// cjkBigrams calls fn with each overlapping bigram of a run of CJK
// characters (after NFKC, which turns half-width katakana into full-width),
// or the run itself when it is one character.
func cjkBigrams(run string, fn func(gram string)) {
	if !isASCII(run) && !norm.NFKC.IsNormalString(run) {
		run = norm.NFKC.String(run)
	}
	first, n := utf8.DecodeRuneInString(run)
	if n == len(run) {
		if first != 'ー' {
			fn(run)
		}
		return
	}
	for i := 0; i < len(run); {
		_, n1 := utf8.DecodeRuneInString(run[i:])
		if i+n1 >= len(run) {
			break
		}
		_, n2 := utf8.DecodeRuneInString(run[i+n1:])
		fn(run[i : i+n1+n2])
		i += n1
	}
}

// langWords maps each built-in stop word to the languages (bit set) whose
// list has it, for detectLang.
var langWords = func() map[string]uint8 {
	m := map[string]uint8{}
	lists := [numLangs][]string{langEnglish: stopEnglish, langFrench: stopFrench, langSpanish: stopSpanish, langGerman: stopGerman}
	for l, words := range lists {
		for _, w := range words {
			m[w] |= 1 << l
		}
	}
	return m
}()

// detectLang guesses the language of texts (a skill's description and
// body, a query) from the stop words among their first 100 words: the
// language with the most, English unless another one has more (and at least
// two). Letters only one of the languages uses (ñ, ß, ç, …) count too.
func detectLang(texts ...string) lang {
	var votes [numLangs]int
	var buf [16]byte
	n := 0
	for _, text := range texts {
		sc := scanner{text: text}
		for ; n < 100; n++ {
			start, end, kind, ok := sc.next()
			if !ok {
				break
			}
			if kind != tokWord {
				continue
			}
			raw := text[start:end]
			var mask uint8
			if isASCII(raw) {
				if len(raw) > len(buf) {
					continue
				}
				b := buf[:len(raw)]
				for i := range len(raw) {
					c := raw[i]
					if 'A' <= c && c <= 'Z' {
						c += 'a' - 'A'
					}
					b[i] = c
				}
				mask = langWords[string(b)]
			} else {
				for _, r := range raw {
					switch unicode.ToLower(r) {
					case 'ñ':
						votes[langSpanish] += 2
					case 'ß', 'ä', 'ö', 'ü':
						votes[langGerman] += 2
					case 'ç', 'è', 'ê', 'à', 'ù', 'œ', 'î', 'ô', 'û', 'ë':
						votes[langFrench]++
					}
				}
				mask = langWords[foldWord(raw)]
			}
			for l := range numLangs {
				if mask&(1<<l) != 0 {
					votes[l]++
				}
			}
		}
	}
	best := langEnglish
	for l := langFrench; l < numLangs; l++ {
		if votes[l] > votes[best] && votes[l] >= 2 {
			best = l
		}
	}
	return best
}

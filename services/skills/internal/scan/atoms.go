package scan

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prefiltering. Running every pattern over every file would cost more than
// the rest of a catalog build, so each pattern gets "atoms": short literal
// strings, one of which occurs (ASCII case folded) in anything the pattern
// matches. One pass of an Aho-Corasick automaton over a text finds the atoms
// it holds, and only the patterns whose atoms occur are run. A pattern with
// no usable atom (shorter than minAtom, or none can be derived) runs on every
// text it applies to: correct, only slower.

// White space: the automaton reads every run of white space (spaces, tabs,
// line breaks) as one space, so "\s+" is the atom " " and "\s*" is "" or " ".

// minAtom is the shortest useful atom: shorter ones occur everywhere.
const minAtom = 3

// maxAtoms bounds the strings of one exact set (concatenations multiply
// them); maxUnion the atoms of one pattern.
const (
	maxAtoms = 64
	maxUnion = 512
)

// atomsOf returns the best atom set of a parsed, simplified pattern; nil
// when none is known.
func atomsOf(p *syntax.Regexp) []string {
	set := required(p)
	if set == nil {
		return nil
	}
	for _, a := range set {
		if len(strings.TrimSpace(a)) < minAtom {
			return nil
		}
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// exactSet returns the finite set of strings re matches exactly (lower-cased),
// and false when it is not small and finite.
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		return foldLiteral(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		if isSpaceClass(re) {
			return []string{" "}, true
		}
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo > 8 {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				if r >= utf8.RuneSelf && foldsToASCII(r) {
					continue // NFKC has made it ASCII in the text (ſ, K)
				}
				s, ok := foldLiteral([]rune{r}, true)
				if !ok {
					return nil, false
				}
				out = append(out, s...)
			}
		}
		slices.Sort(out)
		out = slices.Compact(out)
		return out, len(out) > 0 && len(out) <= 8
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpPlus:
		if isSpaceClass(re.Sub[0]) {
			return []string{" "}, true
		}
		return nil, false
	case syntax.OpStar:
		if isSpaceClass(re.Sub[0]) {
			return []string{"", " "}, true
		}
		return nil, false
	case syntax.OpQuest:
		if isSpaceClass(re.Sub[0]) {
			return []string{"", " "}, true
		}
		s, ok := exactSet(re.Sub[0])
		if !ok {
			return nil, false
		}
		return append(s, ""), true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, len(out) <= maxAtoms
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, ok := exactSet(sub)
			if !ok {
				return nil, false
			}
			if out = cross(out, s); out == nil {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// foldLiteral lower-cases a literal (white space as one space). The
// automaton folds ASCII only: a literal with letters of other scripts that
// have case gives its lower, upper and title case forms.
func foldLiteral(rs []rune, fold bool) ([]string, bool) {
	var b strings.Builder
	other := false
	prevSpace := false
	for _, r := range rs {
		if isSpace(r) {
			if !prevSpace {
				b.WriteByte(' ')
			}
			prevSpace = true
			continue
		}
		prevSpace = false
		if r >= utf8.RuneSelf && fold && unicode.SimpleFold(r) != r {
			other = true
		}
		if r < utf8.RuneSelf {
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	s := b.String()
	if !other {
		return []string{s}, true
	}
	lower, upper := strings.ToLower(s), strings.ToUpper(s)
	first, size := utf8.DecodeRuneInString(lower)
	title := string(unicode.ToUpper(first)) + lower[size:]
	out := []string{lower, upper, title}
	slices.Sort(out)
	return slices.Compact(out), true
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// isSpaceClass reports a character class of white space only (\s, [ \t]).
func isSpaceClass(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 1 && isSpace(re.Rune[0])
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if !isSpace(r) {
					return false
				}
			}
		}
		return true
	}
	return false
}

// cross is every a+b, or nil when there would be more than maxAtoms.
func cross(as, bs []string) []string {
	if len(as)*len(bs) > maxAtoms {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return out
}

// required returns a set of strings one of which occurs in every match of
// re; nil when none is known.
func required(re *syntax.Regexp) []string {
	if s, ok := exactSet(re); ok {
		return s
	}
	if sub := wholeSub(re); sub != nil {
		return required(sub)
	}
	switch re.Op {
	case syntax.OpAlternate:
		out, _, _ := union(re.Sub, func(sub *syntax.Regexp) ([]string, int, bool) {
			s := required(sub)
			return s, 0, s != nil
		})
		return out
	case syntax.OpConcat:
		// Of the candidates, the one whose weakest string is best.
		var best []string
		for _, c := range concatCandidates(re.Sub) {
			if quality(c) > quality(best) {
				best = c
			}
		}
		return best
	}
	return nil
}

// wholeSub is the sub-expression that every match of re matches in full at
// its start (that of a capture, of x+, of x{n,} with n at least 1); nil when
// there is none.
func wholeSub(re *syntax.Regexp) *syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return re.Sub[0]
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return re.Sub[0]
		}
	}
	return nil
}

// union joins what set finds in each alternative of an alternation: the
// strings of them all, and the largest number of bytes before them. It
// fails (nil, 0, false) when set fails for one alternative or when there
// would be more than maxUnion strings.
func union(alts []*syntax.Regexp, set func(*syntax.Regexp) ([]string, int, bool)) (out []string, pre int, ok bool) {
	for _, alt := range alts {
		s, n, ok := set(alt)
		if !ok {
			return nil, 0, false
		}
		out = append(out, s...)
		pre = max(pre, n)
	}
	if len(out) > maxUnion {
		return nil, 0, false
	}
	return out, pre, true
}

// concatCandidates lists the sets of strings that a concatenation of subs
// requires, each on its own: runs of exactly known parts combined into
// longer strings, and what each other part requires.
func concatCandidates(subs []*syntax.Regexp) [][]string {
	var out [][]string
	consider := func(c []string) {
		if c != nil && quality(c) > 0 {
			out = append(out, c)
		}
	}
	run := []string{""}
	for _, sub := range subs {
		if s, ok := exactSet(sub); ok {
			if next := cross(run, s); next != nil {
				run = next
				continue
			}
			consider(run)
			run = s
			continue
		}
		consider(run)
		run = []string{""}
		consider(required(sub))
	}
	consider(run)
	return out
}

// maxSets bounds the atom sets of one pattern; maxAtomLen the length of an
// atom (a longer required string is cut: its beginning is required too, and
// atoms sharing a beginning share the automaton's states).
const (
	maxSets    = 2
	maxAtomLen = 8
)

// atomSetsOf returns the sets of atoms a parsed, simplified pattern
// requires all of (one string of each set occurs in anything it matches),
// best first; nil when none is known. Every match holds a string of each
// set, so a text missing one set cannot match, and the set with the fewest
// occurrences in a text gives the fewest places to run the pattern.
func atomSetsOf(p *syntax.Regexp) [][]string {
	for p.Op == syntax.OpCapture {
		p = p.Sub[0]
	}
	var sets [][]string
	if _, exact := exactSet(p); p.Op == syntax.OpConcat && !exact {
		sets = concatCandidates(p.Sub)
	} else if s := required(p); quality(s) > 0 {
		sets = [][]string{s}
	}
	for i, set := range sets {
		set = slices.Clone(set)
		for k, a := range set {
			if len(a) > maxAtomLen {
				set[k] = trimUTF8(a, maxAtomLen)
			}
		}
		slices.Sort(set)
		sets[i] = slices.Compact(set)
	}
	slices.SortStableFunc(sets, func(a, b []string) int { return quality(b) - quality(a) })
	if len(sets) > maxSets {
		sets = sets[:maxSets]
	}
	return sets
}

// quality rates a set of atoms by its weakest string: its length, plus two
// for each character that is not a letter or a space (".kube" occurs less
// often than "config"); 0 for no set, or a set with a string too short to
// filter anything.
func quality(set []string) int {
	if len(set) == 0 {
		return 0
	}
	q := -1
	for _, s := range set {
		if len(strings.TrimSpace(s)) < minAtom {
			return 0
		}
		v := len(s)
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c == ' ' || c >= utf8.RuneSelf) {
				v += 2
			}
		}
		if q < 0 || v < q {
			q = v
		}
	}
	return q
}

// trimUTF8 cuts s to at most n bytes, at a character boundary.
func trimUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// foldsToASCII reports a non-ASCII letter that case-folds to an ASCII one.
func foldsToASCII(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return true
		}
	}
	return false
}

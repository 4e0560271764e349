package scan

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Anchors. The atoms say which patterns can match a text and around which
// lines; in prose, common words ("add", "send", "never") make those windows
// cover much of a file, and running a pattern of many alternatives over them
// costs more than everything else the scan does. Most patterns also say where
// a match starts: a match begins with one of a few literals, or at most a few
// bytes before one. Such a pattern gets an anchor: those literals and that
// distance. Before its windows are searched, a cheap question is asked at
// each occurrence of an anchor literal: could a match start here? It is
// answered by the pattern with its assertions (\b, ^, $) dropped, anchored a
// few bytes before the occurrence, which fails within a few bytes in ordinary
// text. Only when some occurrence says yes is the pattern run as before, so
// the findings are the same; the anchor only skips the searches that cannot
// find anything.

// maxAnchorPre bounds the distance of an anchor from the start of a match.
const maxAnchorPre = 32

// unbounded is the length of a part that can match any number of bytes.
const unbounded = 1 << 30

// anchor is the anchor of one pattern: every match of the pattern starts at
// most pre bytes before an occurrence of one of strs (atoms; see atoms.go),
// that occurrence lying inside the match.
type anchor struct {
	strs []string
	pre  int
	// ids are the automaton ids of strs.
	ids []int32
	// expr is the pattern with its assertions dropped, anchored at most pre
	// bytes before the start of the text it is given; compiled when first
	// used.
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// anchorOf returns the anchor of a pattern; nil when it has none.
func anchorOf(p *pattern) *anchor {
	strs, pre, ok := anchorSet(p.syntax())
	if !ok {
		return nil
	}
	rel, ok := relaxedSource(p.src)
	if !ok {
		return nil
	}
	expr := `\A(?s:.){0,` + strconv.Itoa(pre) + `}(?:` + rel + `)`
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		return nil
	}
	for i, s := range strs {
		if len(s) > maxAtomLen {
			strs[i] = trimUTF8(s, maxAtomLen)
		}
	}
	return &anchor{strs: strs, pre: pre, expr: expr}
}

// anchorQuality is quality for an anchor's strings, which must also begin
// with a character that is not white space (the automaton reads a run of
// white space as one space, so where such an occurrence begins is not
// known).
func anchorQuality(set []string) int {
	for _, s := range set {
		if s == "" || s[0] == ' ' {
			return 0
		}
	}
	return quality(set)
}

// anchorSet returns strings one of which every match of re holds, beginning
// at most pre bytes after the match's start.
func anchorSet(re *syntax.Regexp) (set []string, pre int, ok bool) {
	if s, exact := exactSet(re); exact {
		if anchorQuality(s) > 0 {
			return s, 0, true
		}
	}
	if sub := wholeSub(re); sub != nil {
		return anchorSet(sub)
	}
	switch re.Op {
	case syntax.OpAlternate:
		return union(re.Sub, anchorSet)
	case syntax.OpConcat:
		// Of the parts that begin within maxAnchorPre bytes of the start,
		// the one whose strings are best.
		bestQ := 0
		before := 0
		for i, sub := range re.Sub {
			if before > maxAnchorPre {
				break
			}
			var cand []string
			n := before
			if s, exact := exactSet(sub); exact {
				run := s
				for _, next := range re.Sub[i+1:] {
					s2, exact := exactSet(next)
					if !exact {
						break
					}
					joined := cross(run, s2)
					if joined == nil {
						break
					}
					run = joined
				}
				cand = run
			} else if s, inner, ok := anchorSet(sub); ok {
				cand, n = s, before+inner
			}
			if q := anchorQuality(cand); q > bestQ && n <= maxAnchorPre {
				set, pre, ok, bestQ = cand, n, true, q
			}
			before += maxLen(sub)
		}
		return set, pre, ok
	}
	return nil, 0, false
}

// maxLen is the most bytes re matches; unbounded when there is no limit.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += runeMaxLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(re.Rune[len(re.Rune)-1])
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return unbounded
		}
		return min(unbounded, re.Max*maxLen(re.Sub[0]))
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = min(unbounded, n+maxLen(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, maxLen(sub))
		}
		return n
	}
	return unbounded // star, plus, and anything not known
}

// runeMaxLen is the longest UTF-8 encoding of r, or of a letter that folds
// to it.
func runeMaxLen(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	if n < 0 {
		n = utf8.UTFMax
	}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, utf8.RuneLen(f))
		}
	}
	return n
}

// relaxedSource rewrites a pattern with its empty-width assertions (\b, \B,
// ^, $, \A, \z) replaced by empty groups: it matches wherever the pattern
// matches, in any context, and more. false when the pattern uses what this
// does not read (\Q…\E).
func relaxedSource(src string) (string, bool) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			n := src[i+1]
			if n == 'Q' || n == 'E' {
				return "", false
			}
			if !inClass && (n == 'b' || n == 'B' || n == 'A' || n == 'z') {
				b.WriteString("(?:)")
			} else {
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
		case inClass:
			b.WriteByte(c)
			if c == '[' && i+1 < len(src) && src[i+1] == ':' {
				// [:alpha:]
				end := strings.Index(src[i:], ":]")
				if end < 0 {
					return "", false
				}
				b.WriteString(src[i+1 : i+end+2])
				i += end + 1
			} else if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' first (after an optional '^') belongs to the class.
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '^' || c == '$':
			b.WriteString("(?:)")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), !inClass
}

// compiled is the anchored, relaxed pattern.
func (a *anchor) compiled() *regexp.Regexp {
	a.once.Do(func() { a.re = regexp.MustCompile(a.expr) })
	return a.re
}

// candidate reports whether a match of the pattern may begin near an
// occurrence of the anchor's strings in v: false only when none can.
func (a *anchor) candidate(v *view, atoms []string) bool {
	re := a.compiled()
	var rd strings.Reader
	last := -1
	for _, id := range a.ids {
		hits := v.hits[id]
		if len(hits) > maxHits {
			return true // not every occurrence is known
		}
		for _, e := range hits {
			start := occurrenceStart(v.text, int(e), atoms[id])
			if start < 0 {
				return true
			}
			from := max(0, start-a.pre)
			if from == last {
				continue
			}
			last = from
			// Read through a RuneReader: the backtracker, which Go uses for
			// short texts, clears a bitmap the size of the program times the
			// text at each call.
			rd.Reset(v.text[from:])
			if re.MatchReader(&rd) {
				return true
			}
		}
	}
	return false
}

// occurrenceStart is where the occurrence of atom that ends at end begins in
// text, as the automaton read it (a space in the atom stands for a run of
// white space); -1 when it cannot be told.
func occurrenceStart(text string, end int, atom string) int {
	i := end
	for k := len(atom) - 1; k >= 0; k-- {
		if i <= 0 {
			return -1
		}
		if atom[k] == ' ' {
			if !isSpaceByte(text[i-1]) {
				return -1
			}
			for i > 0 && isSpaceByte(text[i-1]) {
				i--
			}
			continue
		}
		i--
	}
	return i
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// anchorsString lists anchors for debugging.
func (a *anchor) String() string {
	return strconv.Itoa(a.pre) + " " + strings.Join(a.strs, "|")
}

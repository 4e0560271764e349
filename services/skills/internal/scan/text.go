package scan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Invisible characters, by what they do.

// isZeroWidth reports characters that take no space: zero-width space, joiner
// and non-joiner, word joiner and the invisible operators, the byte order mark
// (inside a text), the Mongolian vowel separator, soft hyphen, and the Hangul
// fillers.
func isZeroWidth(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0x180E,
		r == 0x00AD, r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true
	}
	return false
}

// isBidi reports the bidirectional controls (embeddings, overrides, isolates
// and marks) that can make text read differently from what it is.
func isBidi(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// isTag reports the Unicode tag characters (U+E0000–U+E007F): invisible
// copies of ASCII.
func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// isVariation reports the variation selectors, which can carry one byte each.
func isVariation(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF)
}

// invisible is any of them.
func invisible(r rune) bool { return isZeroWidth(r) || isBidi(r) || isTag(r) || isVariation(r) }

// confusables maps letters of other scripts that look like Latin letters to
// them (the lower and upper case of Cyrillic, Greek, Armenian, and a few
// Latin look-alikes outside ASCII). NFKC already maps the full-width and
// mathematical forms.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w',
	'һ': 'h', 'ɡ': 'g', 'ӏ': 'l', 'ո': 'n', 'ս': 'u', 'ց': 'g', 'օ': 'o', 'լ': 'l', 'ւ': 'w', 'զ': 'q',
	'А': 'A', 'В': 'B', 'Е': 'E', 'Ё': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C',
	'Т': 'T', 'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ї': 'I', 'Ј': 'J', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W',
	'Һ': 'H', 'Ӏ': 'I', 'ᴠ': 'v', 'Ь': 'b', 'ь': 'b',
	// Greek
	'α': 'a', 'β': 'b', 'γ': 'y', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't',
	'υ': 'u', 'χ': 'x', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X', 'Ϲ': 'C',
	// Latin look-alikes outside ASCII
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɩ': 'i', 'ʏ': 'y', 'ᴦ': 'r', 'ꞵ': 'b', 'ɴ': 'n', 'ʀ': 'r',
	// Cherokee capitals that copy Latin ones
	'Ꭺ': 'A', 'Ᏼ': 'B', 'Ꮯ': 'C', 'Ꭼ': 'E', 'Ꮋ': 'H', 'Ꭻ': 'J', 'Ꮶ': 'K', 'Ꮇ': 'M', 'Ꮲ': 'P', 'Ꮪ': 'S',
	'Ꭲ': 'T', 'Ꮃ': 'W', 'Ꮓ': 'Z',
}

// normalize is the text patterns match: invisible characters removed, NFKC,
// and letters that look Latin folded to Latin. Line breaks are kept, so line
// numbers do not move. ASCII text is returned as is.
func normalize(s string) string {
	if clean(s) {
		return s
	}
	s = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
	s = norm.NFKC.String(s)
	return foldWords(s)
}

// clean reports whether normalize would leave s as it is: ASCII, or no
// invisible or look-alike character and already in NFKC.
func clean(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return true
	}
	return !suspicious(s) && norm.NFKC.IsNormalString(s)
}

// foldWords folds look-alike letters to Latin inside the words that are
// written to pass for Latin ones: words mixing ASCII letters with look-alikes,
// and words made of look-alikes only. Words of other scripts are kept, so
// that patterns in those languages still match.
func foldWords(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		// The next word: a run of letters.
		i := strings.IndexFunc(s, unicode.IsLetter)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		s = s[end:]
		ascii, look, other := false, false, false
		for _, r := range w {
			switch _, ok := confusables[r]; {
			case r < utf8.RuneSelf:
				ascii = true
			case ok:
				look = true
			default:
				other = true
			}
		}
		if look && (ascii || !other) {
			w = strings.Map(func(r rune) rune {
				if c, ok := confusables[r]; ok {
					return c
				}
				return r
			}, w)
		}
		b.WriteString(w)
	}
	return b.String()
}

// suspicious reports whether s holds an invisible character or a letter
// that looks Latin.
func suspicious(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf {
			continue
		}
		if invisible(r) {
			return true
		}
		if _, ok := confusables[r]; ok {
			return true
		}
	}
	return false
}

// skeleton is normalize for a name: lower case, every look-alike folded.
func skeleton(s string) string { return strings.ToLower(normalize(s)) }

// lineIndex maps byte offsets of a text to 1-based line numbers.
type lineIndex []int // offsets where lines start

func newLineIndex(s string) lineIndex {
	idx := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// lazyLineIndex is *idx, the index of s, made the first time it is asked for.
func lazyLineIndex(idx *lineIndex, s string) lineIndex {
	if *idx == nil {
		*idx = newLineIndex(s)
	}
	return *idx
}

// line returns the line of offset off.
func (l lineIndex) line(off int) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := (lo + hi) / 2
		if l[m] <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// text returns the text of line n (1-based) of s.
func (l lineIndex) text(s string, n int) string {
	if n < 1 || n > len(l) {
		return ""
	}
	start := l[n-1]
	end := len(s)
	if n < len(l) {
		end = l[n] - 1
	}
	return s[start:end]
}

// hiddenView returns the parts of a markdown text a reader of the rendered
// page does not see, at their offsets (everything else blanked, line breaks
// kept), and false when there are none: HTML comments, the body of collapsed
// <details> sections, "[//]: #" comment lines, and HTML elements styled
// invisible or marked hidden. Fenced code blocks are shown as written, so
// nothing inside them is hidden.
func hiddenView(s string) (string, bool) {
	if !strings.Contains(s, "<!--") && !strings.Contains(s, "]:") && !strings.Contains(s, "<") {
		return "", false
	}
	lower := strings.ToLower(s)
	if !strings.Contains(lower, "<!--") && !strings.Contains(lower, "<details") && !strings.Contains(lower, "]: #") &&
		!strings.Contains(lower, "]: <>") && !strings.Contains(lower, "hidden") && !strings.Contains(lower, "display") &&
		!strings.Contains(lower, "font-size") && !strings.Contains(lower, "opacity") {
		return "", false
	}
	fenced := fencedRanges(s)
	inFence := func(off int) bool {
		for _, r := range fenced {
			if off >= r[0] && off < r[1] {
				return true
			}
		}
		return false
	}
	var spans [][2]int
	add := func(from, to int) {
		if from < to && !inFence(from) {
			spans = append(spans, [2]int{from, to})
		}
	}
	// HTML comments.
	for off := 0; ; {
		i := strings.Index(lower[off:], "<!--")
		if i < 0 {
			break
		}
		start := off + i
		end := strings.Index(lower[start+4:], "-->")
		stop := len(s)
		if end >= 0 {
			stop = start + 4 + end
		}
		add(start+4, stop)
		off = min(stop+3, len(s))
	}
	// Collapsed <details>: what follows its summary.
	for off := 0; ; {
		i := strings.Index(lower[off:], "<details")
		if i < 0 {
			break
		}
		start := off + i
		tagEnd := strings.IndexByte(lower[start:], '>')
		if tagEnd < 0 {
			break
		}
		tag := lower[start : start+tagEnd]
		off = start + tagEnd + 1
		if strings.Contains(tag, " open") {
			continue
		}
		body := off
		if j := strings.Index(lower[off:], "</summary>"); j >= 0 {
			if k := strings.Index(lower[off:], "</details"); k < 0 || j < k {
				body = off + j + len("</summary>")
			}
		}
		stop := len(s)
		if k := strings.Index(lower[body:], "</details"); k >= 0 {
			stop = body + k
		}
		add(body, stop)
	}
	// "[//]: # (text)" and "[comment]: <> (text)" lines.
	lines := newLineIndex(s)
	for n := 1; n <= len(lines); n++ {
		t := strings.TrimSpace(lines.text(s, n))
		if strings.HasPrefix(t, "[") {
			if k := strings.Index(t, "]:"); k > 0 {
				rest := strings.TrimSpace(t[k+2:])
				if strings.HasPrefix(rest, "#") || strings.HasPrefix(rest, "<>") {
					add(lines[n-1], lines[n-1]+len(lines.text(s, n)))
				}
			}
		}
	}
	// Elements styled invisible: <span style="display:none">…</span>, <div hidden>.
	for _, m := range hiddenTag.get().FindAllStringSubmatchIndex(lower, 64) {
		name := lower[m[2]:m[3]]
		end := strings.Index(lower[m[1]:], "</"+name)
		stop := len(s)
		if end >= 0 {
			stop = m[1] + end
		}
		add(m[1], stop)
	}
	if len(spans) == 0 {
		return "", false
	}
	b := []byte(s)
	keep := make([]bool, len(s))
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			keep[i] = true
		}
	}
	for i := range b {
		if !keep[i] && b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b), true
}

// fencedRanges returns the byte ranges of the fenced code blocks (``` or ~~~)
// of a markdown text.
func fencedRanges(s string) [][2]int {
	var out [][2]int
	open, fence := -1, ""
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		next := len(s)
		if end >= 0 {
			next = off + end + 1
		}
		t := strings.TrimLeft(s[off:next], " \t")
		switch {
		case open < 0 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			open, fence = off, t[:3]
		case open >= 0 && strings.HasPrefix(t, fence):
			out = append(out, [2]int{open, next})
			open = -1
		}
		off = next
	}
	if open >= 0 {
		out = append(out, [2]int{open, len(s)})
	}
	return out
}

// printable reports whether decoded bytes are text worth scanning: valid
// UTF-8, at least 8 characters, almost all of them graphic or white space,
// with some letters.
func printable(b []byte) bool {
	if len(b) < 8 || !utf8.Valid(b) {
		return false
	}
	total, good, letters := 0, 0, 0
	for _, r := range string(b) {
		total++
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			good++
		case unicode.IsGraphic(r):
			good++
			if unicode.IsLetter(r) {
				letters++
			}
		}
	}
	return good*100 >= total*95 && letters*4 >= total
}

// hiddenTag finds opening tags of elements styled invisible or marked hidden
// (in lower-cased text); group 1 is the element's name.
var hiddenTag = compileLater(`<([a-z][a-z0-9]*)\b[^>]{0,400}?(?:style\s*=\s*["'][^"'>]{0,400}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|em|rem|pt|%)?\s*(?:;|["'])|opacity\s*:\s*0(?:\.0+)?\s*(?:;|["']))|\shidden\b)[^>]{0,400}>`)

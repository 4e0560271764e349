package scan

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoded is a text found encoded inside another one.
type decoded struct {
	text string
	// line is the line of the enclosing text it was found on; 0 when the
	// decoded text keeps the enclosing text's lines (a transformation of the
	// whole text).
	line int
	// how names the encoding, for the finding's message.
	how string
}

// Limits on decoding, so that a hostile file cannot make it expensive.
const (
	maxDecodedPerText = 48
	maxDecodedBytes   = 64 << 10
	minBlob           = 20 // characters of base64 or hex worth decoding
)

// decodeAll returns the texts hidden in s (normalised text) and raw (the same
// text before normalisation, which still holds tag characters and variation
// selectors): base64 and hex blobs (gzip or zlib compressed or not), runs of
// \x, \u, octal and %-escapes and HTML character references, lists of
// character codes, strings split and joined again, and, when the text holds
// the idioms that undo them, reversed lines and ROT13.
func decodeAll(s, raw string, kind Kind) []decoded {
	d := &decoder{src: s, code: kind&(KindCode|KindData) != 0}
	if raw != "" && !isASCIIString(raw) {
		d.invisibles(raw)
	}
	d.blobs()
	d.escapes()
	d.charCodes()
	d.transforms()
	return d.out
}

type decoder struct {
	// code says the text is code or data: strings split and joined are
	// looked for there only.
	code  bool
	src   string
	lines lineIndex
	out   []decoded
}

func (d *decoder) full() bool { return len(d.out) >= maxDecodedPerText }

func (d *decoder) lineOf(off int) int {
	return lazyLineIndex(&d.lines, d.src).line(off)
}

func (d *decoder) add(text []byte, off int, how string) {
	if d.full() || !printable(text) {
		return
	}
	if len(text) > maxDecodedBytes {
		text = text[:maxDecodedBytes]
	}
	d.out = append(d.out, decoded{text: string(text), line: d.lineOf(off), how: how})
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// invisibles decodes Unicode tag characters (each an invisible copy of an
// ASCII character) and runs of variation selectors (each can carry a byte).
func (d *decoder) invisibles(raw string) {
	lines := newLineIndex(raw)
	var tags, vs []byte
	tagAt, vsAt := -1, -1
	flush := func() {
		if len(tags) > 0 && !d.full() {
			// Tag text is reported even when short: nothing legitimate but an
			// emoji flag uses tags, and those are left out by the caller.
			d.out = append(d.out, decoded{text: string(tags), line: lines.line(tagAt), how: "Unicode tag characters"})
		}
		if len(vs) >= 4 && printable(vs) && !d.full() {
			d.out = append(d.out, decoded{text: string(vs), line: lines.line(vsAt), how: "variation selectors"})
		}
		tags, vs, tagAt, vsAt = nil, nil, -1, -1
	}
	for i, r := range raw {
		switch {
		case r >= 0xE0020 && r <= 0xE007E:
			if tagAt < 0 {
				tagAt = i
			}
			tags = append(tags, byte(r-0xE0000))
		case r >= 0xFE00 && r <= 0xFE0F:
			if vsAt < 0 {
				vsAt = i
			}
			vs = append(vs, byte(r-0xFE00))
		case r >= 0xE0100 && r <= 0xE01EF:
			if vsAt < 0 {
				vsAt = i
			}
			vs = append(vs, byte(r-0xE0100+16))
		case r == 0xE0001 || r == 0xE007F:
		default:
			if tagAt >= 0 || vsAt >= 0 {
				flush()
			}
		}
	}
	flush()
}

// b64Table marks the bytes of base64 (both alphabets).
var b64Table = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
	}
	return t
}()

func isB64(c byte) bool { return b64Table[c] }

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// blobs decodes runs of base64 or hex characters, joining a blob wrapped over
// several lines (or split into quoted pieces on consecutive lines).
func (d *decoder) blobs() {
	s := d.src
	type run struct{ start, end int }
	var runs []run
	for i := 0; i < len(s); {
		if !isB64(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64(s[j]) {
			j++
		}
		k := j
		for k < len(s) && k-j < 2 && s[k] == '=' {
			k++
		}
		if j-i >= minBlob {
			runs = append(runs, run{i, k})
		}
		i = k
		if i == j {
			i++
		}
	}
	for i := 0; i < len(runs) && !d.full(); i++ {
		start := runs[i].start
		var b strings.Builder
		b.WriteString(strings.TrimRight(s[runs[i].start:runs[i].end], "="))
		for i+1 < len(runs) && runs[i].end-runs[i].start >= 40 && joinable(s[runs[i].end:runs[i+1].start]) {
			i++
			b.WriteString(strings.TrimRight(s[runs[i].start:runs[i].end], "="))
		}
		d.blob(b.String(), start)
	}
}

// joinable reports whether what lies between two runs only wraps or splits
// one blob: white space with at most one line break, quotes, backslashes,
// commas, plus signs and dots.
func joinable(gap string) bool {
	breaks := 0
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case '\n':
			breaks++
		case ' ', '\t', '\r', '"', '\'', '\\', ',', '+', '.', '`':
		default:
			return false
		}
	}
	return breaks <= 1 && len(gap) <= 16
}

func (d *decoder) blob(b string, off int) {
	allHex := true
	upper, lower, digit, other := false, false, false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		default:
			other = true
		}
		if !isHexDigit(c) {
			allHex = false
		}
	}
	if allHex {
		if len(b)%2 == 0 && len(b) >= minBlob+4 {
			if out, err := hex.DecodeString(b); err == nil {
				d.add(inflate(out), off, "hex")
			}
		}
		return
	}
	// Identifiers and kebab-case words are not base64; base64 text mixes
	// cases and has digits (or is long).
	if !(upper && lower) || !(digit || other || len(b) >= 40) {
		return
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(b, "-_") {
		if strings.ContainsAny(b, "+/") {
			return
		}
		enc = base64.RawURLEncoding
	}
	if len(b)%4 == 1 {
		b = b[:len(b)-1]
	}
	out, err := enc.DecodeString(b)
	if err != nil {
		return
	}
	how := "base64"
	if inf := inflate(out); len(inf) != len(out) || !bytes.Equal(inf, out) {
		how = "compressed base64"
		out = inf
	}
	d.add(out, off, how)
}

// inflate decompresses gzip or zlib data (bounded); anything else is
// returned as is.
func inflate(b []byte) []byte {
	var r io.Reader
	switch {
	case len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b:
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return b
		}
		r = z
	case len(b) > 2 && b[0] == 0x78 && (b[1] == 0x01 || b[1] == 0x5e || b[1] == 0x9c || b[1] == 0xda):
		z, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			return b
		}
		r = z
	default:
		return b
	}
	out, _ := io.ReadAll(io.LimitReader(r, maxDecodedBytes))
	if len(out) == 0 {
		return b
	}
	return out
}

// escapes decodes runs of \xHH, \uHHHH, \NNN (octal), %HH and &#N; / &#xH;.
func (d *decoder) escapes() {
	s := d.src
	if !strings.Contains(s, `\`) && !strings.Contains(s, "%") && !strings.Contains(s, "&#") {
		return
	}
	for i := 0; i < len(s) && !d.full(); i++ {
		c := s[i]
		if c != '\\' && c != '%' && c != '&' {
			continue
		}
		var buf []byte
		j := i
		n := 0
		for j < len(s) {
			v, w := escapeAt(s, j, c)
			if w == 0 {
				break
			}
			buf = utf8.AppendRune(buf, v)
			j += w
			n++
		}
		min := 4
		if c == '%' {
			min = 6
		}
		if n >= min {
			d.add(buf, i, "escape sequences")
			i = j - 1
		}
	}
}

// escapeAt reads one escape of the family started by lead at s[i]; it
// returns the character and the escape's width (0 when there is none).
func escapeAt(s string, i int, lead byte) (rune, int) {
	if s[i] != lead {
		return 0, 0
	}
	rest := s[i+1:]
	switch lead {
	case '\\':
		switch {
		case len(rest) >= 3 && (rest[0] == 'x' || rest[0] == 'X') && isHexDigit(rest[1]) && isHexDigit(rest[2]):
			v, _ := strconv.ParseUint(rest[1:3], 16, 8)
			return rune(v), 4
		case len(rest) >= 5 && rest[0] == 'u' && isHexDigit(rest[1]) && isHexDigit(rest[2]) && isHexDigit(rest[3]) && isHexDigit(rest[4]):
			v, _ := strconv.ParseUint(rest[1:5], 16, 16)
			return rune(v), 6
		case len(rest) >= 3 && rest[0] >= '0' && rest[0] <= '3' && rest[1] >= '0' && rest[1] <= '7' && rest[2] >= '0' && rest[2] <= '7':
			v, _ := strconv.ParseUint(rest[:3], 8, 8)
			return rune(v), 4
		}
	case '%':
		if len(rest) >= 2 && isHexDigit(rest[0]) && isHexDigit(rest[1]) {
			v, _ := strconv.ParseUint(rest[:2], 16, 8)
			return rune(v), 3
		}
	case '&':
		if strings.HasPrefix(rest, "#") {
			end := strings.IndexByte(rest, ';')
			if end < 2 || end > 8 {
				return 0, 0
			}
			num := rest[1:end]
			base := 10
			if num[0] == 'x' || num[0] == 'X' {
				num, base = num[1:], 16
			}
			v, err := strconv.ParseUint(num, base, 21)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return 0, 0
			}
			return rune(v), end + 2
		}
	}
	return 0, 0
}

// charCodeIdioms are the code that turns numbers into text.
var charCodeIdioms = []string{"fromCharCode", "fromcharcode", "chr(", "chr (", "[char]", "[Char]", "bytes([", "bytearray(", "[]byte{", "pack(\"C*", "pack('C*"}

// charCodeList finds a list of at least six character codes.
var charCodeList = compileLater(`(?i)(?:(?:0x[0-9a-f]{1,2}|\d{1,3})\s*\)?\s*[,+]\s*(?:chr\s*\(|\[char\]\s*)?){5,}(?:0x[0-9a-f]{1,2}|\d{1,3})`)

var charCodeNumber = compileLater(`(?i)0x[0-9a-f]{1,2}|\d{1,3}`)

// charCodes decodes lists of character codes near code that turns them into
// text (String.fromCharCode, chr(), [char], bytes([...])).
func (d *decoder) charCodes() {
	s := d.src
	for _, idiom := range charCodeIdioms {
		for off, n := 0, 0; n < 16 && !d.full(); n++ {
			i := strings.Index(s[off:], idiom)
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(idiom)
			win := s[at:min(len(s), at+4096)]
			for _, l := range charCodeList.get().FindAllStringIndex(win, 8) {
				var buf []byte
				ok := true
				for _, num := range charCodeNumber.get().FindAllString(win[l[0]:l[1]], -1) {
					base, digits := 10, num
					if len(num) > 2 && (num[1] == 'x' || num[1] == 'X') {
						base, digits = 16, num[2:]
					}
					v, err := strconv.ParseUint(digits, base, 16)
					if err != nil {
						ok = false
						break
					}
					buf = utf8.AppendRune(buf, rune(v))
				}
				if ok {
					d.add(buf, at+l[0], "character codes")
				}
			}
			off = max(off, at+len(win)/2)
		}
	}
}

// Idioms that undo a reversal or ROT13: only then is the text read that way.
var (
	reverseIdioms = []string{`"[::-1]`, `'[::-1]`, `")[::-1]`, `')[::-1]`, ".reverse().join(", `split("").reverse()`, `split('').reverse()`,
		"| rev", "|rev", "strrev(", "[array]::Reverse(", "[Array]::Reverse("}
	rot13Idioms = []string{"rot13", "ROT13", "rot_13", "ROT_13", "n-za-m", "N-ZA-M", "str_rot13"}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// transforms adds views of the lines that change when strings split to hide
// words are joined again ("cu" + "rl", 'ev'.'al', c”url, ${IFS} for a
// space), and, when the text holds the idioms that undo them, of its lines
// reversed and ROT13. Lines that do not change are blanked, so that only
// what the transformation reveals is matched again.
func (d *decoder) transforms() {
	s := d.src
	if d.code {
		if j, changed := joinStrings(s); changed && !d.full() {
			d.out = append(d.out, decoded{text: j, how: "strings joined"})
		}
	}
	if (strings.Contains(s, "rev") || strings.Contains(s, "Rev") || strings.Contains(s, "::-1")) && containsAny(s, reverseIdioms) && !d.full() {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			r := []rune(l)
			for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
			lines[i] = string(r)
		}
		d.out = append(d.out, decoded{text: strings.Join(lines, "\n"), how: "reversed"})
	}
	if (strings.Contains(s, "13") || strings.Contains(s, "-za-m") || strings.Contains(s, "-ZA-M")) && containsAny(s, rot13Idioms) && !d.full() {
		d.out = append(d.out, decoded{text: strings.Map(rot13, s), how: "ROT13"})
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// joinStrings returns s with the lines that hold joined strings rewritten
// and every other line blanked (same length), and whether any line changed.
func joinStrings(s string) (string, bool) {
	if !strings.ContainsAny(s, `"'$`) {
		return "", false
	}
	var b strings.Builder
	changed := false
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		next := len(s)
		if end >= 0 {
			next = off + end + 1
		}
		line := s[off:next]
		if j := joinLine(line); j != line {
			b.WriteString(j)
			changed = true
		} else {
			for i := 0; i < len(line); i++ {
				if line[i] == '\n' {
					b.WriteByte('\n')
				} else {
					b.WriteByte(' ')
				}
			}
		}
		off = next
	}
	return b.String(), changed
}

// joinLine joins the strings split on one line: "cu" + "rl" and 'ev'.'al'
// (a string closed, + or ., a string opened), c”url and c""url (an empty
// string inside a word), and $IFS or ${IFS} used for a space.
func joinLine(line string) string {
	if !strings.ContainsAny(line, `"'$`) {
		return line
	}
	var b []byte
	var quote byte // the quote of the string being read; 0 outside strings
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && (c == '"' || c == '\'') && i > 0 && i+2 < len(line) && line[i+1] == c && isWordByte(line[i-1]) && isWordByte(line[i+2]):
			i++ // c''url
			continue
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote != 0 && c == '\\':
			if i+1 < len(line) {
				b = append(b, c, line[i+1])
				i++
				continue
			}
		case quote != 0 && c == quote:
			// The string ends: is another one joined to it?
			k := i + 1
			for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
				k++
			}
			if k < len(line) && (line[k] == '+' || line[k] == '.') {
				m := k + 1
				for m < len(line) && (line[m] == ' ' || line[m] == '\t') {
					m++
				}
				if m < len(line) && (line[m] == '"' || line[m] == '\'') {
					quote = line[m]
					i = m
					continue
				}
			}
			quote = 0
		case c == '$' && strings.HasPrefix(line[i:], "${IFS}"):
			b = append(b, ' ')
			i += len("${IFS}") - 1
			continue
		case c == '$' && strings.HasPrefix(line[i:], "$IFS"):
			b = append(b, ' ')
			i += len("$IFS") - 1
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func rot13(r rune) rune {
	switch {
	case r >= 'a' && r <= 'z':
		return 'a' + (r-'a'+13)%26
	case r >= 'A' && r <= 'Z':
		return 'A' + (r-'A'+13)%26
	}
	return r
}

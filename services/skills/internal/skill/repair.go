package skill

import (
	"fmt"
	"strings"
)

// maxRepairBytes bounds the frontmatter the lenient retry works on; real
// frontmatter is far smaller, and the retry parses each suspicious line alone.
const maxRepairBytes = 64 << 10

// A repair is one value the lenient retry quoted.
type repair struct {
	// line is the 1-based line of the frontmatter.
	line int
	// what names the value: `the value of "description"` or `a list item`.
	what   string
	reason string
}

// repairFrontmatter is the lenient retry of the Agent Skills client guide: it
// wraps in double quotes the plain values that YAML cannot read as written —
// the common authoring mistakes are an unquoted ": " inside a description
// (`description: Use when: …`) and a value starting with a character YAML
// reserves (`@`, '`', …). It only touches a value that fails to parse on its
// own, and only when the fix is unambiguous: a value whose continuation lines
// look like keys, list items or comments (a wrongly indented key, perhaps) is
// left alone. Continuation lines of a quoted value are blanked so that line
// numbers do not move. It returns the new text and what it changed (nothing
// when no line needed a change).
func repairFrontmatter(fm string) (string, []repair) {
	if len(fm) > maxRepairBytes {
		return "", nil
	}
	lines := strings.Split(fm, "\n")
	var reps []repair
	for i := 0; i < len(lines); i++ {
		vl, ok := parseValueLine(lines[i])
		if !ok {
			continue
		}
		v := vl.value
		switch {
		case v[0] == '#':
			continue
		case isBlockIndicator(v):
			i = skipIndented(lines, i, vl.col)
			continue
		case v[0] == '"' || v[0] == '\'':
			end := closingQuote(v, 1, v[0])
			if end < 0 {
				i = skipQuoted(lines, i, v[0])
				continue
			}
			if rest := strings.TrimLeft(v[end+1:], " \t"); rest == "" || rest[0] == '#' {
				continue
			}
		case v[0] == '[' || v[0] == '{':
			if d := flowDepth(v, 0); d > 0 {
				i = skipFlow(lines, i, d)
				continue
			}
		case v[0] == '*' && !strings.ContainsAny(v, " \t"):
			continue // an alias
		}

		last, ambiguous := continuation(lines, i, vl.col)
		if ambiguous {
			i = last
			continue
		}
		joined := fold(v, lines[i+1:last+1])
		reason := suspicious(joined)
		prefix := "k: "
		if vl.key == "" {
			prefix = "- "
		}
		if reason == "" || parsesAlone(prefix+strings.ReplaceAll(joined, "\n", " ")) {
			i = last
			continue
		}
		lines[i] = lines[i][:vl.valueStart] + quoteDouble(joined)
		for j := i + 1; j <= last; j++ {
			lines[j] = ""
		}
		what := "a list item"
		if vl.key != "" {
			what = fmt.Sprintf("the value of %q", vl.key)
		}
		reps = append(reps, repair{line: i + 1, what: what, reason: reason})
		i = last
	}
	if len(reps) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n"), reps
}

// valueLine is a block-mapping line `key: value` or a list item `- value`,
// possibly after `- ` (a mapping inside a list).
type valueLine struct {
	// col is the column that continuation lines of the value must be
	// indented beyond: the key's, or the dash's for a list item.
	col int
	// key is empty for a list item.
	key        string
	valueStart int
	// value is the rest of the line after the separator, right-trimmed; it
	// is never empty.
	value string
}

func parseValueLine(line string) (valueLine, bool) {
	i := indentOf(line)
	dash := -1
	for i+1 < len(line) && line[i] == '-' && (line[i+1] == ' ' || line[i+1] == '\t') {
		dash = i
		i += 2
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
	}
	vl := valueLine{col: dash, valueStart: i}
	start := i
	for i < len(line) && isKeyByte(line[i]) {
		i++
	}
	j := i
	for j < len(line) && line[j] == ' ' {
		j++
	}
	if i > start && line[start] != '-' && j < len(line) && line[j] == ':' &&
		(j+1 == len(line) || line[j+1] == ' ' || line[j+1] == '\t') {
		vl.col, vl.key = start, line[start:i]
		j++
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		vl.valueStart = j
	} else if dash < 0 {
		return valueLine{}, false
	}
	vl.value = strings.TrimRight(line[vl.valueStart:], " \t")
	return vl, vl.value != ""
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '/' || c >= 0x80
}

func indentOf(line string) int {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	return i
}

func isBlank(line string) bool {
	return strings.Trim(line, " \t") == ""
}

// isBlockIndicator reports whether v starts a literal or folded block scalar
// (`|`, `>-`, `|2+ # comment`).
func isBlockIndicator(v string) bool {
	if v[0] != '|' && v[0] != '>' {
		return false
	}
	j := 1
	for j < len(v) && strings.IndexByte("+-123456789", v[j]) >= 0 {
		j++
	}
	rest := strings.TrimLeft(v[j:], " \t")
	return rest == "" || rest[0] == '#' && len(rest) < len(v[j:])
}

// skipIndented returns the last line after i indented beyond col (the content
// of a block scalar), or i.
func skipIndented(lines []string, i, col int) int {
	last := i
	for j := i + 1; j < len(lines); j++ {
		if isBlank(lines[j]) {
			continue
		}
		if indentOf(lines[j]) <= col {
			break
		}
		last = j
	}
	return last
}

// closingQuote returns the index of the quote q closing a quoted scalar in s,
// searching from from, or -1.
func closingQuote(s string, from int, q byte) int {
	for k := from; k < len(s); k++ {
		switch {
		case q == '"' && s[k] == '\\':
			k++
		case s[k] == q:
			if q == '\'' && k+1 < len(s) && s[k+1] == '\'' {
				k++
				continue
			}
			return k
		}
	}
	return -1
}

// skipQuoted returns the line that closes a quoted scalar opened on line i.
func skipQuoted(lines []string, i int, q byte) int {
	for j := i + 1; j < len(lines); j++ {
		if closingQuote(lines[j], 0, q) >= 0 {
			return j
		}
	}
	return len(lines) - 1
}

// flowDepth returns the bracket depth of a flow collection after scanning s,
// starting from depth d; 0 once the outermost collection closes.
func flowDepth(s string, d int) int {
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch c {
		case '"', '\'':
			if k == 0 || strings.IndexByte("[{,: \t", s[k-1]) >= 0 {
				end := closingQuote(s, k+1, c)
				if end < 0 {
					return d
				}
				k = end
			}
		case '[', '{':
			d++
		case ']', '}':
			d--
			if d <= 0 {
				return 0
			}
		case '#':
			if k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
				return d
			}
		}
	}
	return d
}

// skipFlow returns the line that closes a flow collection left open at depth d
// on line i.
func skipFlow(lines []string, i, d int) int {
	for j := i + 1; j < len(lines); j++ {
		if d = flowDepth(lines[j], d); d <= 0 {
			return j
		}
	}
	return len(lines) - 1
}

// continuation returns the last continuation line of a plain value on line i
// (i when there is none), and whether those lines are ambiguous: lines that
// look like keys, list items or comments may be misplaced structure rather
// than text.
func continuation(lines []string, i, col int) (last int, ambiguous bool) {
	last = i
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if isBlank(l) {
			continue
		}
		if indentOf(l) <= col {
			break
		}
		t := strings.TrimLeft(l, " \t")
		if t[0] == '#' || t[0] == '-' && (len(t) == 1 || t[1] == ' ' || t[1] == '\t') {
			ambiguous = true
		} else if vl, ok := parseValueLine(l); ok && vl.key != "" {
			ambiguous = true
		} else if strings.HasSuffix(t, ":") && !strings.ContainsAny(t, " \t") {
			ambiguous = true // `key:` opening a nested mapping
		}
		last = j
	}
	return last, ambiguous
}

// fold joins a plain value and its continuation lines as YAML folds them: a
// line break becomes a space, an empty line a newline.
func fold(first string, cont []string) string {
	if len(cont) == 0 {
		return first
	}
	var b strings.Builder
	b.WriteString(first)
	blank := 0
	for _, l := range cont {
		t := strings.Trim(l, " \t")
		if t == "" {
			blank++
			continue
		}
		if blank > 0 {
			b.WriteString(strings.Repeat("\n", blank))
			blank = 0
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// suspicious says why a plain value may be misread by YAML, or returns "".
func suspicious(v string) string {
	switch {
	case strings.Contains(v, ": ") || strings.Contains(v, ":\t"):
		return `it contains ": "`
	case strings.HasSuffix(v, ":"):
		return `it ends with ":"`
	case strings.IndexByte("@`%!&*|>?-,[]{}\"'", v[0]) >= 0:
		return fmt.Sprintf("it starts with %q", v[:1])
	}
	return ""
}

func parsesAlone(line string) bool {
	_, err := decodeYAML(line)
	return err == nil
}

func quoteDouble(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

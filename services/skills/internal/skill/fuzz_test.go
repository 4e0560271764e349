package skill

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"---",
		"---\n",
		"---\n---",
		"---\n---\n",
		"---\r\n---\r\n",
		"\xEF\xBB\xBF---\nname: x\n---\nbody",
		"---\nname: x\n...\nbody",
		"---\ndescription: Use when: x\n---\n",
		"---\ndescription: @Observable\n---\n",
		"---\ndescription: \"a\" b: c\n---\n",
		"---\ndescription: a\n  b: c\n---\n",
		"---\ndescription: |\n  a: b\nname: c: d\n---\n",
		"---\ntags: [a,\n  b: c]\nname: x: y\n---\n",
		"---\na: &a\n  b: *a\n---\n",
		"---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n",
		"---\n<<: {a: 1}\n<<: [*x]\n---\n",
		"---\n? [a, b]\n: c\n~: d\n1: e\n---\n",
		"---\n- a\n- b\n---\n",
		"---\n42\n---\n",
		"---\nx: .inf\ny: .nan\nz: 99999999999999999999\n---\n",
		"---\nkeywords:\n  - @a\n  -\n  - [b]\n---\n",
		"---\nassets:\n  - file: ../x\n  - file: /x\n  - \"a\\\\b\"\n---\n",
		"---\nscripts:\n  - file: s.sh\n    execution: docker\n    args:\n      - name: a-b\n      - name: A_B\n        default: [1]\n---\n",
		"---\nmetadata:\n  skillhub: {category: A, tags: 'B, C', alwaysApply: yes}\n---\n",
		"---\npriority: 2.5\ninherit: no\nuser-invocable: 0\n---\n",
		"---\nname: caf\xe9\n---\n\xff",
		"---\nmetadata:\n\tkey: value\n---\n",
		"---\nk: \"unterminated\n---\n",
		"body\x00with nul",
		"\xFF\xFE-\x00-\x00",
		"---\n" + strings.Repeat("[", 100) + "\n---\n",
		"---\n" + strings.Repeat("- ", 100) + "x\n---\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// The fixture trees, when the shared folder is there.
	for _, sub := range []string{"fixtures/seed000-tree", "bench/malformed"} {
		if dir := findShared(sub); dir != "" {
			_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
					if data, err := os.ReadFile(path); err == nil {
						f.Add(data)
					}
				}
				return nil
			})
		}
	}
	if data, err := os.ReadFile("testdata/bench/SKILL.md"); err == nil {
		f.Add(data)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		doc, diags := Parse("f/SKILL.md", data)
		hasError := false
		for _, d := range diags {
			if d.File != "f/SKILL.md" {
				t.Errorf("diagnostic File: got %q", d.File)
			}
			if !isKebab(d.Code) {
				t.Errorf("diagnostic code %q is not kebab-case", d.Code)
			}
			if d.Severity < SeverityInfo || d.Severity > SeverityError {
				t.Errorf("diagnostic severity: got %d", d.Severity)
			}
			if d.Line < 0 || d.Line > len(data)+1 {
				t.Errorf("diagnostic line: got %d for %d bytes", d.Line, len(data))
			}
			if d.Message == "" {
				t.Errorf("diagnostic %q has no message", d.Code)
			}
			hasError = hasError || d.Severity == SeverityError
		}
		if doc == nil {
			if !hasError {
				t.Fatalf("nil document without an error diagnostic: %v", diags)
			}
			return
		}
		if _, err := json.Marshal(doc.Frontmatter.Raw); err != nil {
			t.Fatalf("json.Marshal(Raw): %v", err)
		}
		if strings.IndexByte(doc.Body, '\r') >= 0 {
			t.Fatalf("body contains \\r: %q", doc.Body)
		}
		if !utf8.ValidString(doc.Body) {
			t.Fatalf("body is not valid UTF-8: %q", doc.Body)
		}
		if doc.BodyLine < 1 {
			t.Fatalf("body line: got %d", doc.BodyLine)
		}
		if doc.HasFrontmatter && doc.Frontmatter.Raw == nil {
			t.Fatal("HasFrontmatter with nil Raw")
		}
		for _, a := range doc.Frontmatter.Assets {
			if checkRelPath(a.File) != "" || a.Type == "" {
				t.Fatalf("asset %+v kept", a)
			}
		}
		for _, s := range doc.Frontmatter.Scripts {
			if checkRelPath(s.File) != "" || s.Execution != "claude" && s.Execution != "server" {
				t.Fatalf("script %+v kept", s)
			}
		}
		doc2, diags2 := Parse("f/SKILL.md", bytes.Clone(data))
		if doc2 == nil || doc2.Body != doc.Body || len(diags2) != len(diags) {
			t.Fatal("Parse is not deterministic")
		}
	})
}

// findShared is sharedDir without a *testing.T: "" when absent.
func findShared(sub string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		cand := filepath.Join(dir, "shared", filepath.FromSlash(sub))
		if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
			return cand
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isKebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/bench/SKILL.md")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, diags := Parse("release-notes/SKILL.md", data)
		if doc == nil || len(diags) != 0 {
			b.Fatalf("unexpected result: %v", diags)
		}
	}
}

func BenchmarkParseRepair(b *testing.B) {
	data := frontmatterDoc(joinLines("name: x", "description: Verification loop: build, test, ship.", "license: MIT"))
	b.ReportAllocs()
	for b.Loop() {
		Parse("x/SKILL.md", data)
	}
}

func BenchmarkParseHugeBody(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("---\nname: huge\ndescription: A very large skill.\n---\n")
	for buf.Len() < 5<<20 {
		buf.WriteString("Lorem ipsum dolor sit amet, consectetur adipiscing elit: sed do eiusmod tempor.\n")
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Parse("huge/SKILL.md", data)
	}
}

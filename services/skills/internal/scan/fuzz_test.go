package scan

import (
	"strings"
	"testing"
)

// FuzzParseRules: any rule file is accepted or refused with an error naming
// it, never a panic; an accepted rule is complete.
func FuzzParseRules(f *testing.F) {
	f.Add([]byte(companyRules))
	f.Add([]byte("rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\nmatch abc\nexample abc\ncounter xyz\n"))
	f.Add([]byte("context docs\nwithin 3\nmatch (?i)attack\n"))
	f.Add([]byte("rule a.b\nexample \\u{zz}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var set ruleSet
		err := parseRules(&set, "fuzz.rules", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.rules") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, r := range set.rules {
			if r.ID == "" || r.Title == "" || r.Family == "" || r.Severity < Info || r.Message == "" || r.In == 0 {
				t.Fatalf("incomplete rule accepted: %+v", r)
			}
		}
	})
}

// FuzzScanText: scanning any text as any kind never panics, and findings
// point at lines of the text.
func FuzzScanText(f *testing.F) {
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, fx := range malicious {
		for _, content := range fx.files {
			f.Add(content, uint8(0))
		}
	}
	f.Add("<!-- <details> [//]: # (x) \u202e \U000E0041 \\x41\\x42\\x43\\x44 %41%42%43%44%45%46 chr(65)+chr(66)", uint8(1))
	f.Fuzz(func(t *testing.T, text string, k uint8) {
		kind := []Kind{KindInstructions, KindCode, KindData}[int(k)%3]
		lines := strings.Count(text, "\n") + 1
		for _, fd := range s.ScanText(t.Context(), kind, text) {
			if fd.Line < 0 || fd.Line > lines {
				t.Fatalf("finding %s at line %d of a %d-line text", fd.Rule, fd.Line, lines)
			}
			if fd.Severity < Info || fd.Severity > Critical || fd.Message == "" {
				t.Fatalf("bad finding %+v", fd)
			}
		}
	})
}

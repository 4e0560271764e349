package scan

import (
	"context"
	"fmt"
	"strings"
)

// selfTest scans the examples and counters of the rules of security.rules
// files: an example the rule does not flag, or a counter it flags, is an
// error naming its line. (The built-in rules are checked by the tests of
// this package, TestRuleExamples, rather than at every start.)
func (s *Scanner) selfTest() error {
	for _, r := range s.rules().rules {
		if strings.HasPrefix(r.File, builtinPrefix) {
			continue
		}
		c := checks[r.Check]
		if c.skill != nil && len(r.examples)+len(r.counters) > 0 {
			return fmt.Errorf("%s:%d: rule %s: check %s looks at the whole skill; its examples cannot be one text (test it with skills instead)",
				r.File, r.Line, r.ID, r.Check)
		}
		for _, ex := range r.examples {
			if !s.flags(r, ex.text) {
				return fmt.Errorf("%s:%d: rule %s does not flag its example %s", r.File, ex.line, r.ID, excerpt(ex.text))
			}
		}
		for _, ex := range r.counters {
			if s.flags(r, ex.text) {
				return fmt.Errorf("%s:%d: rule %s flags its counter-example %s", r.File, ex.line, r.ID, excerpt(ex.text))
			}
		}
	}
	return nil
}

// flags reports whether rule r finds something in text, scanned as a file
// of the rule's first kind.
func (s *Scanner) flags(r *Rule, text string) bool {
	ctx := context.Background()
	for _, f := range s.ScanText(ctx, r.first, text) {
		if f.Rule == r.ID {
			return true
		}
	}
	return false
}

// ScanText scans one text as a file of the given kind (KindInstructions:
// markdown) and returns its findings, for tests and tools.
func (s *Scanner) ScanText(ctx context.Context, kind Kind, text string) []Finding {
	s.prepare()
	j := &job{s: s, sk: &Skill{}, found: map[findingKey]int{}}
	name := map[Kind]string{KindInstructions: "example.md", KindCode: "example", KindData: "example.data"}[kind]
	if name == "" {
		name = "example"
	}
	ft := &fileText{rel: name, path: name, kind: kind, markdown: kind == KindInstructions && !strings.HasSuffix(name, ".txt")}
	j.scanText(ctx, ft, []byte(text))
	return j.findings
}

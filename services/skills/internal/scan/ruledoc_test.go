package scan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var printRules = flag.Bool("print-rules", false, "print the rule table of docs/security.md")

// TestSecurityDocListsEveryRule keeps docs/security.md in step with the
// built-in rules: every rule id appears there with its severity.
func TestSecurityDocListsEveryRule(t *testing.T) {
	s := newTestScanner(t)
	if *printRules {
		for _, r := range s.Rules() {
			what := r.Title
			if r.Check != "" {
				what += " (built-in check)"
			}
			fmt.Printf("| `%s` | %s | %s | %s |\n", r.ID, r.Severity, what, strings.Join(r.OWASP, ", "))
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Rules() {
		row := fmt.Sprintf("| `%s` | %s |", r.ID, r.Severity)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/security.md has no row starting %q", row)
		}
	}
}

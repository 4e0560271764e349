package mcpgw

import (
	"strings"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

func TestSecuritySummary(t *testing.T) {
	f := func(rule string, sev skillsv1.FindingSeverity, file string, line int32, accepted bool) *skillsv1.Finding {
		return &skillsv1.Finding{Rule: rule, Severity: sev, File: file, Line: line, Accepted: accepted}
	}
	const (
		info = skillsv1.FindingSeverity_FINDING_SEVERITY_INFO
		low  = skillsv1.FindingSeverity_FINDING_SEVERITY_LOW
		med  = skillsv1.FindingSeverity_FINDING_SEVERITY_MEDIUM
		high = skillsv1.FindingSeverity_FINDING_SEVERITY_HIGH
	)
	if got := securitySummary(nil); got != "" {
		t.Errorf("no findings: %q", got)
	}
	if got := securitySummary([]*skillsv1.Finding{f("a.b", info, "x", 1, false), f("c.d", high, "y", 2, true)}); got != "" {
		t.Errorf("only info and accepted findings: %q", got)
	}
	got := securitySummary([]*skillsv1.Finding{
		f("meta.undeclared-script", low, "s/x.py", 0, false),
		f("script.pipe-to-shell", high, "s/setup.sh", 3, false),
		f("instr.auto-approve", med, "s/SKILL.md", 9, false),
		f("script.env-dump", med, "s/e.sh", 2, false),
		f("script.eicar", high, "s/t.txt", 1, true),
	})
	for _, want := range []string{"1 high, 2 medium, 1 low", "script.pipe-to-shell (high) at s/setup.sh:3", "and 1 more", "user's confirmation"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q does not say %q", got, want)
		}
	}
	if strings.Contains(got, "eicar") {
		t.Errorf("summary names an accepted finding: %q", got)
	}
}

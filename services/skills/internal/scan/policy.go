package scan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Policy decides what findings mean for serving a skill. The zero value
// quarantines at Critical and allows nothing.
type Policy struct {
	// Quarantine is the lowest severity that quarantines a skill (a finding
	// no Allow entry covers); 0 means Critical, Off never quarantines.
	Quarantine Severity
	// Allow lists what reviewers accepted.
	Allow []Allow
}

// Allow is one accepted finding, rule or skill (security.allow).
type Allow struct {
	// Rule is a rule id; empty means every rule (of Skill).
	Rule string
	// Skill is a skill's path or name (case-insensitive); empty means every
	// skill (for Rule).
	Skill string
	// Digest is the skill's content digest ("sha256:…") the reviewer
	// accepted; empty means any content. When the skill changes, the entry
	// no longer applies: its findings count again until the entry is
	// updated.
	Digest string
	// Reason says why it was accepted, and by whom; required.
	Reason string
}

// Threshold is the effective quarantine severity (Off when off).
func (p Policy) Threshold() Severity {
	if p.Quarantine == 0 {
		return Critical
	}
	return p.Quarantine
}

var digestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// validate checks the entries against the loaded rules; errors name the
// entry as security.allow[i].
func (p Policy) validate(s *Scanner) error {
	if p.Quarantine != 0 && p.Quarantine != Off && (p.Quarantine < Info || p.Quarantine > Critical) {
		return fmt.Errorf("security.quarantine: %v is not a severity", p.Quarantine)
	}
	for i, a := range p.Allow {
		key := fmt.Sprintf("security.allow[%d]", i)
		switch {
		case strings.TrimSpace(a.Reason) == "":
			return fmt.Errorf("%s: a reason is required (who reviewed it, and why it is acceptable)", key)
		case a.Rule == "" && a.Skill == "":
			return fmt.Errorf("%s: give a rule, a skill, or both", key)
		case a.Digest != "" && !digestForm.MatchString(a.Digest):
			return fmt.Errorf("%s.digest: %q is not a content digest (sha256: and 64 lower-case hex digits, as skills scan and GetSkill show it)", key, a.Digest)
		case a.Digest != "" && a.Skill == "":
			return fmt.Errorf("%s.digest: a digest pins one skill's content; give the skill too", key)
		}
		if a.Rule != "" && !slices.ContainsFunc(s.rules().rules, func(r *Rule) bool { return r.ID == a.Rule }) {
			return fmt.Errorf("%s.rule: no rule has the id %q", key, a.Rule)
		}
	}
	return nil
}

// Verdict is what the policy makes of a skill's findings.
type Verdict struct {
	// Findings are all the findings, with Allowed set on those a reviewer
	// accepted.
	Findings []Finding
	// Quarantined says the skill must not be served.
	Quarantined bool
	// Max is the highest severity of the findings not allowed (0: none).
	Max Severity
	// Stale lists, in words, the Allow entries of this skill that were given
	// at another digest: the skill changed since it was reviewed.
	Stale []string
	// InheritedFrom, set by the caller, is the path of a quarantined skill
	// whose content this one inherits (which quarantines it too).
	InheritedFrom string
}

// Blocking returns the findings that quarantine the skill.
func (v Verdict) Blocking(p Policy) []Finding {
	var out []Finding
	for _, f := range v.Findings {
		if !f.Allowed && p.Threshold() != Off && f.Severity >= p.Threshold() {
			out = append(out, f)
		}
	}
	return out
}

// Apply applies the policy to a skill's findings.
func (p Policy) Apply(sk *Skill, findings []Finding) Verdict {
	v := Verdict{Findings: slices.Clone(findings)}
	var stale []string
	for _, a := range p.Allow {
		if a.Skill != "" && a.Digest != "" && p.skillIs(a, sk) && a.Digest != sk.Digest {
			msg := fmt.Sprintf("a reviewer accepted %s at %s (%s), but its content is now %s: its findings count again until security.allow is updated",
				what(a), a.Digest, a.Reason, orUnknown(sk.Digest))
			if !slices.Contains(stale, msg) {
				stale = append(stale, msg)
			}
		}
	}
	v.Stale = stale
	for i := range v.Findings {
		f := &v.Findings[i]
		for _, a := range p.Allow {
			if (a.Rule == "" || a.Rule == f.Rule) && (a.Skill == "" || p.skillIs(a, sk)) && (a.Digest == "" || a.Digest == sk.Digest) {
				f.Allowed, f.AllowReason = true, a.Reason
				break
			}
		}
		if !f.Allowed {
			v.Max = max(v.Max, f.Severity)
		}
	}
	t := p.Threshold()
	v.Quarantined = t != Off && v.Max >= t
	return v
}

func (p Policy) skillIs(a Allow, sk *Skill) bool {
	return strings.EqualFold(a.Skill, sk.Path) || strings.EqualFold(a.Skill, sk.Name)
}

func what(a Allow) string {
	if a.Rule == "" {
		return "skill " + a.Skill
	}
	return fmt.Sprintf("rule %s on skill %s", a.Rule, a.Skill)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

package server

import (
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
)

// ReasonSkillQuarantined is the error reason of a request for a quarantined
// skill.
const ReasonSkillQuarantined = "SKILL_QUARANTINED"

// policy is the security policy in force (the zero Policy when nothing is
// scanned).
func (s *Service) policy() scan.Policy {
	if s.opts.Scanner == nil {
		return scan.Policy{}
	}
	return s.opts.Scanner.Policy()
}

// quarantined is the error for a request naming a quarantined skill. A
// skill that waits for its first security scan is still loading, as far as
// callers can tell: UNAVAILABLE with the reason CATALOG_LOADING (and
// metadata scan "pending"), whose message says to retry in a moment.
func (s *Service) quarantined(sk *catalog.Skill) error {
	if sk.ScanPending() {
		return failure.New(failure.Unavailable, ReasonCatalogLoading, "%s", catalog.PendingReason(sk)).
			With("skill_path", sk.Path).With("scan", "pending")
	}
	var rules []string
	for _, f := range sk.Security.Blocking(s.policy()) {
		if !contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	e := failure.New(failure.PermissionDenied, ReasonSkillQuarantined, "%s", catalog.QuarantineReason(sk, s.policy())).
		With("skill_path", sk.Path)
	if len(rules) > 0 {
		e.With("rules", strings.Join(rules, ","))
	}
	if sk.Security.InheritedFrom != "" {
		e.With("inherited_from", sk.Security.InheritedFrom)
	}
	return e
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var findingSeverities = map[scan.Severity]skillsv1.FindingSeverity{
	scan.Info:     skillsv1.FindingSeverity_FINDING_SEVERITY_INFO,
	scan.Low:      skillsv1.FindingSeverity_FINDING_SEVERITY_LOW,
	scan.Medium:   skillsv1.FindingSeverity_FINDING_SEVERITY_MEDIUM,
	scan.High:     skillsv1.FindingSeverity_FINDING_SEVERITY_HIGH,
	scan.Critical: skillsv1.FindingSeverity_FINDING_SEVERITY_CRITICAL,
}

// toFindings is the wire form of a skill's findings.
func (s *Service) toFindings(sk *catalog.Skill) []*skillsv1.Finding {
	p := s.policy()
	return mapAll(sk.Security.Findings, func(f scan.Finding) *skillsv1.Finding {
		return &skillsv1.Finding{
			Source:         sk.Source.Name,
			SkillPath:      sk.Path,
			File:           f.File,
			Line:           int32(f.Line),
			Rule:           f.Rule,
			Severity:       findingSeverities[f.Severity],
			Message:        f.Message,
			Accepted:       f.Allowed,
			AcceptedReason: f.AllowReason,
			Blocking:       !f.Allowed && p.Threshold() != scan.Off && f.Severity >= p.Threshold(),
		}
	})
}

// securityStatus summarises the scan of a snapshot.
func (s *Service) securityStatus(snap *catalog.Snapshot) *skillsv1.SecurityStatus {
	st := &skillsv1.SecurityStatus{FindingCounts: map[string]int32{}}
	if s.opts.Scanner == nil {
		st.Quarantine = scan.Off.String()
		return st
	}
	st.Enabled = true
	st.Quarantine = s.policy().Threshold().String()
	st.RuleCount = int32(len(s.opts.Scanner.Rules()))
	for _, sk := range snap.Skills() {
		if !s.opts.Filter.Enabled(sk) {
			continue
		}
		switch {
		case sk.ScanPending():
			st.PendingCount++
		case sk.Quarantined():
			st.QuarantinedCount++
		}
		for _, f := range sk.Security.Findings {
			if !f.Allowed {
				st.FindingCounts[f.Severity.String()]++
			}
		}
	}
	return st
}

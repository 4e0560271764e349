package scan

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is no severity at all (as a
// quarantine threshold: the default, Critical); Off switches a threshold off.
type Severity int

// Off is the threshold nothing reaches.
const Off Severity = -1

// Severities, lowest first.
const (
	// Info is worth knowing; nothing is wrong by itself.
	Info Severity = iota + 1
	// Low is a weak signal or a bad habit.
	Low
	// Medium deserves a reviewer's look before the skill is trusted widely.
	Medium
	// High is dangerous behaviour a reviewer must accept explicitly.
	High
	// Critical is what a malicious skill does; it should never be served unseen.
	Critical
)

var severityNames = [...]string{Info: "info", Low: "low", Medium: "medium", High: "high", Critical: "critical"}

// String returns "info", "low", "medium", "high" or "critical" ("off" for
// Off, "" for the zero value).
func (s Severity) String() string {
	if s >= Info && s <= Critical {
		return severityNames[s]
	}
	switch s {
	case Off:
		return "off"
	case 0:
		return ""
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads a severity name, in any case. "off" gives Off, for
// thresholds that can be switched off.
func ParseSeverity(s string) (Severity, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "off" {
		return Off, nil
	}
	for i := Info; i <= Critical; i++ {
		if severityNames[i] == v {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, low, medium, high, critical or off)", s)
}

// Severities lists the severity names, lowest first.
func Severities() []string { return append([]string(nil), severityNames[Info:]...) }

// raise returns s raised by n levels, never above Critical.
func (s Severity) raise(n int) Severity { return min(Critical, s+Severity(n)) }

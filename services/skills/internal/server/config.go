package server

import (
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// The diagnostics of the configuration file, listed under the source
// ConfigSource while a change to the file is refused or waits for a restart.
const (
	ConfigSource = "config"
	// CodeConfigInvalid: the file on disk does not parse or validate; the
	// running configuration stays, and a restart with the file would fail.
	CodeConfigInvalid = "config-invalid"
	// CodeConfigRestartNeeded: the file changed keys that take effect at
	// the next start.
	CodeConfigRestartNeeded = "config-restart-needed"
)

// configDiagnostics are the diagnostics of the configuration file's state.
func (s *Service) configDiagnostics() []skill.Diagnostic {
	if s.opts.Config == nil {
		return nil
	}
	st := s.opts.Config()
	var out []skill.Diagnostic
	if st.Error != "" {
		out = append(out, skill.Diagnostic{Source: ConfigSource, File: st.File, Line: st.Line, Severity: skill.SeverityError,
			Code: CodeConfigInvalid, Message: "the config file changed and is not valid, so the running configuration stays and a restart with it would fail: " + st.Error})
	}
	if len(st.RestartNeeded) > 0 {
		out = append(out, skill.Diagnostic{Source: ConfigSource, File: st.File, Severity: skill.SeverityWarning,
			Code: CodeConfigRestartNeeded, Message: "the config file changed " + strings.Join(st.RestartNeeded, ", ") + ": restart the server to apply"})
	}
	return out
}

// configStatus is GetCatalogStatus.config; nil without a configuration file.
func (s *Service) configStatus() *skillsv1.ConfigStatus {
	if s.opts.Config == nil {
		return nil
	}
	st := s.opts.Config()
	out := &skillsv1.ConfigStatus{
		File:          st.File,
		Error:         st.Error,
		RestartNeeded: append([]string{}, st.RestartNeeded...),
		Applied:       append([]string{}, st.Applied...),
	}
	if !st.CheckedAt.IsZero() {
		out.CheckedAt = timestamp(st.CheckedAt)
	}
	return out
}

package skillsd

import (
	"fmt"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// newScanner makes the security scanner of cfg: the built-in rules and
// security.rules, the quarantine and allow policy, and a cache of scans in
// the state folder so that a restart does not scan unchanged skills again.
// A rule file that cannot be read or a rule that does not hold is an error
// naming the key.
func newScanner(cfg config.Config, cwd, home string, getenv func(string) string) (*scan.Scanner, error) {
	sec := cfg.Security
	policy := scan.Policy{}
	threshold, err := scan.ParseSeverity(sec.Quarantine)
	if err != nil {
		return nil, fmt.Errorf("security.quarantine: %w", err)
	}
	policy.Quarantine = threshold
	for _, a := range sec.Allow {
		policy.Allow = append(policy.Allow, scan.Allow{Rule: a.Rule, Skill: a.Skill, Digest: a.Digest, Reason: a.Reason})
	}
	var rules []string
	for _, r := range sec.Rules {
		rules = append(rules, userpath.Abs(r, cwd, home, getenv))
	}
	opts := scan.Options{RuleFiles: rules, Policy: policy}
	if state := config.StateDir(cfg, getenv, home); state != "" {
		opts.CacheFile = filepath.Join(state, scan.CacheFileName())
	}
	return scan.New(opts)
}

// flushScans keeps the scans of the last build for the next start.
func (s *Server) flushScans() {
	if s.scanner == nil {
		return
	}
	if err := s.scanner.Flush(); err != nil {
		s.log.Warn("could not keep the security scans for the next start", "error", err)
	}
}

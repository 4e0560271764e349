package skillsd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

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

// maxKeyFile bounds a trusted key file.
const maxKeyFile = 1 << 20

// trustedKeys is the armored key ring a git source verifies commits with:
// "" when it need not (neither required nor security.require_signed), else
// the source's own key files (key names them, for errors), or else
// security.trusted_keys. A key file that cannot be read stops start-up.
func trustedKeys(cfg config.Config, required bool, own []string, key, cwd, home string, getenv func(string) string) (string, error) {
	if !required && !cfg.Security.RequireSigned {
		return "", nil
	}
	files, name := own, key
	if len(files) == 0 {
		files, name = cfg.Security.TrustedKeys, "security.trusted_keys"
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: signed commits are required but no key is trusted", name)
	}
	var ring strings.Builder
	for _, f := range files {
		r, err := scan.OpenResolved(userpath.Abs(f, cwd, home, getenv))
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		data, err := io.ReadAll(io.LimitReader(r, maxKeyFile+1))
		r.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if len(data) > maxKeyFile || !strings.Contains(string(data), "BEGIN PGP PUBLIC KEY BLOCK") {
			return "", fmt.Errorf("%s: %s is not an armored OpenPGP public key (gpg --armor --export KEY)", name, f)
		}
		ring.Write(data)
		ring.WriteByte('\n')
	}
	return ring.String(), nil
}

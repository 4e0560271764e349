package config

import (
	"regexp"
	"strings"
)

// Quarantine thresholds (security.quarantine): a severity, or QuarantineOff.
const QuarantineOff = "off"

// Security configures the scan of every skill before it is served, what a
// finding means, and signed git commits (docs/security.md).
type Security struct {
	// Quarantine is the lowest finding severity that keeps a skill from being
	// served: info, low, medium, high, critical, or off.
	Quarantine string `yaml:"quarantine"`
	// Rules are rule files added to the built-in ones (a company's own
	// rules); "~" and $VAR are expanded, relative paths are from the working
	// directory.
	Rules []string `yaml:"rules"`
	// Allow lists what reviewers accepted.
	Allow []Allow `yaml:"allow"`
	// RequireSigned makes every git source (sources and content
	// repositories) serve only commits signed by a trusted key.
	RequireSigned bool `yaml:"require_signed"`
	// TrustedKeys are files of armored OpenPGP public keys whose signatures
	// git sources accept (for sources without trusted_keys of their own).
	TrustedKeys []string `yaml:"trusted_keys"`
}

// Allow is one finding, rule or skill a reviewer accepted.
type Allow struct {
	// Rule is a rule id; empty means every rule of Skill.
	Rule string `yaml:"rule"`
	// Skill is a skill path or name; empty means every skill (for Rule).
	Skill string `yaml:"skill"`
	// Digest is the skill's content digest when it was reviewed
	// ("sha256:…"); when the skill changes the acceptance lapses. Empty:
	// any content.
	Digest string `yaml:"digest"`
	// Reason says who accepted it and why; required.
	Reason string `yaml:"reason"`
}

var quarantineLevels = []string{"info", "low", "medium", "high", "critical", QuarantineOff}

var allowDigest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func (s Security) validate() *Error {
	if err := oneOf("security.quarantine", s.Quarantine, quarantineLevels...); err != nil {
		return err
	}
	if err := items("security.rules", s.Rules); err != nil {
		return err
	}
	if err := items("security.trusted_keys", s.TrustedKeys); err != nil {
		return err
	}
	for i, a := range s.Allow {
		key := itemKey("security.allow", i)
		switch {
		case strings.TrimSpace(a.Reason) == "":
			return errorf(key+".reason", "required: who reviewed it and why it is acceptable")
		case a.Rule == "" && a.Skill == "":
			return errorf(key, "give a rule, a skill, or both")
		case a.Digest != "" && !allowDigest.MatchString(a.Digest):
			return errorf(key+".digest", "%s is not a content digest (sha256: and 64 lower-case hex digits, as skills scan and GetSkill show it)", quote(a.Digest))
		case a.Digest != "" && a.Skill == "":
			return errorf(key+".digest", "a digest pins one skill's content: give the skill too")
		}
	}
	return nil
}

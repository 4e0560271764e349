package mcpgw

import "github.com/skillsd/skillsd/gateways/mcp/mcpgw/profiles"

// Profiles: the tool sets the server can serve (Options.Profile). Package
// profiles holds the compatibility profiles, one file per seed system.
const (
	// ProfileNative is the tool set of MCP_TOOLS.md, the default.
	ProfileNative = profiles.Native
	// ProfileSkillsMCP is seed 000's skills-mcp (§8).
	ProfileSkillsMCP = profiles.SkillsMCP
	// ProfileUniversalSkills is seed 001's universal-skills: one skill tool.
	ProfileUniversalSkills = profiles.UniversalSkills
	// ProfileSk is seed 002's sk mcp-server.
	ProfileSk = profiles.Sk
	// ProfileSkillHub is seed 004's SkillHub (§3).
	ProfileSkillHub = profiles.SkillHub
	// ProfileGitHubWorker is seed 003's GitHub-backed skills, agents and docs server.
	ProfileGitHubWorker = profiles.GitHubWorker
)

// Profiles returns the profile names, ProfileNative first.
func Profiles() []string { return profiles.Names() }

// ParseProfile returns the canonical profile named s (case-insensitive,
// trimmed; empty is ProfileNative), or an error listing the profiles.
func ParseProfile(s string) (string, error) { return profiles.Parse(s) }

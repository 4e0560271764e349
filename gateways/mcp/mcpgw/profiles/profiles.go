// Package profiles holds the compatibility profiles of the MCP gateway: tool
// sets that reproduce the MCP tools of one seed system each, so that a host
// configured for that system keeps working (docs/migrate/<system>.md). A
// profile changes only the tools (names, schemas, answer shapes, error
// style) and the server instructions; everything else of the server
// (resources, prompts, the skills extension, the catalog watch) stays.
//
// This file names the profiles and registers their tools; each system has
// one file: skillsmcp.go (seed 000), universal.go (seed 001), sk.go (seed
// 002), github.go (seed 003) and skillhub.go (seed 004). A profile calls the
// service through core.Gateway, serves the native tools it shares with the
// native set from package core, and reports errors through core's one
// mapping (a profile with its own error vocabulary maps core.Classify's
// kind to it). Package mcpgw chooses the profile (Options.Profile).
package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
)

// The profile names (mcpgw.Options.Profile).
const (
	// Native is the tool set of MCP_TOOLS.md, the default: package mcpgw's
	// own.
	Native = "native"
	// SkillsMCP is seed 000's skills-mcp (§8).
	SkillsMCP = "skills-mcp"
	// UniversalSkills is seed 001's universal-skills: one skill tool.
	UniversalSkills = "universal-skills"
	// Sk is seed 002's sk mcp-server.
	Sk = "sk"
	// SkillHub is seed 004's SkillHub (§3).
	SkillHub = "skillhub"
	// GitHubWorker is seed 003's GitHub-backed skills, agents and docs server.
	GitHubWorker = "github-worker"
)

// Names returns the profile names, Native first.
func Names() []string {
	return []string{Native, SkillsMCP, UniversalSkills, Sk, SkillHub, GitHubWorker}
}

// Parse returns the canonical profile named s (case-insensitive, trimmed;
// empty is Native), or an error listing the profiles.
func Parse(s string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	if p == "" {
		return Native, nil
	}
	if slices.Contains(Names(), p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want one of %s)", s, strings.Join(Names(), ", "))
}

// ToolNames are the tools a compatibility profile serves; runCommand is
// whether the skillhub profile serves run_skill_command.
func ToolNames(profile string, runCommand bool) []string {
	switch profile {
	case SkillsMCP:
		return []string{core.ToolGetSkill, core.ToolListSkills, core.ToolGetAsset, core.ToolRunScript, core.ToolReportUsage, core.ToolRefreshSkills}
	case UniversalSkills:
		return []string{universalToolName}
	case Sk:
		return []string{"skills.list", "skills.search", "skills_list", "skills_search", "skills_show"}
	case SkillHub:
		names := []string{core.ToolSearchSkills, core.ToolLoadSkill, core.ToolReadSkillFile}
		if runCommand {
			names = append(names, "run_skill_command")
		}
		return names
	case GitHubWorker:
		return []string{core.ToolListSkills, core.ToolGetSkill, "get_skill_file", "list_agents", "get_agent", "list_docs", "get_doc"}
	}
	return nil
}

// Instructions are the server instructions of a compatibility profile.
func Instructions(profile string) string {
	switch profile {
	case SkillsMCP:
		return "This server provides skills: expert instructions for specific tasks. Before a task, call get_skill with the task described in a few words: " +
			"follow the content it answers; on ambiguous, call get_skill again with a more precise context or one candidate's skill_path; on no_match, go on without a skill. " +
			"list_skills browses the tree; get_asset reads a skill's assets and scripts; run_script runs its server scripts; report_usage says whether a skill helped."
	case UniversalSkills:
		return "This server provides skills. When a task matches a skill listed in the skill tool's description, call skill with its name and follow what it loads."
	case Sk:
		// Seed 002: prefer skills.list for exhaustive metadata and skills.search for targeted lookups.
		return "Skills MCP server: use skills.list for exhaustive skill metadata (add includeBody for the SKILL.md bodies) and skills.search for targeted keyword lookups (all words must match)."
	case SkillHub:
		return "SkillHub: find a skill with search_skills (the task in natural language), then load_skill to get its instructions and folder path, " +
			"and read_skill_file for the files the instructions mention. Run a skill's commands yourself from its path."
	case GitHubWorker:
		return "Skills, agent profiles and documentation: list_skills, list_agents and list_docs give the indexes; get_skill, get_skill_file, get_agent and get_doc fetch one item (skipCache: true bypasses the 10-minute cache)."
	}
	return ""
}

// ToolsFollowCatalog reports whether the profile's tool list changes with
// the catalog: only universal-skills', whose one tool lists the skills in
// its description.
func ToolsFollowCatalog(profile string) bool { return profile == UniversalSkills }

// Add registers the tools of a compatibility profile on server, over g
// (whose Tools are the profile's ToolNames); runCommand is as for
// ToolNames.
func Add(server *mcp.Server, g *core.Gateway, profile string, runCommand bool) error {
	switch profile {
	case SkillsMCP:
		return addSkillsMCPTools(server, g)
	case UniversalSkills:
		return addUniversalTools(server, g)
	case Sk:
		return addSkTools(server, g)
	case SkillHub:
		return addSkillHubTools(server, g, runCommand)
	case GitHubWorker:
		return addGitHubWorkerTools(server, g)
	}
	return fmt.Errorf("profile %q has no tools", profile)
}

// shortDescription is s on one line, cut to at most n characters at a word
// boundary (core.CutWords).
func shortDescription(s string, n int) string {
	return core.CutWords(strings.Join(strings.Fields(s), " "), n)
}

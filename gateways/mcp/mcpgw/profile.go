package mcpgw

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Profiles: the tool sets the server can serve (Options.Profile). A profile
// changes only the tools (names, schemas, answer shapes, error style) and the
// server instructions; everything else of the server stays. Each compatibility
// profile reproduces the tools of one seed system, so that a host configured
// for that system keeps working (docs/migrate/<system>.md).
const (
	// ProfileNative is the tool set of MCP_TOOLS.md, the default.
	ProfileNative = "native"
	// ProfileSkillsMCP is seed 000's skills-mcp (§8).
	ProfileSkillsMCP = "skills-mcp"
	// ProfileUniversalSkills is seed 001's universal-skills: one skill tool.
	ProfileUniversalSkills = "universal-skills"
	// ProfileSk is seed 002's sk mcp-server.
	ProfileSk = "sk"
	// ProfileSkillHub is seed 004's SkillHub (§3).
	ProfileSkillHub = "skillhub"
	// ProfileGitHubWorker is seed 003's GitHub-backed skills, agents and docs server.
	ProfileGitHubWorker = "github-worker"
)

// Profiles returns the profile names, ProfileNative first.
func Profiles() []string {
	return []string{ProfileNative, ProfileSkillsMCP, ProfileUniversalSkills, ProfileSk, ProfileSkillHub, ProfileGitHubWorker}
}

// ParseProfile returns the canonical profile named s (case-insensitive,
// trimmed; empty is ProfileNative), or an error listing the profiles.
func ParseProfile(s string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	if p == "" {
		return ProfileNative, nil
	}
	if slices.Contains(Profiles(), p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want one of %s)", s, strings.Join(Profiles(), ", "))
}

// profileToolNames are the tools a compatibility profile serves.
func profileToolNames(profile string, opts Options) []string {
	switch profile {
	case ProfileSkillsMCP:
		return []string{toolGetSkill, toolListSkills, toolGetAsset, toolRunScript, toolReportUsage, toolRefreshSkills}
	case ProfileUniversalSkills:
		return []string{"skill"}
	case ProfileSk:
		return []string{"skills.list", "skills.search", "skills_list", "skills_search", "skills_show"}
	case ProfileSkillHub:
		names := []string{toolSearchSkills, toolLoadSkill, toolReadSkillFile}
		if opts.RunSkillCommand {
			names = append(names, "run_skill_command")
		}
		return names
	case ProfileGitHubWorker:
		return []string{toolListSkills, toolGetSkill, "get_skill_file", "list_agents", "get_agent", "list_docs", "get_doc"}
	}
	return nil
}

// profileInstructions are the server instructions of a compatibility profile.
func profileInstructions(profile string) string {
	switch profile {
	case ProfileSkillsMCP:
		return "This server provides skills: expert instructions for specific tasks. Before a task, call get_skill with the task described in a few words: " +
			"follow the content it answers; on ambiguous, call get_skill again with a more precise context or one candidate's skill_path; on no_match, go on without a skill. " +
			"list_skills browses the tree; get_asset reads a skill's assets and scripts; run_script runs its server scripts; report_usage says whether a skill helped."
	case ProfileUniversalSkills:
		return "This server provides skills. When a task matches a skill listed in the skill tool's description, call skill with its name and follow what it loads."
	case ProfileSk:
		// Seed 002: prefer skills.list for exhaustive metadata and skills.search for targeted lookups.
		return "Skills MCP server: use skills.list for exhaustive skill metadata (add includeBody for the SKILL.md bodies) and skills.search for targeted keyword lookups (all words must match)."
	case ProfileSkillHub:
		return "SkillHub: find a skill with search_skills (the task in natural language), then load_skill to get its instructions and folder path, " +
			"and read_skill_file for the files the instructions mention. Run a skill's commands yourself from its path."
	case ProfileGitHubWorker:
		return "Skills, agent profiles and documentation: list_skills, list_agents and list_docs give the indexes; get_skill, get_skill_file, get_agent and get_doc fetch one item (skipCache: true bypasses the 10-minute cache)."
	}
	return ""
}

// addProfileTools registers the tools of a compatibility profile on server.
func (g *gateway) addProfileTools(server *mcp.Server, conn grpc.ClientConnInterface, profile string, opts Options) error {
	switch profile {
	case ProfileSkillsMCP:
		return g.addSkillsMCPTools(server, conn)
	case ProfileUniversalSkills:
		return g.addUniversalTools(server, skillsv1.NewUsageServiceClient(conn))
	case ProfileSk:
		return g.addSkTools(server)
	case ProfileSkillHub:
		return g.addSkillHubTools(server, opts.RunSkillCommand)
	case ProfileGitHubWorker:
		return g.addGitHubWorkerTools(server, conn)
	}
	return fmt.Errorf("profile %q has no tools", profile)
}

// listAllSkills lists every skill of the catalog, all pages, in catalog order.
func (g *gateway) listAllSkills(ctx context.Context, req *skillsv1.ListSkillsRequest) ([]*skillsv1.Skill, error) {
	var out []*skillsv1.Skill
	token := ""
	for range 10000 {
		page := &skillsv1.ListSkillsRequest{
			PageSize: 1000, PageToken: token, Query: req.GetQuery(), IncludeBody: req.GetIncludeBody(),
			Category: req.GetCategory(), Tags: req.GetTags(), RoutableOnly: req.GetRoutableOnly(),
		}
		resp, err := g.catalog.ListSkills(ctx, page)
		if err != nil {
			return nil, err
		}
		out = append(out, resp.GetSkills()...)
		if token = resp.GetNextPageToken(); token == "" {
			return out, nil
		}
	}
	return out, nil
}

// readWhole reads a whole file of a skill, page after page, up to limit bytes.
// It returns the first page's answer (for its metadata), the bytes, and
// whether they stop before the end of the file.
func (g *gateway) readWhole(ctx context.Context, skill, file string, limit int64, skipCache bool) (*skillsv1.ReadSkillFileResponse, []byte, bool, error) {
	var (
		first *skillsv1.ReadSkillFileResponse
		data  []byte
	)
	offset := int64(0)
	for {
		resp, err := g.files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
			SkillPath: skill, File: file, Offset: offset, MaxBytes: min(limit-int64(len(data)), 1<<20), SkipCache: skipCache && first == nil,
		})
		if err != nil {
			return nil, nil, false, err
		}
		if first == nil {
			first = resp
		}
		if resp.GetBinary() {
			data = append(data, resp.GetData()...)
		} else {
			data = append(data, resp.GetText()...)
		}
		if !resp.GetTruncated() {
			return first, data, false, nil
		}
		if int64(len(data)) >= limit || resp.GetNextOffset() <= offset {
			return first, data, true, nil
		}
		offset = resp.GetNextOffset()
	}
}

// textResult is a tool result holding text only.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// emptyInput is the input schema of a tool that takes no arguments.
type emptyInput struct{}

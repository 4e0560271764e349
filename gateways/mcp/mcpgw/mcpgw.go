// Package mcpgw is the MCP face of skillsd: it builds an MCP server whose tools
// translate calls into requests to the skillsd gRPC services, through the
// generated skillsv1 clients only, and their answers into the tool results of
// the public contract (design/MCP_TOOLS.md).
//
// With its packages core and profiles, it owns the tool input and output
// types, their JSON schemas, the server instructions and the mapping of gRPC
// errors to tool errors. It does not own the connection to the service or
// the service itself: the caller brings a grpc.ClientConnInterface (a
// network connection to a shared skillsd, or an in-process one to an
// embedded service) and runs the returned server on the transport of its
// choice (StdioTransport, or the HTTP handlers of http.go).
//
// The server is in parts, which its folders and file names show:
//
//   - package core is what every part shares, each thing written once: the
//     service as the tools reach it (core.Gateway), the one reading of
//     service errors (core.Classify) and the one mapping to what a model
//     reads (core.ErrorMessage), the helpers of tool descriptions and
//     answers, and the tools the native set shares with a profile
//     (get_skill, list_skills, run_script).
//   - mcpgw.go assembles the server (New, Options); recover.go keeps panics
//     and bad error data off the wire; http.go serves Streamable HTTP and SSE.
//   - wire_result.go is how tools' answers leave: outputs encoded once
//     (encodedOnceTool) and handed to the go-sdk as plain values
//     (plainToolResults); stdio.go is the stdio transport that writes them
//     without encoding them again (StdioTransport), and lines.go how it
//     reads one-line messages without the SDK's decoding of them.
//   - tool_*.go are the other native tools of the contract, one file each,
//     with the tools/list plumbing they share (tool_budget.go,
//     tool_vocabulary.go).
//   - package profiles is the compatibility profiles, one file per system;
//     profile.go names them for Options.Profile.
//   - ext_*.go are the skills extension, resources, prompts and completion,
//     served from the gateway's copy of the catalog (ext_catalog.go).
//   - watch_*.go follow the catalog (watch_catalog.go) and send the
//     list-changed notifications (watch_notify.go); package roots follows
//     the client's roots, which New hands to Options.OnClientRoots.
package mcpgw

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/profiles"
	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/roots"
)

// serverName is the name the server gives in its serverInfo.
const serverName = "skillsd"

// defaultCallTimeout bounds each call to the service when Options.CallTimeout is zero.
const defaultCallTimeout = 30 * time.Second

// Options configures the MCP server. The zero value is usable.
type Options struct {
	// Logger receives the server's logs. Nil discards them.
	Logger *slog.Logger
	// Version is the version reported in serverInfo. Empty means "devel".
	Version string
	// CallTimeout bounds each call to the service. Zero means 30 seconds.
	CallTimeout time.Duration
	// OnClientRoots, when set, receives the roots of each client that declares
	// the roots capability, as absolute local paths (file URIs converted, other
	// URIs left out), in the client's order: once its session is initialized,
	// then after each notifications/roots/list_changed. It runs on a goroutine
	// of its own, never concurrently for one session; ctx ends with the
	// session. Nothing is asked before the initialize handshake completes, nor
	// in sessions without it (protocol 2026-07-28 and later); a client that
	// does not answer roots/list within 5 seconds is skipped (logged at debug
	// level). Nil means the server never asks for roots.
	OnClientRoots func(ctx context.Context, roots []string)
	// Profile is the tool set to serve: ProfileNative (the default, for
	// empty) or a compatibility profile of Profiles (package profiles). A
	// profile changes only the tools and the instructions.
	Profile string
	// RunSkillCommand serves run_skill_command in the skillhub profile (off by
	// default, as in seed 004). The service must enable commands too.
	RunSkillCommand bool
	// CatalogWatch, when set, is bound to the server New returns: Run it for
	// as long as the server serves, and catalog changes reach the sessions as
	// MCP notifications (watch_catalog.go). Nil means no change notifications.
	CatalogWatch *CatalogWatch
}

// nativeTools are the tools of the native tool set, ProfileNative.
var nativeTools = []string{core.ToolSearchSkills, core.ToolGetSkill, core.ToolLoadSkill, core.ToolListSkills,
	core.ToolReadSkillFile, core.ToolRunScript, core.ToolRefreshSkills, core.ToolReportUsage}

// gateway is the server's core.Gateway, with the catalog watch the
// resources, prompts and change notifications use.
type gateway struct {
	*core.Gateway
	// watch follows catalog changes (nil: none are followed).
	watch *CatalogWatch
}

// newGateway returns the gateway of c, following watch's changes (watch
// may be nil).
func newGateway(c *core.Gateway, watch *CatalogWatch) *gateway {
	if watch != nil {
		c.Changes = watch
	}
	return &gateway{Gateway: c, watch: watch}
}

// New returns an MCP server whose tools call the skillsd services over conn.
// The server does not own conn: closing it is the caller's job, after the
// server has stopped.
func New(conn grpc.ClientConnInterface, opts Options) (*mcp.Server, error) {
	if conn == nil {
		return nil, fmt.Errorf("mcpgw: nil gRPC connection")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := newGateway(core.New(conn, logger, cmp.Or(opts.CallTimeout, defaultCallTimeout)), opts.CatalogWatch)
	profile, err := ParseProfile(opts.Profile)
	if err != nil {
		return nil, fmt.Errorf("mcpgw: %w", err)
	}
	served := nativeTools
	if profile != ProfileNative {
		served = profiles.ToolNames(profile, opts.RunSkillCommand)
	}
	g.Tools = map[string]bool{}
	for _, name := range served {
		g.Tools[name] = true
	}
	described, err := describeTools(searchSkillsTool, core.GetSkillTool, loadSkillTool, core.ListSkillsTool, readSkillFileTool, core.RunScriptTool)
	if err != nil {
		return nil, fmt.Errorf("mcpgw: %w", err)
	}
	searchTool, getTool, loadTool, listTool, readTool, runTool := described[0], described[1], described[2], described[3], described[4], described[5]
	serverOpts := &mcp.ServerOptions{
		Instructions: cmp.Or(profiles.Instructions(profile), instructions(g.Has)),
		Logger:       logger,
		// surfaces.configure adds prompts, resources, completions, logging
		// (setLevel is accepted; logs go to stderr) and the skills extension.
		// The tool list changes only in the universal-skills profile (its
		// description lists the skills), and only a watch can tell.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{
			ListChanged: profiles.ToolsFollowCatalog(profile) && g.watch != nil,
		}},
	}
	if opts.OnClientRoots != nil {
		roots.New(opts.OnClientRoots, logger, runtime.GOOS == "windows").Install(serverOpts)
	}
	// Resources, prompts, completion and the skills extension (ext_catalog.go).
	surf := &surfaces{g: g}
	surf.configure(serverOpts)
	if g.watch != nil {
		g.watch.configure(serverOpts)
	}
	server := mcp.NewServer(&mcp.Implementation{
		Name:    serverName,
		Version: cmp.Or(opts.Version, "devel"),
	}, serverOpts)
	if profile == ProfileNative {
		// All eight native tools, trimmed to fit tools/list in its budget
		// (tool_budget.go). With analytics off, report_usage answers
		// recorded: false and why.
		encodedOnceTool(server, trimForBudget(searchTool), g.searchSkills)
		encodedOnceTool(server, trimForBudget(getTool), g.GetSkill)
		encodedOnceTool(server, trimForBudget(loadTool), g.loadSkill)
		encodedOnceTool(server, trimForBudget(listTool), g.ListSkills)
		encodedOnceTool(server, trimForBudget(readTool), g.readSkillFile)
		encodedOnceTool(server, trimForBudget(runTool), g.RunScript)
		mcp.AddTool(server, trimForBudget(refreshSkillsTool()), g.refreshSkills)
		if err := g.addReportUsage(server); err != nil {
			return nil, fmt.Errorf("mcpgw: %w", err)
		}
	} else if err := profiles.Add(server, g.Gateway, profile, opts.RunSkillCommand); err != nil {
		return nil, fmt.Errorf("mcpgw: %w", err)
	}
	if err := surf.install(server); err != nil {
		return nil, fmt.Errorf("mcpgw: %w", err)
	}
	// Resources and prompts follow the catalog's changes: surf.install
	// registered their listener (ext_catalog.go); the watch tells the
	// sessions (watch_catalog.go, watch_notify.go).
	if g.watch != nil {
		if err := g.watch.bind(g, server, surf.locateURI); err != nil {
			return nil, fmt.Errorf("mcpgw: %w", err)
		}
	}
	if profile == ProfileNative {
		// Aliases and unknown arguments, before the SDK validates them.
		server.AddReceivingMiddleware(vocabularyMiddleware(nativeVocabulary()))
	}
	// Text answers of tools/call go to the SDK as plain values
	// (wire_result.go), which it encodes without re-scanning them.
	server.AddReceivingMiddleware(plainToolResults)
	// Added last, so outermost: a panic in a handler or an answer the SDK
	// cannot send is turned into an error instead of ending the connection
	// (recover.go).
	server.AddReceivingMiddleware(guardHandlers(logger))
	return server, nil
}

// describeTools makes the descriptions of tools whose schemas are built, in
// order; it stops at the first that fails.
func describeTools(makers ...func() (*mcp.Tool, error)) ([]*mcp.Tool, error) {
	out := make([]*mcp.Tool, len(makers))
	for i, m := range makers {
		t, err := m()
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// instructions returns the server instructions for a server serving the tools
// for which has answers true: how to find, load and read skills, naming only
// tools that exist.
func instructions(has func(string) bool) string {
	var b strings.Builder
	b.WriteString("This server provides skills: expert instructions, with scripts and reference files, for specific tasks. Before a task that a skill may cover:\n")
	switch {
	case has(core.ToolSearchSkills) && has(core.ToolListSkills):
		b.WriteString("1. Find: call search_skills with the task in a few words (list_skills browses the whole catalog).\n")
		b.WriteString(restatedHint(has))
	case has(core.ToolSearchSkills):
		b.WriteString("1. Find: call search_skills with the task in a few words.\n")
		b.WriteString(restatedHint(has))
	case has(core.ToolListSkills):
		b.WriteString("1. Find: call list_skills to see the catalog (pass path to see one branch) and pick the skill whose description fits the task.\n")
	}
	b.WriteString("2. Load: call load_skill with the skill's name or path, then follow its content.\n")
	if has(core.ToolReadSkillFile) {
		b.WriteString("3. Read a file of the skill with read_skill_file only when the skill's content points to it or the task needs it.\n")
	} else {
		b.WriteString("3. Read the skill's other files only when its content points to them or the task needs them.\n")
	}
	b.WriteString("If no skill fits the task, go on without one.")
	return b.String()
}

// restatedHint teaches a model to pass the restated argument of search_skills
// (and of get_skill, when it is served): one restatement in plain technical
// terms, which the server fuses with the query (docs/routing.md measures what
// it adds); a generic category phrase matches many skills and makes the
// answer worse.
func restatedHint(has func(string) bool) string {
	takers := "search_skills takes it"
	if has(core.ToolGetSkill) {
		takers = "search_skills and get_skill take it"
	}
	return "   Also pass restated (" + takers + "): the same need in plain technical English, naming the technologies and concepts it implies " +
		"(\"speed up page loads on phones\" -> \"web performance: bundle size, lazy loading, Core Web Vitals on mobile\"), " +
		"not a category (\"a performance tool\").\n"
}

// Package core is what every part of the MCP gateway shares, and the one
// place each of those things is written:
//
//   - the service as the tools reach it (Gateway: the generated skills.v1
//     clients, the call timeout, the tools the server serves, the catalog's
//     changes) and the reads that page through it (ListAllSkills, ReadWhole);
//   - the one reading of service errors (Classify) and the one mapping of
//     them to what a model reads (ErrorMessage, Gateway.ToolError), in
//     errors.go;
//   - the helpers of tool descriptions and answers (schema.go, text.go);
//   - the tools that the native tool set and a compatibility profile both
//     serve: get_skill, list_skills and run_script, whose answers are seed
//     000's (tool_*.go).
//
// Package mcpgw assembles the server on it (the native tools, the skills
// extension, resources and prompts, the catalog watch); package profiles
// builds the compatibility profiles on it. It imports neither.
package core

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Names of the tools that texts for models (instructions, error hints,
// notes) may mention: the native tools of the contract (MCP_TOOLS.md), and
// the skills-mcp profile's get_asset, which reads a skill's file there.
const (
	ToolSearchSkills  = "search_skills"
	ToolGetSkill      = "get_skill" // seed 000's context match (§8.1)
	ToolLoadSkill     = "load_skill"
	ToolListSkills    = "list_skills"
	ToolReadSkillFile = "read_skill_file"
	ToolRunScript     = "run_script"
	ToolRefreshSkills = "refresh_skills"
	ToolReportUsage   = "report_usage" // MCP_TOOLS.md, seed 000 §8.5
	ToolGetAsset      = "get_asset"    // seed 000 §8.3, in the skills-mcp profile
)

// Gateway is the service as the tools of one server reach it. New makes
// one; the server sets Tools, and Changes when it follows the catalog,
// before it serves.
type Gateway struct {
	Catalog skillsv1.CatalogServiceClient
	Routing skillsv1.RoutingServiceClient
	Files   skillsv1.FileServiceClient
	Scripts skillsv1.ScriptServiceClient
	Usage   skillsv1.UsageServiceClient
	Content skillsv1.ContentServiceClient
	Log     *slog.Logger
	// Timeout bounds each call to the service; the tools that run or
	// refresh something set their own bound.
	Timeout time.Duration
	// Tools is the set of tools the server serves, so that texts meant for
	// models (instructions, error hints) only name tools that exist.
	Tools map[string]bool
	// Changes tells of the catalog's changes; nil when nothing follows them.
	Changes ChangeSource
}

// New returns the gateway over conn, which it does not own.
func New(conn grpc.ClientConnInterface, log *slog.Logger, timeout time.Duration) *Gateway {
	return &Gateway{
		Catalog: skillsv1.NewCatalogServiceClient(conn),
		Routing: skillsv1.NewRoutingServiceClient(conn),
		Files:   skillsv1.NewFileServiceClient(conn),
		Scripts: skillsv1.NewScriptServiceClient(conn),
		Usage:   skillsv1.NewUsageServiceClient(conn),
		Content: skillsv1.NewContentServiceClient(conn),
		Log:     log,
		Timeout: timeout,
	}
}

// Has reports whether the server serves the named tool.
func (g *Gateway) Has(tool string) bool { return g.Tools[tool] }

// CatalogChange is one change of the service's catalog, as the gateway
// hears of it on the WatchCatalog stream.
type CatalogChange struct {
	// Generation is the catalog's generation after the change.
	Generation int64
	// Added, Changed and Removed are skill paths (sorted).
	Added, Changed, Removed []string
	// Resync says the stream was opened again after a break: the catalog
	// may have changed in any way since the last change heard (the paths are
	// empty); re-read whatever is cached.
	Resync bool
}

// Empty reports whether the change names no skill (and is no resync).
func (c CatalogChange) Empty() bool {
	return !c.Resync && len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// CatalogListener is told of each catalog change, in order, on one goroutine:
// it should return quickly (do slow work elsewhere). ctx ends when the watch
// stops.
type CatalogListener func(ctx context.Context, c CatalogChange)

// ChangeSource tells listeners of the catalog's changes (mcpgw.CatalogWatch).
type ChangeSource interface {
	OnChange(l CatalogListener)
}

// OnCatalogChange registers a listener of the catalog's changes; it does
// nothing when the gateway follows none (nothing will change while it
// serves, as far as it knows).
func (g *Gateway) OnCatalogChange(l CatalogListener) {
	if g.Changes != nil {
		g.Changes.OnChange(l)
	}
}

// ListAllSkills lists every skill of the catalog, all pages, in catalog order.
func (g *Gateway) ListAllSkills(ctx context.Context, req *skillsv1.ListSkillsRequest) ([]*skillsv1.Skill, error) {
	var out []*skillsv1.Skill
	token := ""
	for range 10000 {
		page := &skillsv1.ListSkillsRequest{
			PageSize: 1000, PageToken: token, Query: req.GetQuery(), IncludeBody: req.GetIncludeBody(),
			Category: req.GetCategory(), Tags: req.GetTags(), RoutableOnly: req.GetRoutableOnly(),
		}
		resp, err := g.Catalog.ListSkills(ctx, page)
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

// ReadWhole reads a whole file of a skill, page after page, up to limit bytes.
// It returns the first page's answer (for its metadata), the bytes, and
// whether they stop before the end of the file.
func (g *Gateway) ReadWhole(ctx context.Context, skill, file string, limit int64, skipCache bool) (*skillsv1.ReadSkillFileResponse, []byte, bool, error) {
	var (
		first *skillsv1.ReadSkillFileResponse
		data  []byte
	)
	offset := int64(0)
	for {
		resp, err := g.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
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

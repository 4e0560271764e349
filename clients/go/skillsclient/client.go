// Package skillsclient is the typed Go client of skillsd: one [Client] over a
// gRPC connection, with a method per operation of the skills.v1 contract, ctx
// first. Paged listings are iterators ([Client.Skills]) and streams are
// iterators too ([Client.Watch]); failures are [*Error] values built from the
// gRPC status and its google.rpc.ErrorInfo, comparable with [errors.Is] against
// sentinels such as [ErrSkillNotFound].
//
// The package owns no server, and no connection: the caller dials ([Dial], with
// TLS, a CA file, a client certificate and a token; grpc.NewClient; or an
// in-process connection) and closes. It depends only on the generated
// stubs of the contract, never on the service's code. Messages are the
// generated skills.v1 types; the client adds no model of its own.
package skillsclient

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Client calls a skillsd server. It is safe for concurrent use; its zero value
// is not usable, make one with [New].
type Client struct {
	catalog skillsv1.CatalogServiceClient
	routing skillsv1.RoutingServiceClient
	files   skillsv1.FileServiceClient
	scripts skillsv1.ScriptServiceClient
	usage   skillsv1.UsageServiceClient
	content skillsv1.ContentServiceClient
}

// New returns a client that calls the server at the other end of conn. The
// caller keeps ownership of conn and closes it when done.
func New(conn grpc.ClientConnInterface) *Client {
	return &Client{
		catalog: skillsv1.NewCatalogServiceClient(conn),
		routing: skillsv1.NewRoutingServiceClient(conn),
		files:   skillsv1.NewFileServiceClient(conn),
		scripts: skillsv1.NewScriptServiceClient(conn),
		usage:   skillsv1.NewUsageServiceClient(conn),
		content: skillsv1.NewContentServiceClient(conn),
	}
}

// ListOptions selects the skills [Client.Skills] lists. The zero value lists
// every skill, without bodies.
type ListOptions struct {
	// Query keeps the skills whose path, name or description contains it
	// (case-insensitive); empty keeps all.
	Query string
	// Category keeps the skills of this category (case-insensitive); empty keeps all.
	Category string
	// Tags keeps the skills carrying every one of these tags; empty keeps all.
	Tags []string
	// IncludeBody asks for each skill's markdown body.
	IncludeBody bool
	// RoutableOnly keeps only the skills search and match may return.
	RoutableOnly bool
	// PageSize is the number of skills fetched per call; 0 lets the server
	// choose (100). It changes the number of round trips, not the result.
	PageSize int
}

func (o ListOptions) request(token string) *skillsv1.ListSkillsRequest {
	return &skillsv1.ListSkillsRequest{
		PageSize:     int32(min(max(o.PageSize, 0), 1<<30)),
		PageToken:    token,
		Query:        o.Query,
		IncludeBody:  o.IncludeBody,
		Category:     o.Category,
		Tags:         o.Tags,
		RoutableOnly: o.RoutableOnly,
	}
}

// Skills lists the skills of the catalog, sorted by path, fetching pages as
// the loop advances. A failed call ends the sequence with one (nil, err) pair.
//
//	for s, err := range c.Skills(ctx, skillsclient.ListOptions{}) {
//		if err != nil { return err }
//		fmt.Println(s.GetSkillPath())
//	}
func (c *Client) Skills(ctx context.Context, opts ListOptions) iter.Seq2[*skillsv1.Skill, error] {
	return func(yield func(*skillsv1.Skill, error) bool) {
		token := ""
		for {
			page, err := c.SkillsPage(ctx, opts, token)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, s := range page.GetSkills() {
				if !yield(s, nil) {
					return
				}
			}
			next := page.GetNextPageToken()
			if next == "" {
				return
			}
			if next == token {
				yield(nil, errors.New("skillsclient: server repeated page token "+next))
				return
			}
			token = next
		}
	}
}

// SkillsPage returns one page of the listing: the page that token (a
// next_page_token, or empty for the first page) designates. Most callers want
// [Client.Skills]; this is for callers that page themselves or want the total
// size.
func (c *Client) SkillsPage(ctx context.Context, opts ListOptions, token string) (*skillsv1.ListSkillsResponse, error) {
	resp, err := c.catalog.ListSkills(ctx, opts.request(token))
	return resp, convert(err)
}

// SkillOption changes how [Client.Skill] loads a skill.
type SkillOption func(*skillsv1.GetSkillRequest)

// SkipCache makes the server reload the skill's source before answering.
func SkipCache() SkillOption {
	return func(r *skillsv1.GetSkillRequest) { r.SkipCache = true }
}

// Skill loads one skill by catalog path or by name (case-insensitive): its
// frontmatter, instructions, resolved content, files, assets and scripts. An
// unknown skill fails with an *Error matching [ErrSkillNotFound] whose
// [Error.Suggestions] lists close names.
func (c *Client) Skill(ctx context.Context, ref string, opts ...SkillOption) (*skillsv1.GetSkillResponse, error) {
	req := &skillsv1.GetSkillRequest{SkillPath: ref}
	for _, o := range opts {
		o(req)
	}
	resp, err := c.catalog.GetSkill(ctx, req)
	return resp, convert(err)
}

// Tree returns the catalog as a tree of skills under their inheritance
// parents: the whole catalog when path is empty, else the sub-tree of a skill
// path ("ui/_index") or folder prefix ("ui").
func (c *Client) Tree(ctx context.Context, path string) ([]*skillsv1.SkillNode, error) {
	resp, err := c.catalog.GetSkillTree(ctx, &skillsv1.GetSkillTreeRequest{Path: path})
	if err != nil {
		return nil, convert(err)
	}
	return resp.GetSkills(), nil
}

// DiagnosticsOptions filters [Client.Diagnostics]. The zero value lists every
// diagnostic.
type DiagnosticsOptions struct {
	// MinSeverity is the lowest severity to include; unspecified includes all.
	MinSeverity skillsv1.Severity
	// Source keeps the diagnostics of one source (by name); empty keeps all.
	Source string
	// FilePrefix keeps the diagnostics of files under this path; empty keeps all.
	FilePrefix string
}

// Diagnostics lists the problems found while loading the catalog, sorted by
// source, file and line, with the catalog's error and warning counts.
func (c *Client) Diagnostics(ctx context.Context, opts DiagnosticsOptions) (*skillsv1.ListDiagnosticsResponse, error) {
	resp, err := c.catalog.ListDiagnostics(ctx, &skillsv1.ListDiagnosticsRequest{
		MinSeverity: opts.MinSeverity,
		Source:      opts.Source,
		FilePrefix:  opts.FilePrefix,
	})
	return resp, convert(err)
}

// Status reports the catalog being served: generation, counts, sources,
// server version and matching strategy.
func (c *Client) Status(ctx context.Context) (*skillsv1.GetCatalogStatusResponse, error) {
	resp, err := c.catalog.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
	return resp, convert(err)
}

// Refresh synchronises git sources and reloads the catalog now. When another
// refresh is running the server answers at once with Success false.
func (c *Client) Refresh(ctx context.Context) (*skillsv1.RefreshSkillsResponse, error) {
	resp, err := c.catalog.RefreshSkills(ctx, &skillsv1.RefreshSkillsRequest{})
	return resp, convert(err)
}

// Watch streams the catalog's changes: first the current generation (Initial
// true), then one message per change. The sequence ends when the loop stops,
// when ctx ends (without an error: check ctx.Err), when the server closes the
// stream, or with one (nil, err) pair when the stream fails.
func (c *Client) Watch(ctx context.Context) iter.Seq2[*skillsv1.WatchCatalogResponse, error] {
	return func(yield func(*skillsv1.WatchCatalogResponse, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // ends the stream when the loop stops early
		stream, err := c.catalog.WatchCatalog(ctx, &skillsv1.WatchCatalogRequest{})
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, convert(err))
			}
			return
		}
		for {
			msg, err := stream.Recv()
			switch {
			case err == nil:
				if !yield(msg, nil) {
					return
				}
			case errors.Is(err, io.EOF), ctx.Err() != nil:
				return
			default:
				yield(nil, convert(err))
				return
			}
		}
	}
}

// SearchOptions tunes [Client.Search]. The zero value asks for the server's
// default number of ranked results over every category and tag.
type SearchOptions struct {
	// Limit is the maximum number of results; 0 means the server's default (10).
	Limit int
	// Mode is ranked (the default) or all terms.
	Mode skillsv1.SearchMode
	// Category keeps the skills of this category; empty keeps all.
	Category string
	// Tags keeps the skills carrying every one of these tags; empty keeps all.
	Tags []string
	// Restated are restatements of the query by the caller (at most 3, ranked
	// mode only): the same need in plain technical terms, naming the
	// technologies it implies. The server fuses them with the query.
	Restated []string
}

// Search ranks the routable skills for a free-text query, best first. No hit
// (an empty slice, not an error) means nothing applies.
func (c *Client) Search(ctx context.Context, query string, opts SearchOptions) ([]*skillsv1.SearchHit, error) {
	resp, err := c.routing.SearchSkills(ctx, &skillsv1.SearchSkillsRequest{
		Query:    query,
		Limit:    int32(min(max(opts.Limit, 0), 1<<30)),
		Mode:     opts.Mode,
		Category: opts.Category,
		Tags:     opts.Tags,
		Restated: opts.Restated,
	})
	if err != nil {
		return nil, convert(err)
	}
	return resp.GetResults(), nil
}

// Match decides which skill fits a task description: the Outcome of the
// answer is a match (with the skill's resolved content), ambiguous (with
// candidates) or no match.
//
// restated are restatements of the task, as SearchOptions.Restated.
func (c *Client) Match(ctx context.Context, task string, restated ...string) (*skillsv1.MatchSkillResponse, error) {
	resp, err := c.routing.MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: task, Restated: restated})
	return resp, convert(err)
}

// ReadOptions pages a [Client.ReadFile]. The zero value reads from the start,
// up to the server's default page size (64 KiB).
type ReadOptions struct {
	// Offset is the byte offset to start at.
	Offset int64
	// MaxBytes is the most to return; 0 means the server's default.
	MaxBytes int64
	// SkipCache makes the server reload the skill's source first.
	SkipCache bool
}

// ReadFile reads one page of a file of a skill (ref is a path or a name; file
// is relative to the skill's folder, with '/'), or of an asset or script
// inherited from a parent skill. When the answer is Truncated, read on from
// NextOffset, or use [Client.ReadAll].
func (c *Client) ReadFile(ctx context.Context, ref, file string, opts ReadOptions) (*skillsv1.ReadSkillFileResponse, error) {
	resp, err := c.files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
		SkillPath: ref,
		File:      file,
		Offset:    opts.Offset,
		MaxBytes:  opts.MaxBytes,
		SkipCache: opts.SkipCache,
	})
	return resp, convert(err)
}

// ReadAll reads a whole file of a skill, page after page, and returns its
// bytes (text files as their UTF-8 bytes).
func (c *Client) ReadAll(ctx context.Context, ref, file string) ([]byte, error) {
	var buf []byte
	offset := int64(0)
	for {
		page, err := c.ReadFile(ctx, ref, file, ReadOptions{Offset: offset})
		if err != nil {
			return nil, err
		}
		if page.GetBinary() {
			buf = append(buf, page.GetData()...)
		} else {
			buf = append(buf, page.GetText()...)
		}
		if !page.GetTruncated() {
			return buf, nil
		}
		if page.GetNextOffset() <= offset {
			return nil, errors.New("skillsclient: server did not advance reading " + file)
		}
		offset = page.GetNextOffset()
	}
}

// RunOptions are the inputs of a script run. The zero value runs the script
// without arguments in the skill's folder.
type RunOptions struct {
	// Args are the named arguments; each reaches the script as SKILL_ARG_<NAME>.
	Args map[string]string
	// Cwd is the working directory, relative to the skill's folder.
	Cwd string
}

// RunScript runs a script that the skill declares with execution "server",
// in the server's sandbox, and returns its outcome. A script that ran and
// failed is not an error: see Success and ExitCode.
func (c *Client) RunScript(ctx context.Context, ref, file string, opts RunOptions) (*skillsv1.RunScriptResponse, error) {
	resp, err := c.scripts.RunScript(ctx, &skillsv1.RunScriptRequest{
		SkillPath: ref,
		File:      file,
		Args:      opts.Args,
		Cwd:       opts.Cwd,
	})
	return resp, convert(err)
}

// ReportUsage records whether a skill helped, with an optional comment.
func (c *Client) ReportUsage(ctx context.Context, skillPath string, useful bool, comment string) (*skillsv1.ReportUsageResponse, error) {
	resp, err := c.usage.ReportUsage(ctx, &skillsv1.ReportUsageRequest{
		SkillPath: skillPath,
		Useful:    useful,
		Comment:   comment,
	})
	return resp, convert(err)
}

// UsageOptions chooses the window and detail of [Client.UsageStats]. The zero
// value asks for the last 30 days, every skill, the top 20 contexts.
type UsageOptions struct {
	// Start is the window's start; zero means 30 days before End.
	Start time.Time
	// End is the window's end; zero means now.
	End time.Time
	// SkillPath keeps one skill; empty keeps all.
	SkillPath string
	// TopN is the number of top contexts to return; 0 means 20.
	TopN int
}

// UsageStats aggregates the recorded usage over a time window: per skill,
// the top no-match and ambiguous contexts, and counts by day.
func (c *Client) UsageStats(ctx context.Context, opts UsageOptions) (*skillsv1.GetUsageStatsResponse, error) {
	req := &skillsv1.GetUsageStatsRequest{
		SkillPath: opts.SkillPath,
		TopN:      int32(min(max(opts.TopN, 0), 1<<30)),
	}
	if !opts.Start.IsZero() {
		req.StartTime = timestamppb.New(opts.Start)
	}
	if !opts.End.IsZero() {
		req.EndTime = timestamppb.New(opts.End)
	}
	resp, err := c.usage.GetUsageStats(ctx, req)
	return resp, convert(err)
}

// IngestEvents hands a batch of another server's usage events to this one,
// which stores those it has not seen (by id).
func (c *Client) IngestEvents(ctx context.Context, events []*skillsv1.UsageEvent) (*skillsv1.IngestEventsResponse, error) {
	resp, err := c.usage.IngestEvents(ctx, &skillsv1.IngestEventsRequest{Events: events})
	return resp, convert(err)
}

// Agents lists the agent profiles, sorted by name.
func (c *Client) Agents(ctx context.Context) ([]*skillsv1.Agent, error) {
	resp, err := c.content.ListAgents(ctx, &skillsv1.ListAgentsRequest{})
	if err != nil {
		return nil, convert(err)
	}
	return resp.GetAgents(), nil
}

// Agent returns one agent profile by name.
func (c *Client) Agent(ctx context.Context, name string) (*skillsv1.GetAgentResponse, error) {
	resp, err := c.content.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: name})
	return resp, convert(err)
}

// Docs returns the documentation index: the hierarchy and the flat page list.
func (c *Client) Docs(ctx context.Context) (*skillsv1.ListDocsResponse, error) {
	resp, err := c.content.ListDocs(ctx, &skillsv1.ListDocsRequest{})
	return resp, convert(err)
}

// Doc returns one documentation page by its path, either as one string with
// '/' separators ("guides/setup") or as segments ("guides", "setup").
func (c *Client) Doc(ctx context.Context, path ...string) (*skillsv1.GetDocResponse, error) {
	var segs []string
	for _, p := range path {
		for s := range strings.SplitSeq(p, "/") {
			if s != "" {
				segs = append(segs, s)
			}
		}
	}
	resp, err := c.content.GetDoc(ctx, &skillsv1.GetDocRequest{Path: segs})
	return resp, convert(err)
}

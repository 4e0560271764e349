package profiles

import (
	"cmp"
	"context"
	"crypto/sha1" //nolint:gosec // git's blob id is SHA-1; it identifies content, it does not protect it
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// The github-worker profile (seed 003): list_skills, get_skill,
// get_skill_file, list_agents, get_agent, list_docs and get_doc. Every answer
// is JSON text (lists are arrays, as the seed's); every get takes skipCache
// and is cached 10 minutes per key; errors are {error: {code, message,
// details}} with the seed's codes, and names, files and path segments
// holding "..", starting with "/" or holding "\" are refused with
// INVALID_PATH before anything is asked of the service (REQ-SEC-001).

// githubCacheTTL is how long a get answer is reused (REQ-SKILL-003).
const githubCacheTTL = 10 * time.Minute

// githubCacheMax bounds the cached answers; past it the oldest go first.
const githubCacheMax = 4096

// Error codes of the github-worker profile (REQ-ERR-002).
const (
	ghUnauthorized  = "UNAUTHORIZED"
	ghForbidden     = "FORBIDDEN"
	ghNotFound      = "NOT_FOUND"
	ghUpstreamError = "UPSTREAM_ERROR"
	ghInvalidPath   = "INVALID_PATH"
)

// GitHubNameInput is the input of get_skill and get_agent.
type GitHubNameInput struct {
	Name string `json:"name"`
	ghCache
}

// GitHubFileInput is the input of get_skill_file.
type GitHubFileInput struct {
	Skill string `json:"skill" jsonschema:"The skill's name."`
	File  string `json:"file" jsonschema:"The file's path in the skill's folder, as list_skills lists it."`
	ghCache
}

// GitHubDocInput is the input of get_doc.
type GitHubDocInput struct {
	Path []string `json:"path" jsonschema:"The page's path segments, as list_docs nests them; a section's page is its index.md."`
	ghCache
}

// ghCache is the argument every get takes, last.
type ghCache struct {
	SkipCache bool `json:"skipCache,omitempty" jsonschema:"Bypass the 10-minute cache and refresh it."`
}

func (c ghCache) skip() bool { return c.SkipCache }

// ghGetInput is the input of a get, once decoded.
type ghGetInput interface {
	// check applies REQ-SEC-001 (checkPathValue) to each name, file or
	// path segment.
	check() error
	// key is the answer's cache key, under the tool's name.
	key() string
	// skip says to bypass the cache (skipCache).
	skip() bool
}

func (in *GitHubNameInput) check() error { return checkPathValue("name", in.Name) }
func (in *GitHubNameInput) key() string  { return in.Name }

func (in *GitHubFileInput) check() error {
	return cmp.Or(checkPathValue("skill", in.Skill), checkPathValue("file", in.File))
}
func (in *GitHubFileInput) key() string { return in.Skill + "\x00" + in.File }

func (in *GitHubDocInput) check() error {
	if len(in.Path) == 0 {
		return &ghError{Code: ghInvalidPath, Message: "path is required: the page's path segments", Details: map[string]any{"path": ""}}
	}
	for _, seg := range in.Path {
		if err := checkPathValue("path segment", seg); err != nil {
			return err
		}
	}
	return nil
}
func (in *GitHubDocInput) key() string { return strings.Join(in.Path, "/") }

// ghError is an error answer of the profile.
type ghError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func (e *ghError) Error() string { return e.Code + ": " + e.Message }

// githubTools serves the github-worker profile.
type githubTools struct {
	*core.Gateway
	cache *ttlCache
}

func addGitHubWorkerTools(server *mcp.Server, g *core.Gateway) error {
	t := &githubTools{Gateway: g, cache: newTTLCache(githubCacheTTL, githubCacheMax, time.Now)}
	// list_skills is an index of the catalog: it follows the catalog's
	// changes rather than the 10-minute cache of the gets.
	g.OnCatalogChange(func(context.Context, core.CatalogChange) { t.cache.drop(core.ToolListSkills) })
	in, err := core.InputSchemas(GitHubNameInput{}, GitHubFileInput{}, GitHubDocInput{})
	if err != nil {
		return err
	}
	nameIn, fileIn, docIn := in[0], in[1], in[2]
	core.ArraysNotNull(docIn)
	empty := &jsonschema.Schema{Type: "object"}
	withName := func(desc string) *jsonschema.Schema {
		s := *nameIn
		s.Properties = map[string]*jsonschema.Schema{"name": {Type: "string", Description: desc}, "skipCache": nameIn.Properties["skipCache"]}
		return &s
	}
	tools := []struct {
		tool *mcp.Tool
		h    mcp.ToolHandlerFor[json.RawMessage, any]
	}{
		{&mcp.Tool{Name: core.ToolListSkills, InputSchema: empty,
			Description: "List the skills: a JSON array of {name, description, argumentHint, userInvocable, files} (files: the skill's companion files)."}, t.list(t.listSkills)},
		{&mcp.Tool{Name: core.ToolGetSkill, InputSchema: withName("The skill's name (its folder)."),
			Description: "Get a skill's SKILL.md: {name, content, path, sha}. Cached 10 minutes; skipCache: true refreshes."}, get(t, t.getSkill)},
		{&mcp.Tool{Name: "get_skill_file", InputSchema: fileIn,
			Description: "Get a companion file of a skill, base64-encoded: {content, encoding: \"base64\", size, path, sha}. Cached 10 minutes; skipCache: true refreshes."}, get(t, t.getSkillFile)},
		{&mcp.Tool{Name: "list_agents", InputSchema: empty,
			Description: "List the agent profiles: a JSON array of {name, description, model, allowedTools}."}, t.list(t.listAgents)},
		{&mcp.Tool{Name: "get_agent", InputSchema: withName("The agent's name (its file name without .md)."),
			Description: "Get an agent profile: {name, content, path, sha}. Cached 10 minutes; skipCache: true refreshes."}, get(t, t.getAgent)},
		{&mcp.Tool{Name: "list_docs", InputSchema: empty,
			Description: "List the documentation as a tree: section names map to their pages, each page's value is its description."}, t.list(t.listDocs)},
		{&mcp.Tool{Name: "get_doc", InputSchema: docIn,
			Description: "Get a documentation page by its path segments (<path>/index.md, else <path>.md): {path, content, filePath, sha}. Cached 10 minutes; skipCache: true refreshes."}, get(t, t.getDoc)},
	}
	for _, x := range tools {
		x.tool.Annotations = core.ReadOnly()
		mcp.AddTool(server, x.tool, x.h)
	}
	return nil
}

// answer turns a value or an error into the profile's JSON text result.
func (t *githubTools) answer(v any, err error) (*mcp.CallToolResult, any, error) {
	if err != nil {
		ge, ok := err.(*ghError)
		if !ok {
			ge = t.ghErrorOf(err, nil)
		}
		b, _ := json.Marshal(map[string]any{"error": ge})
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the answer: %w", err)
	}
	return core.TextResult(string(b)), nil, nil
}

// serve answers a call from the cache, or from fetch under the call timeout
// (skip: past the cache, as skip_cache asks).
func (t *githubTools) serve(ctx context.Context, key string, skip bool, fetch func(ctx context.Context) (any, error)) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	return t.answer(t.cached(key, skip, func() (any, error) { return fetch(ctx) }))
}

// list is the handler of a list tool: its answer, fetched, is cached under
// the tool's name.
func (t *githubTools) list(fetch func(ctx context.Context) (any, error)) mcp.ToolHandlerFor[json.RawMessage, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, _ json.RawMessage) (*mcp.CallToolResult, any, error) {
		return t.serve(ctx, req.Params.Name, false, fetch)
	}
}

// get is the handler of a get tool: it decodes the call's arguments into an
// In and checks them, answering a refusal with its error, then serves the
// answer fetch gives for them, cached under the tool's name and their key.
func get[In any, P interface {
	*In
	ghGetInput
}](t *githubTools, fetch func(ctx context.Context, in P) (any, error)) mcp.ToolHandlerFor[json.RawMessage, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, raw json.RawMessage) (*mcp.CallToolResult, any, error) {
		in := P(new(In))
		if err := json.Unmarshal(raw, in); err != nil {
			return t.answer(nil, &ghError{Code: ghInvalidPath, Message: "arguments: " + err.Error(), Details: map[string]any{}})
		}
		if err := in.check(); err != nil {
			return t.answer(nil, err)
		}
		return t.serve(ctx, req.Params.Name+"\x00"+in.key(), in.skip(), func(ctx context.Context) (any, error) { return fetch(ctx, in) })
	}
}

// ghErrorOf maps a service error to the profile's error (REQ-ERR-002), with
// the details the service gives (repository, branch, path, upstream status).
func (t *githubTools) ghErrorOf(err error, details map[string]any) *ghError {
	f := core.Classify(err)
	reason, meta := f.Reason, f.Meta
	code := ghUpstreamError
	switch {
	case reason == ghUnauthorized || reason == ghForbidden || reason == ghInvalidPath || reason == ghUpstreamError:
		code = reason
	case f.Kind == core.KindUnauthenticated:
		code = ghUnauthorized
	case f.Kind == core.KindDenied:
		code = ghForbidden
	case f.Kind == core.KindNotFound:
		code = ghNotFound
	}
	d := map[string]any{}
	for k, v := range details {
		d[k] = v
	}
	for k, v := range meta {
		switch k {
		case "repository", "repo":
			d["repo"] = v
		case "ref", "branch":
			d["branch"] = v
		case "path", "file", "file_path":
			d["path"] = v
		case "upstream_status", "github_status", "http_status":
			if n, err := strconv.Atoi(v); err == nil {
				d["githubStatus"] = n
			} else {
				d["githubStatus"] = v
			}
		}
	}
	msg := f.Msg
	if code == ghUpstreamError {
		t.Log.Warn("github-worker profile: service error", "error", err)
		if f.Kind == core.KindUnavailable || f.Kind == core.KindTimeout || f.Kind == core.KindFailed {
			msg = core.ErrorMessage(err, "", func(string) bool { return false })
		}
	}
	return &ghError{Code: code, Message: msg, Details: d}
}

// checkPathValue applies REQ-SEC-001 to one name, file or path segment.
func checkPathValue(field, v string) error {
	switch {
	case v == "":
		return &ghError{Code: ghInvalidPath, Message: field + " is required", Details: map[string]any{"path": v}}
	case strings.Contains(v, ".."):
		return &ghError{Code: ghInvalidPath, Message: fmt.Sprintf("%s %q holds \"..\"", field, v), Details: map[string]any{"path": v}}
	case strings.HasPrefix(v, "/"):
		return &ghError{Code: ghInvalidPath, Message: fmt.Sprintf("%s %q starts with \"/\"", field, v), Details: map[string]any{"path": v}}
	case strings.Contains(v, `\`):
		return &ghError{Code: ghInvalidPath, Message: fmt.Sprintf("%s %q holds \"\\\"", field, v), Details: map[string]any{"path": v}}
	}
	return nil
}

// cached answers key from the cache unless skip, else calls fetch and caches
// its answer.
func (t *githubTools) cached(key string, skip bool, fetch func() (any, error)) (any, error) {
	if !skip {
		if v, ok := t.cache.get(key); ok {
			return v, nil
		}
	}
	v, err := fetch()
	if err != nil {
		return nil, err
	}
	t.cache.put(key, v)
	return v, nil
}

// gitBlobSHA is the id git (and GitHub's contents API) gives a file's content.
func gitBlobSHA(data []byte) string {
	h := sha1.New() //nolint:gosec // see the import
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// githubSkill is one entry of list_skills (REQ-SKILL-001).
type githubSkill struct {
	Name          string   `json:"name"`
	Description   *string  `json:"description"`
	ArgumentHint  *string  `json:"argumentHint"`
	UserInvocable bool     `json:"userInvocable"`
	Files         []string `json:"files"`
}

// listSkills answers list_skills.
func (t *githubTools) listSkills(ctx context.Context) (any, error) {
	skills, err := t.ListAllSkills(ctx, &skillsv1.ListSkillsRequest{})
	if err != nil {
		return nil, err
	}
	out := make([]githubSkill, len(skills))
	var (
		wg       sync.WaitGroup
		sem      = make(chan struct{}, 8)
		errMu    sync.Mutex
		firstErr error
	)
	for i, s := range skills {
		out[i] = githubSkill{Name: s.GetName(), UserInvocable: s.GetUserInvocable(), Files: []string{}}
		if d := s.GetDescription(); d != "" {
			out[i].Description = &d
		}
		if h := s.GetArgumentHint(); h != "" {
			out[i].ArgumentHint = &h
		}
		if s.GetFileCount() == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			files, err := t.companionFiles(ctx, s.GetSkillPath())
			if err != nil {
				errMu.Lock()
				firstErr = cmp.Or(firstErr, err)
				errMu.Unlock()
				return
			}
			out[i].Files = files
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// companionFiles lists a skill's files but its own SKILL.md (REQ-BUILD-003).
func (t *githubTools) companionFiles(ctx context.Context, skillPath string) ([]string, error) {
	resp, err := t.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: skillPath})
	if err != nil {
		return nil, err
	}
	main := mainFile(resp)
	files := []string{}
	for _, f := range resp.GetFiles() {
		if f.GetPath() != main {
			files = append(files, f.GetPath())
		}
	}
	return files, nil
}

// mainFile is the skill's own file relative to its folder: SKILL.md, or the
// file of a seed-000 skill.
func mainFile(resp *skillsv1.GetSkillResponse) string {
	if f, d := resp.GetFile(), resp.GetDirectory(); d != "" && len(f) > len(d) && strings.HasPrefix(f, d) {
		return strings.TrimLeft(strings.ReplaceAll(f[len(d):], `\`, "/"), "/")
	}
	return "SKILL.md"
}

// githubContent is the answer of get_skill and get_agent.
type githubContent struct {
	Name    string `json:"name"`
	Content string `json:"content"`
	Path    string `json:"path"`
	SHA     string `json:"sha"`
}

// getSkill answers get_skill: the skill's own file, whole.
func (t *githubTools) getSkill(ctx context.Context, in *GitHubNameInput) (any, error) {
	resp, err := t.Catalog.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: in.Name, SkipCache: in.SkipCache})
	if err != nil {
		return nil, t.ghErrorOf(err, map[string]any{"path": in.Name + "/SKILL.md"})
	}
	file := mainFile(resp)
	p := resp.GetSkill().GetSkillPath()
	_, data, _, err := t.ReadWhole(ctx, p, file, 8<<20, false)
	if core.IsNotFound(err) {
		// A seed-000 skill file lies beside its folder: serve its text.
		data, err = []byte(resp.GetInstructions()), nil
	}
	if err != nil {
		return nil, t.ghErrorOf(err, map[string]any{"path": p + "/" + file})
	}
	return githubContent{Name: resp.GetSkill().GetName(), Content: string(data), Path: p + "/" + file, SHA: gitBlobSHA(data)}, nil
}

// githubFile is the answer of get_skill_file (REQ-SKILL-004).
type githubFile struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	Size     int64  `json:"size"`
	SHA      string `json:"sha"`
}

// getSkillFile answers get_skill_file.
func (t *githubTools) getSkillFile(ctx context.Context, in *GitHubFileInput) (any, error) {
	first, data, cut, err := t.ReadWhole(ctx, in.Skill, in.File, maxAssetBytes, in.SkipCache)
	if err != nil {
		return nil, t.ghErrorOf(err, map[string]any{"path": in.Skill + "/" + in.File})
	}
	if cut {
		return nil, &ghError{Code: ghUpstreamError, Message: fmt.Sprintf("file is %d bytes, larger than the %d bytes this server serves", first.GetSizeBytes(), maxAssetBytes),
			Details: map[string]any{"path": in.Skill + "/" + in.File}}
	}
	return githubFile{Path: first.GetSkillPath() + "/" + first.GetFile(), Content: base64.StdEncoding.EncodeToString(data), Encoding: "base64",
		Size: first.GetSizeBytes(), SHA: gitBlobSHA(data)}, nil
}

// githubAgent is one entry of list_agents (REQ-AGENT-001).
type githubAgent struct {
	Name         string   `json:"name"`
	Description  *string  `json:"description"`
	Model        *string  `json:"model"`
	AllowedTools []string `json:"allowedTools"`
}

// listAgents answers list_agents.
func (t *githubTools) listAgents(ctx context.Context) (any, error) {
	resp, err := t.Content.ListAgents(ctx, &skillsv1.ListAgentsRequest{})
	if err != nil {
		return nil, t.ghErrorOf(err, nil)
	}
	out := make([]githubAgent, 0, len(resp.GetAgents()))
	for _, a := range resp.GetAgents() {
		e := githubAgent{Name: a.GetName(), AllowedTools: core.NonNilList(a.GetAllowedTools())}
		if d := a.GetDescription(); d != "" {
			e.Description = &d
		}
		if m := a.GetModel(); m != "" {
			e.Model = &m
		}
		out = append(out, e)
	}
	return out, nil
}

// getAgent answers get_agent.
func (t *githubTools) getAgent(ctx context.Context, in *GitHubNameInput) (any, error) {
	resp, err := t.Content.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: in.Name, SkipCache: in.SkipCache})
	if err != nil {
		return nil, t.ghErrorOf(err, map[string]any{"path": in.Name + ".md"})
	}
	return githubContent{Name: resp.GetName(), Content: resp.GetContent(), Path: resp.GetPath(), SHA: resp.GetSha()}, nil
}

// listDocs answers list_docs.
func (t *githubTools) listDocs(ctx context.Context) (any, error) {
	resp, err := t.Content.ListDocs(ctx, &skillsv1.ListDocsRequest{})
	if err != nil {
		return nil, t.ghErrorOf(err, nil)
	}
	tree := resp.GetTree().AsMap()
	if tree == nil {
		tree = map[string]any{}
	}
	return tree, nil
}

// githubDoc is the answer of get_doc (REQ-DOC-003).
type githubDoc struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	FilePath string `json:"filePath"`
	SHA      string `json:"sha"`
}

// getDoc answers get_doc.
func (t *githubTools) getDoc(ctx context.Context, in *GitHubDocInput) (any, error) {
	resp, err := t.Content.GetDoc(ctx, &skillsv1.GetDocRequest{Path: in.Path, SkipCache: in.SkipCache})
	if err != nil {
		return nil, t.ghErrorOf(err, map[string]any{"path": in.key()})
	}
	return githubDoc{Path: resp.GetPath(), Content: resp.GetContent(), FilePath: resp.GetFilePath(), SHA: resp.GetSha()}, nil
}

// ttlCache keeps answers for a while, per key, up to max entries.
type ttlCache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry
}

type ttlEntry struct {
	v       any
	expires time.Time
}

func newTTLCache(ttl time.Duration, maxEntries int, now func() time.Time) *ttlCache {
	return &ttlCache{ttl: ttl, max: maxEntries, now: now, entries: map[string]ttlEntry{}}
}

func (c *ttlCache) get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return e.v, true
}

func (c *ttlCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}

func (c *ttlCache) put(key string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.entries) >= c.max {
		// Drop what expired; if still full, the entry closest to expiry.
		oldest, first := "", true
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
				continue
			}
			if first || e.expires.Before(c.entries[oldest].expires) {
				oldest, first = k, false
			}
		}
		if len(c.entries) >= c.max && !first {
			delete(c.entries, oldest)
		}
	}
	c.entries[key] = ttlEntry{v: v, expires: now.Add(c.ttl)}
}

package mcpgw

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP skills extension (SEP-2640, io.modelcontextprotocol/skills): the
// methods skills/list, skills/get and resources/directory/read, and the
// capability that announces them. The wire types follow the go-sdk's proposed
// skills package field for field, so that the server can move to it once it
// ships; they are written here because go-sdk v1.8.0 has none.
const (
	// SkillsExtension is the capability key of the skills extension.
	SkillsExtension = "io.modelcontextprotocol/skills"
	// MethodSkillsList lists the skills, a page at a time.
	MethodSkillsList = "skills/list"
	// MethodSkillsGet returns one skill by the URI of its SKILL.md.
	MethodSkillsGet = "skills/get"
	// MethodDirectoryRead lists the direct children of a skill:// directory.
	MethodDirectoryRead = "resources/directory/read"
)

// skillsPageSize is how many skills one skills/list page holds.
const skillsPageSize = 100

// directoryPageSize is how many entries one resources/directory/read page holds.
const directoryPageSize = 500

// skillsListTTL is the ttlMs of skills/list answers (protocol 2026-07-28 and
// later): the catalog may change at any time (refresh, file watching), so
// clients keep a listing for at most a minute.
const skillsListTTL = 60_000

// SkillEntry is one skill of skills/list and skills/get.
type SkillEntry struct {
	// URI is the skill's SKILL.md resource: skill://<skill_path>/SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md frontmatter, verbatim, as JSON.
	Frontmatter map[string]any `json:"frontmatter"`
	// Resources are every file of the skill, SKILL.md included.
	Resources []*SkillResource `json:"resources"`
}

// SkillResource is one file of a skill: its URI, digest and size.
type SkillResource struct {
	URI string `json:"uri"`
	// Digest is "sha256:" and the lower-case hex digest of the file.
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// ListSkillsParams are the parameters of skills/list.
type ListSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// ListSkillsResult is the answer of skills/list. TTLMs and CacheScope are
// set for protocol 2026-07-28 and later only (SEP-2549).
type ListSkillsResult struct {
	mcp.ResultBase
	TTLMs      *int          `json:"ttlMs,omitempty"`
	CacheScope string        `json:"cacheScope,omitempty"`
	ResultType string        `json:"resultType,omitempty"`
	NextCursor string        `json:"nextCursor,omitempty"`
	Skills     []*SkillEntry `json:"skills"`
}

// GetSkillParams are the parameters of skills/get.
type GetSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// GetSkillResult is the answer of skills/get.
type GetSkillResult struct {
	mcp.ResultBase
	ResultType string      `json:"resultType,omitempty"`
	Skill      *SkillEntry `json:"skill"`
}

// ReadDirectoryParams are the parameters of resources/directory/read.
type ReadDirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// ReadDirectoryResult is the answer of resources/directory/read: files, and
// folders (MIME type inode/directory, no trailing slash).
type ReadDirectoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType,omitempty"`
	NextCursor string          `json:"nextCursor,omitempty"`
	Resources  []*mcp.Resource `json:"resources"`
}

// directoryMIME is the MIME type of a folder in a directory listing.
const directoryMIME = "inode/directory"

// addSkillsExtension registers the extension's methods on server.
func (s *surfaces) addSkillsExtension(server *mcp.Server) error {
	if err := mcp.AddReceivingCustomMethod(server, MethodSkillsList, s.skillsList); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(server, MethodSkillsGet, s.skillsGet); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(server, MethodDirectoryRead, s.readDirectory)
}

// extensionSettings are the settings announced under SkillsExtension.
func extensionSettings() map[string]any { return map[string]any{"directoryRead": true} }

// invalidParams is the JSON-RPC error for a request the client must change.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// skillsList serves skills/list.
func (s *surfaces) skillsList(ctx context.Context, ss *mcp.ServerSession, params *ListSkillsParams) (*ListSkillsResult, error) {
	idx, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	cursor := ""
	if params != nil {
		cursor = params.Cursor
	}
	start, err := decodeCursor(cursor)
	if err != nil || start > len(idx.folder) {
		return nil, invalidParams("invalid cursor %q", cursor)
	}
	end := min(start+skillsPageSize, len(idx.folder))
	res := &ListSkillsResult{ResultType: "complete", Skills: make([]*SkillEntry, 0, end-start)}
	for _, sk := range idx.folder[start:end] {
		res.Skills = append(res.Skills, sk.entry())
	}
	if end < len(idx.folder) {
		res.NextCursor = encodeCursor(end)
	}
	if protocolAtLeast(ss, params, "2026-07-28") {
		ttl := skillsListTTL
		res.TTLMs, res.CacheScope = &ttl, "public"
	}
	return res, nil
}

// skillsGet serves skills/get.
func (s *surfaces) skillsGet(ctx context.Context, _ *mcp.ServerSession, params *GetSkillParams) (*GetSkillResult, error) {
	if params == nil || params.URI == "" {
		return nil, invalidParams("missing required uri")
	}
	idx, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	sk := idx.byURI[params.URI]
	if sk == nil {
		return nil, invalidParams("unknown skill %q: skills/list gives the URIs of the skills (skill://<skill_path>/SKILL.md)", params.URI)
	}
	return &GetSkillResult{ResultType: "complete", Skill: sk.entry()}, nil
}

// readDirectory serves resources/directory/read: the direct children of a
// folder of some skill, or of a folder above skills.
func (s *surfaces) readDirectory(ctx context.Context, _ *mcp.ServerSession, params *ReadDirectoryParams) (*ReadDirectoryResult, error) {
	if params == nil || params.URI == "" {
		return nil, invalidParams("missing required uri")
	}
	rel, err := parseSkillURI(params.URI)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	start, err := decodeCursor(params.Cursor)
	if err != nil {
		return nil, invalidParams("invalid cursor %q", params.Cursor)
	}
	idx, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	children := idx.children(rel)
	if children == nil {
		return nil, invalidParams("%q is not a directory of this server's skills", params.URI)
	}
	if start > len(children) {
		return nil, invalidParams("invalid cursor %q", params.Cursor)
	}
	end := min(start+directoryPageSize, len(children))
	res := &ReadDirectoryResult{ResultType: "complete", Resources: children[start:end]}
	if end < len(children) {
		res.NextCursor = encodeCursor(end)
	}
	return res, nil
}

// children lists the direct children of the folder rel (a '/' path without
// scheme, like "pdf" or "pdf/scripts"): files as their resources, folders
// as inode/directory entries. Nil when rel holds no file.
func (idx *skillIndex) children(rel string) []*mcp.Resource {
	if rel == "" {
		return nil
	}
	prefix := rel + "/"
	i := sort.Search(len(idx.files), func(i int) bool { return idx.files[i].rel >= prefix })
	var out []*mcp.Resource
	lastDir := ""
	for ; i < len(idx.files) && strings.HasPrefix(idx.files[i].rel, prefix); i++ {
		f := idx.files[i]
		rest := f.rel[len(prefix):]
		if dir, _, nested := strings.Cut(rest, "/"); nested {
			if dir != lastDir {
				lastDir = dir
				out = append(out, &mcp.Resource{URI: skillURI(prefix + dir), Name: dir, MIMEType: directoryMIME})
			}
			continue
		}
		out = append(out, f.resource())
	}
	return out
}

// protocolAtLeast reports whether the request speaks protocol version v or a
// later one: the version in its _meta (stateless requests), else the one the
// session negotiated.
func protocolAtLeast(ss *mcp.ServerSession, params mcp.Params, v string) bool {
	version := ""
	if params != nil {
		version, _ = params.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	}
	if version == "" && ss != nil {
		if ip := ss.InitializeParams(); ip != nil {
			version = ip.ProtocolVersion
		}
	}
	return version >= v
}

// encodeCursor and decodeCursor make an opaque cursor of a list offset.
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != 'o' {
		return 0, fmt.Errorf("invalid cursor")
	}
	n, err := strconv.Atoi(string(b[1:]))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid cursor")
	}
	return n, nil
}

// skillURI is the skill:// URI of rel, a '/' path whose first segment is the
// authority ("pdf/SKILL.md" → "skill://pdf/SKILL.md"); each segment is
// percent-encoded where a URI needs it.
func skillURI(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "skill://" + strings.Join(segs, "/")
}

// parseSkillURI returns the '/' path of a skill:// URI (authority and path
// joined, percent-decoded), refusing anything else: other schemes, queries,
// fragments, user info, ports, empty, "." or ".." segments, a trailing slash.
func parseSkillURI(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "skill" || u.Opaque != "" || u.RawQuery != "" || u.ForceQuery ||
		strings.Contains(raw, "#") || u.User != nil || u.Port() != "" || u.Host == "" {
		return "", fmt.Errorf("%q is not a skill:// URI of this server (skill://<skill_path>/<file>)", raw)
	}
	rel := u.Host
	if u.Path != "" {
		rel += u.Path
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("%q has an empty, '.' or '..' path segment", raw)
		}
	}
	return rel, nil
}

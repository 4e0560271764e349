package mcpgw

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// skillTemplate is the resource template of every skill file.
const skillTemplate = "skill://{+path}"

// maxResourceBytes caps what resources/read returns of one file: the
// extension's per-skill baseline (16 MiB). Larger files are read with
// read_skill_file, a page at a time.
const maxResourceBytes = 16 << 20

// resourcePage is the page size of the reads behind resources/read.
const resourcePage = 1 << 20

// readResource serves resources/read for skill:// URIs: the whole file, as
// text (UTF-8) or as a blob.
func (s *surfaces) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	idx := s.loaded()
	if idx == nil {
		var err error
		if idx, err = s.current(ctx); err != nil {
			return nil, err
		}
	}
	skillPath, file, ok := idx.locate(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	ctx, cancel := context.WithTimeout(ctx, s.g.Timeout)
	defer cancel()
	var (
		text   strings.Builder
		blob   []byte
		binary bool
		mime   string
		offset int64
	)
	for {
		resp, err := s.g.Files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{
			SkillPath: skillPath, File: file, Offset: offset, MaxBytes: resourcePage,
		})
		if core.IsNotFound(err) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, s.protocolError(err)
		}
		binary, mime = resp.GetBinary(), resp.GetMimeType()
		if binary {
			blob = append(blob, resp.GetData()...)
		} else {
			text.WriteString(resp.GetText())
		}
		if !resp.GetTruncated() {
			break
		}
		if resp.GetNextOffset() <= offset || resp.GetNextOffset() > maxResourceBytes {
			if s.g.Has(core.ToolReadSkillFile) {
				return nil, fmt.Errorf("%s is larger than %d MiB: read it a page at a time with %s", uri, maxResourceBytes>>20, core.ToolReadSkillFile)
			}
			return nil, fmt.Errorf("%s is larger than %d MiB, too large to read as one resource", uri, maxResourceBytes>>20)
		}
		offset = resp.GetNextOffset()
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: mime}
	switch {
	case binary:
		c.Blob = blob
	case text.Len() > 0:
		c.Text = text.String()
	}
	if c.Text == "" && c.Blob == nil {
		// An empty file: the SDK leaves out an empty text, and contents
		// need text or blob, so it goes as an empty blob.
		c.Blob = []byte{}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

// locate finds the skill and file a skill:// URI names: a listed file, or
// any other path under a SKILL.md skill's folder (the deepest skill wins).
func (idx *skillIndex) locate(uri string) (skillPath, file string, ok bool) {
	if f := idx.fileByURI[uri]; f != nil {
		return f.skillPath, f.file, true
	}
	rel, err := parseSkillURI(uri)
	if err != nil {
		return "", "", false
	}
	for i := len(rel) - 1; i > 0; i-- {
		if rel[i] != '/' {
			continue
		}
		if sk := idx.byURI[skillURI(rel[:i]+"/"+skillFileName)]; sk != nil {
			return sk.path, rel[i+1:], true
		}
	}
	return "", "", false
}

// maxCompletions is how many values one completion answer holds (the
// protocol's limit).
const maxCompletions = 100

// complete serves completion/complete: skill file paths for the resource
// template, nothing for prompt arguments (free text).
func (s *surfaces) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ref := req.Params.Ref
	if ref == nil || ref.Type != "ref/resource" || ref.URI != skillTemplate {
		return res, nil
	}
	idx, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	prefix := req.Params.Argument.Value
	i := sort.Search(len(idx.files), func(i int) bool { return idx.files[i].rel >= prefix })
	var values []string
	total := 0
	for ; i < len(idx.files) && strings.HasPrefix(idx.files[i].rel, prefix); i++ {
		total++
		if len(values) < maxCompletions {
			values = append(values, idx.files[i].rel)
		}
	}
	if values != nil {
		res.Completion.Values = values
	}
	res.Completion.Total = total
	res.Completion.HasMore = total > len(values)
	return res, nil
}

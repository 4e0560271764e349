package server

import (
	"context"
	"encoding/base64"
	"sort"
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

const (
	defaultPageSize = 100
	maxPageSize     = 1000
	// pageTokenPrefix versions the page token: "v1:" + the last path served.
	pageTokenPrefix = "v1:"
)

// ListSkills lists the skills of the catalog, sorted by path. Page tokens hold
// the last path served, so paging stays correct when the catalog changes between
// pages.
func (s *Service) ListSkills(ctx context.Context, req *skillsv1.ListSkillsRequest) (*skillsv1.ListSkillsResponse, error) {
	size, err := count("page_size", req.GetPageSize(), defaultPageSize, maxPageSize)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	after := ""
	if tok := req.GetPageToken(); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || !strings.HasPrefix(string(raw), pageTokenPrefix) {
			return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "page_token is not a token this server issued"))
		}
		after = strings.TrimPrefix(string(raw), pageTokenPrefix)
	}
	sel := catalog.Selection{
		Text:         strings.TrimSpace(req.GetQuery()),
		Category:     strings.TrimSpace(req.GetCategory()),
		Tags:         lowerAll(req.GetTags()),
		RoutableOnly: req.GetRoutableOnly(),
	}
	snap := s.snapshot()
	var matched []*catalog.Skill
	for _, sk := range snap.Skills() {
		if s.opts.Filter.Serves(sk) && sel.Selects(sk) {
			matched = append(matched, sk)
		}
	}
	// Skills() is sorted by path: the page starts after the token's path.
	start := sort.Search(len(matched), func(i int) bool { return matched[i].Path > after })
	end := min(start+size, len(matched))
	resp := &skillsv1.ListSkillsResponse{Skills: make([]*skillsv1.Skill, 0, end-start), TotalSize: int32(len(matched))}
	for _, sk := range matched[start:end] {
		resp.Skills = append(resp.Skills, toSkill(snap, sk, req.GetIncludeBody()))
	}
	if end < len(matched) {
		resp.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(pageTokenPrefix + matched[end-1].Path))
	}
	return resp, nil
}

// GetSkillTree returns the inheritance tree, or one sub-tree.
func (s *Service) GetSkillTree(ctx context.Context, req *skillsv1.GetSkillTreeRequest) (*skillsv1.GetSkillTreeResponse, error) {
	nodes, err := s.snapshot().Tree(req.GetPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &skillsv1.GetSkillTreeResponse{Skills: s.toNodes(nodes)}, nil
}

// GetSkill loads one skill by path or name.
func (s *Service) GetSkill(ctx context.Context, req *skillsv1.GetSkillRequest) (*skillsv1.GetSkillResponse, error) {
	snap, sk, err := s.current(ctx, req.GetSkipCache(), req.GetSkillPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	s.recordLoad(ctx, sk.Path)
	resp := toSkillDetail(snap, sk)
	resp.Findings = s.toFindings(sk)
	resp.ContentDigest = sk.Digest
	return resp, nil
}

// ListDiagnostics lists load diagnostics.
func (s *Service) ListDiagnostics(ctx context.Context, req *skillsv1.ListDiagnosticsRequest) (*skillsv1.ListDiagnosticsResponse, error) {
	minSev := fromSeverity(req.GetMinSeverity())
	resp := &skillsv1.ListDiagnosticsResponse{Diagnostics: []*skillsv1.Diagnostic{}}
	for _, d := range append(s.configDiagnostics(), s.snapshot().Diagnostics()...) {
		switch d.Severity {
		case skill.SeverityError:
			resp.ErrorCount++
		case skill.SeverityWarning:
			resp.WarningCount++
		}
		if d.Severity < minSev {
			continue
		}
		if src := req.GetSource(); src != "" && !s.sourceMatches(ctx, src, d.Source) {
			continue
		}
		if p := req.GetFilePrefix(); p != "" && !strings.HasPrefix(d.File, p) {
			continue
		}
		resp.Diagnostics = append(resp.Diagnostics, toDiagnostic(d))
	}
	resp.Findings = []*skillsv1.Finding{}
	resp.Quarantined = []*skillsv1.QuarantinedSkill{}
	for _, sk := range s.snapshot().Skills() {
		if !s.opts.Filter.Enabled(sk) {
			continue
		}
		if src := req.GetSource(); src != "" && sk.Source.Name != src {
			continue
		}
		for _, f := range s.toFindings(sk) {
			if p := req.GetFilePrefix(); p != "" && !strings.HasPrefix(f.GetFile(), p) {
				continue
			}
			resp.Findings = append(resp.Findings, f)
		}
		if sk.Quarantined() && !sk.ScanPending() { // pending: the scan-pending diagnostic
			resp.Quarantined = append(resp.Quarantined, &skillsv1.QuarantinedSkill{
				SkillPath: sk.Path, Source: sk.Source.Name, Reason: catalog.QuarantineReason(sk, s.policy()), ContentDigest: sk.Digest,
			})
		}
	}
	sort.SliceStable(resp.Findings, func(i, j int) bool { return resp.Findings[i].GetSeverity() > resp.Findings[j].GetSeverity() })
	return resp, nil
}

// GetCatalogStatus describes the catalog being served.
func (s *Service) GetCatalogStatus(ctx context.Context, _ *skillsv1.GetCatalogStatusRequest) (*skillsv1.GetCatalogStatusResponse, error) {
	snap := s.snapshot()
	resp := &skillsv1.GetCatalogStatusResponse{
		Generation:       int64(snap.Generation()),
		BuiltAt:          timestamp(snap.BuiltAt()),
		Version:          s.opts.Version,
		MatchingStrategy: s.router.Strategy(snap),
		Sources:          []*skillsv1.SourceStatus{},
		UnservedCount:    int32(snap.Stats().NotServed),
		CatalogId:        snap.ID(),
	}
	counts := map[*catalog.Source]int32{}
	for _, sk := range snap.Skills() {
		if !s.opts.Filter.Serves(sk) {
			continue
		}
		resp.SkillCount++
		if sk.Routable {
			resp.RoutableCount++
		}
		counts[sk.Source]++
	}
	for _, d := range append(s.configDiagnostics(), snap.Diagnostics()...) {
		switch d.Severity {
		case skill.SeverityError:
			resp.ErrorCount++
		case skill.SeverityWarning:
			resp.WarningCount++
		}
	}
	resp.Config = s.configStatus()
	for _, src := range snap.Sources() {
		resp.Sources = append(resp.Sources, s.sourceStatus(src, counts[src], snap.BuiltAt()))
	}
	if s.opts.Semantic != nil {
		s.router.Routes(ctx) // the current catalog's skills are the ones being embedded
		resp.Semantic = toSemanticStatus(s.opts.Semantic.Status())
	}
	resp.ScriptIsolation = toIsolation(s.opts.Scripts.Isolation())
	resp.Security = s.securityStatus(snap)
	return resp, nil
}

// toSemanticStatus is the wire form of the semantic search's progress.
func toSemanticStatus(st embed.Status) *skillsv1.SemanticStatus {
	out := &skillsv1.SemanticStatus{
		Model:         st.Model,
		EmbeddedCount: int32(st.Embedded),
		PendingCount:  int32(st.Pending),
	}
	if st.LastError != nil {
		out.LastError = st.LastError.Error()
		out.LastErrorAt = timestamp(st.LastErrorAt)
	}
	return out
}

func (s *Service) toNodes(nodes []*catalog.Node) []*skillsv1.SkillNode {
	out := make([]*skillsv1.SkillNode, 0, len(nodes))
	for _, n := range nodes {
		if n.Skill != nil && !s.opts.Filter.Serves(n.Skill) {
			continue
		}
		out = append(out, &skillsv1.SkillNode{
			Name:        n.Name,
			Path:        n.Path,
			Description: n.Description,
			Keywords:    nonNil(n.Keywords),
			AssetCount:  int32(n.AssetCount),
			ScriptCount: int32(n.ScriptCount),
			Children:    s.toNodes(n.Children),
		})
	}
	return out
}

func lowerAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

package contract

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// grpcSurface calls the skills.v1 services with the generated client.
type grpcSurface struct {
	catalog skillsv1.CatalogServiceClient
	routing skillsv1.RoutingServiceClient
	files   skillsv1.FileServiceClient
	scripts skillsv1.ScriptServiceClient
}

func newGRPCSurface(conn grpc.ClientConnInterface) *grpcSurface {
	return &grpcSurface{
		catalog: skillsv1.NewCatalogServiceClient(conn), routing: skillsv1.NewRoutingServiceClient(conn),
		files: skillsv1.NewFileServiceClient(conn), scripts: skillsv1.NewScriptServiceClient(conn),
	}
}

func (*grpcSurface) name() string { return "grpc" }

func (*grpcSurface) mask(o Outcome) Outcome { return o }

func (g *grpcSurface) load(t *testing.T, ref string) Outcome {
	resp, err := g.catalog.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: ref})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	return Outcome{Loaded: loadedFromProto(resp)}
}

func (g *grpcSurface) tree(t *testing.T, path string) Outcome {
	resp, err := g.catalog.GetSkillTree(t.Context(), &skillsv1.GetSkillTreeRequest{Path: path})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	return Outcome{Tree: nodesFromProto(resp.GetSkills())}
}

func (g *grpcSurface) list(t *testing.T) Outcome {
	resp, err := g.catalog.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	l := &Listing{Skills: make([]Listed, 0, len(resp.GetSkills())), NextPageToken: resp.GetNextPageToken(), TotalSize: int(resp.GetTotalSize())}
	for _, s := range resp.GetSkills() {
		l.Skills = append(l.Skills, *listedFromProto(s))
	}
	return Outcome{List: l}
}

func (g *grpcSurface) diagnostics(t *testing.T) Outcome {
	resp, err := g.catalog.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	return Outcome{Diagnostics: &Diagnostics{
		Diagnostics:  diagnosticsFromProto(resp.GetDiagnostics()),
		ErrorCount:   int(resp.GetErrorCount()),
		WarningCount: int(resp.GetWarningCount()),
	}}
}

func (g *grpcSurface) status(t *testing.T) Outcome {
	resp, err := g.catalog.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	st := &Status{
		Generation:       resp.GetGeneration(),
		BuiltAt:          protoTime(resp.GetBuiltAt()),
		SkillCount:       int(resp.GetSkillCount()),
		RoutableCount:    int(resp.GetRoutableCount()),
		ErrorCount:       int(resp.GetErrorCount()),
		WarningCount:     int(resp.GetWarningCount()),
		Sources:          make([]SourceStatus, 0, len(resp.GetSources())),
		Version:          resp.GetVersion(),
		MatchingStrategy: resp.GetMatchingStrategy(),
		CatalogID:        resp.GetCatalogId(),
	}
	for _, s := range resp.GetSources() {
		st.Sources = append(st.Sources, SourceStatus{
			Name: s.GetName(), Kind: s.GetKind(), Location: s.GetLocation(), Ref: s.GetRef(), Commit: s.GetCommit(),
			Trusted: s.GetTrusted(), SkillCount: int(s.GetSkillCount()), LastSync: protoTime(s.GetLastSync()), Error: s.GetError(),
			ContentID: s.GetContentId(),
		})
	}
	return Outcome{Status: st}
}

func (g *grpcSurface) search(t *testing.T, q SearchQuery) Outcome {
	req := &skillsv1.SearchSkillsRequest{Query: q.Query, Limit: int32(q.Limit), Category: q.Category, Tags: q.Tags}
	if q.Restated != "" {
		req.Restated = []string{q.Restated}
	}
	if q.AllTerms {
		req.Mode = skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS
	}
	resp, err := g.routing.SearchSkills(t.Context(), req)
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	out := &Searched{Query: resp.GetQuery(), Results: make([]SearchHit, 0, len(resp.GetResults()))}
	for _, h := range resp.GetResults() {
		out.Results = append(out.Results, SearchHit{
			SkillPath: h.GetSkillPath(), Name: h.GetName(), Description: h.GetDescription(), Category: h.GetCategory(),
			Score: h.GetScore(), Excerpt: h.GetExcerpt(), MatchedTerms: append([]string{}, h.GetMatchedTerms()...),
			Phrasing: int(h.GetPhrasing()),
		})
	}
	return Outcome{Search: out}
}

func (g *grpcSurface) match(t *testing.T, context string) Outcome {
	return g.matchRestated(t, context, "")
}

func (g *grpcSurface) matchRestated(t *testing.T, context, restated string) Outcome {
	req := &skillsv1.MatchSkillRequest{Context: context}
	if restated != "" {
		req.Restated = []string{restated}
	}
	resp, err := g.routing.MatchSkill(t.Context(), req)
	if err != nil {
		return Outcome{Error: grpcFailure(t, err)}
	}
	m := &Matched{
		Outcome:          outcomeName(resp.GetOutcome().String()),
		Message:          resp.GetMessage(),
		Strategy:         resp.GetStrategy(),
		SkillPath:        resp.GetSkillPath(),
		Score:            resp.GetScore(),
		MatchedKeywords:  append([]string{}, resp.GetMatchedKeywords()...),
		Content:          resp.GetContent(),
		Assets:           assetsFromProto(resp.GetAssets()),
		Scripts:          scriptsFromProto(resp.GetScripts()),
		InheritedAssets:  assetsFromProto(resp.GetInheritedAssets()),
		InheritedScripts: scriptsFromProto(resp.GetInheritedScripts()),
		Candidates:       make([]MatchCandidate, 0, len(resp.GetCandidates())),
	}
	for _, c := range resp.GetCandidates() {
		m.Candidates = append(m.Candidates, MatchCandidate{
			SkillPath: c.GetSkillPath(), Score: c.GetScore(), Description: c.GetDescription(),
			MatchedKeywords: append([]string{}, c.GetMatchedKeywords()...),
		})
	}
	return Outcome{Match: m}
}

// outcomeName turns a MatchOutcome enum name (MATCH_OUTCOME_NO_MATCH) into
// the outcome's short name (no_match).
func outcomeName(enum string) string {
	return strings.ToLower(strings.TrimPrefix(enum, "MATCH_OUTCOME_"))
}

// grpcFailure converts a gRPC error; anything but a status is a broken surface.
func grpcFailure(t *testing.T, err error) *Failure {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok {
		t.Fatalf("gRPC: got a non-status error %v", err)
	}
	f := &Failure{Code: st.Code().String(), Message: st.Message()}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			if info.GetDomain() != "skillsd" {
				t.Errorf("gRPC: ErrorInfo domain: got %q, want %q", info.GetDomain(), "skillsd")
			}
			f.Reason = info.GetReason()
			f.Suggestions = splitList(info.GetMetadata()["suggestions"])
		}
	}
	return f
}

func loadedFromProto(r *skillsv1.GetSkillResponse) *Loaded {
	sk := r.GetSkill()
	l := &Loaded{
		Name:             sk.GetName(),
		SkillPath:        sk.GetSkillPath(),
		Description:      sk.GetDescription(),
		Instructions:     r.GetInstructions(),
		Content:          r.GetContent(),
		Directory:        r.GetDirectory(),
		Source:           sk.GetSource(),
		LoadedAt:         protoTime(sk.GetLoadedAt()),
		Files:            make([]File, 0, len(r.GetFiles())),
		Frontmatter:      r.GetFrontmatter().AsMap(),
		Skill:            listedFromProto(sk),
		File:             r.GetFile(),
		Assets:           assetsFromProto(r.GetAssets()),
		Scripts:          scriptsFromProto(r.GetScripts()),
		InheritedAssets:  assetsFromProto(r.GetInheritedAssets()),
		InheritedScripts: scriptsFromProto(r.GetInheritedScripts()),
		InheritanceChain: append([]string{}, r.GetInheritanceChain()...),
		Diagnostics:      diagnosticsFromProto(r.GetDiagnostics()),
	}
	for _, f := range r.GetFiles() {
		l.Files = append(l.Files, File{Path: f.GetPath(), SizeBytes: f.GetSizeBytes(), Digest: f.GetDigest(), MimeType: f.GetMimeType(), Text: f.GetText()})
	}
	return l
}

func listedFromProto(s *skillsv1.Skill) *Listed {
	return &Listed{
		SkillPath:     s.GetSkillPath(),
		Name:          s.GetName(),
		Description:   s.GetDescription(),
		Layout:        s.GetLayout().String(),
		Category:      s.GetCategory(),
		Tags:          append([]string{}, s.GetTags()...),
		Keywords:      append([]string{}, s.GetKeywords()...),
		Source:        s.GetSource(),
		Routable:      s.GetRoutable(),
		UserInvocable: s.GetUserInvocable(),
		AlwaysApply:   s.GetAlwaysApply(),
		ParentPath:    s.GetParentPath(),
		AssetCount:    int(s.GetAssetCount()),
		ScriptCount:   int(s.GetScriptCount()),
		FileCount:     int(s.GetFileCount()),
		LoadedAt:      protoTime(s.GetLoadedAt()),
		Body:          s.GetBody(),
		ArgumentHint:  s.GetArgumentHint(),
	}
}

func assetsFromProto(in []*skillsv1.Asset) []Asset {
	out := make([]Asset, 0, len(in))
	for _, a := range in {
		out = append(out, Asset{File: a.GetFile(), Description: a.GetDescription(), Type: a.GetType(), From: a.GetFrom()})
	}
	return out
}

func scriptsFromProto(in []*skillsv1.Script) []Script {
	out := make([]Script, 0, len(in))
	for _, s := range in {
		sc := Script{File: s.GetFile(), Description: s.GetDescription(), Execution: s.GetExecution(), From: s.GetFrom(), Args: make([]ScriptArg, 0, len(s.GetArgs()))}
		for _, a := range s.GetArgs() {
			sc.Args = append(sc.Args, ScriptArg{Name: a.GetName(), Description: a.GetDescription(), Required: a.GetRequired(), Default: a.Default})
		}
		out = append(out, sc)
	}
	return out
}

func diagnosticsFromProto(in []*skillsv1.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(in))
	for _, d := range in {
		out = append(out, Diagnostic{
			Source: d.GetSource(), File: d.GetFile(), Line: int(d.GetLine()),
			Severity: d.GetSeverity().String(), Code: d.GetCode(), Message: d.GetMessage(),
		})
	}
	return out
}

func nodesFromProto(in []*skillsv1.SkillNode) []Node {
	out := make([]Node, 0, len(in))
	for _, n := range in {
		out = append(out, Node{
			Name:        n.GetName(),
			Path:        n.GetPath(),
			Description: n.GetDescription(),
			Keywords:    append([]string{}, n.GetKeywords()...),
			AssetCount:  int(n.GetAssetCount()),
			ScriptCount: int(n.GetScriptCount()),
			Children:    nodesFromProto(n.GetChildren()),
		})
	}
	return out
}

func protoTime(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return ""
	}
	return normTime(ts.AsTime())
}

package server

import (
	"context"

	"google.golang.org/protobuf/types/known/structpb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/content"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// contentStore is the agents and docs store; one with no folders when the
// server was built without one.
func (s *Service) contentStore() *content.Store {
	if s.opts.Content == nil {
		return content.New(content.Options{})
	}
	return s.opts.Content
}

// ListAgents lists the agent profiles, sorted by name (seed 003 REQ-AGENT-001).
func (s *Service) ListAgents(ctx context.Context, _ *skillsv1.ListAgentsRequest) (*skillsv1.ListAgentsResponse, error) {
	agents, diags, err := s.contentStore().ListAgents(ctx)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &skillsv1.ListAgentsResponse{
		Agents: mapAll(agents, func(a content.Agent) *skillsv1.Agent {
			return &skillsv1.Agent{Name: a.Name, Description: a.Description, Model: a.Model, AllowedTools: a.AllowedTools, Path: a.File}
		}),
		Diagnostics: contentDiagnostics(diags),
	}, nil
}

// GetAgent returns one agent profile with its text and git blob sha
// (REQ-AGENT-002).
func (s *Service) GetAgent(ctx context.Context, req *skillsv1.GetAgentRequest) (*skillsv1.GetAgentResponse, error) {
	a, err := s.contentStore().GetAgent(ctx, req.GetName(), req.GetSkipCache())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &skillsv1.GetAgentResponse{Name: a.Name, Content: a.Content, Path: a.Path, Sha: a.SHA}, nil
}

// ListDocs lists the documentation pages as a hierarchy and flat
// (REQ-DOC-001).
func (s *Service) ListDocs(ctx context.Context, _ *skillsv1.ListDocsRequest) (*skillsv1.ListDocsResponse, error) {
	idx, err := s.contentStore().ListDocs(ctx)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	st, err := structpb.NewStruct(idx.Tree)
	if err != nil {
		return nil, toStatus(ctx, s.log, failure.New(failure.Internal, "", "converting the docs tree").Wrap(err))
	}
	return &skillsv1.ListDocsResponse{
		Tree: st,
		Pages: mapAll(idx.Pages, func(p content.DocPage) *skillsv1.DocPage {
			return &skillsv1.DocPage{Path: p.Path, Title: p.Title, Description: p.Description}
		}),
		Diagnostics: contentDiagnostics(idx.Diagnostics),
	}, nil
}

// GetDoc returns one documentation page by its path segments, with the
// index.md convention (REQ-DOC-002, REQ-DOC-003).
func (s *Service) GetDoc(ctx context.Context, req *skillsv1.GetDocRequest) (*skillsv1.GetDocResponse, error) {
	d, err := s.contentStore().GetDoc(ctx, req.GetPath(), req.GetSkipCache())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &skillsv1.GetDocResponse{Path: d.Path, Content: d.Content, FilePath: d.FilePath, Sha: d.SHA}, nil
}

// contentDiagnostics converts the files a content listing left out (never
// nil).
func contentDiagnostics(ds []content.Diagnostic) []*skillsv1.Diagnostic {
	return mapAll(ds, func(d content.Diagnostic) *skillsv1.Diagnostic {
		return &skillsv1.Diagnostic{
			Source:   d.Kind,
			File:     d.Path,
			Severity: skillsv1.Severity_SEVERITY_WARNING,
			Code:     d.Code,
			Message:  d.Message,
		}
	})
}

package server

import (
	"context"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// ReadSkillFile reads one file of a skill (its folder, or a declared asset
// or script of its inheritance chain), a page at a time.
func (s *Service) ReadSkillFile(ctx context.Context, req *skillsv1.ReadSkillFileRequest) (*skillsv1.ReadSkillFileResponse, error) {
	snap, sk, err := s.current(ctx, req.GetSkipCache(), req.GetSkillPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	f, err := s.opts.Files.Read(snap, sk, assets.Request{File: req.GetFile(), Offset: req.GetOffset(), MaxBytes: req.GetMaxBytes()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	resp := &skillsv1.ReadSkillFileResponse{
		SkillPath:    f.SkillPath,
		File:         f.File,
		Binary:       !f.Text,
		SizeBytes:    f.Size,
		Type:         f.Type,
		MimeType:     f.MIME,
		ResolvedFrom: f.ResolvedFrom,
		Truncated:    f.Truncated,
		NextOffset:   f.NextOffset,
		Digest:       f.Digest,
	}
	if f.Text {
		resp.Text = string(f.Data)
	} else {
		resp.Data = f.Data
	}
	if req.GetOffset() == 0 { // one event per file read, not per page
		s.record(ctx, usage.AssetServed(f.SkillPath, f.File, f.Type, f.ResolvedFrom != "", f.Size))
	}
	return resp, nil
}

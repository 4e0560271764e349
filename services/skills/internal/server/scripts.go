package server

import (
	"context"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// RunScript runs a declared server script in the sandbox. The checks follow
// seed 000 §8.4's order: the global switch comes before the skill lookup.
func (s *Service) RunScript(ctx context.Context, req *skillsv1.RunScriptRequest) (*skillsv1.RunScriptResponse, error) {
	sb := s.opts.Scripts
	if err := sb.Enabled(); err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	snap := s.snapshot()
	sk, err := s.lookup(snap, req.GetSkillPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	res, err := sb.Run(ctx, snap, sk, sandbox.Request{File: req.GetFile(), Args: req.GetArgs(), Cwd: req.GetCwd()})
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	s.record(ctx, usage.ScriptExecuted(sk.Path, res.Script, "server", res.Success, res.ExitCode, res.Duration, argNames(req.GetArgs())))
	return &skillsv1.RunScriptResponse{
		Success:         res.Success,
		ExitCode:        int32(res.ExitCode),
		Stdout:          res.Stdout,
		Stderr:          res.Stderr,
		DurationMs:      res.Duration.Milliseconds(),
		Script:          res.Script,
		TimedOut:        res.TimedOut,
		StdoutTruncated: res.StdoutTruncated,
		StderrTruncated: res.StderrTruncated,
		Isolation:       toIsolation(res.Isolation),
	}, nil
}

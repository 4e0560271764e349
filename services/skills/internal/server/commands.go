package server

import (
	"context"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// RunCommand runs an allow-listed command in a skill's folder (seed 004's
// run_skill_command). The switch is checked before the skill is looked up,
// as for RunScript; a command that runs and fails or times out is an answer.
func (s *Service) RunCommand(ctx context.Context, req *skillsv1.RunCommandRequest) (*skillsv1.RunCommandResponse, error) {
	cmds := s.opts.Commands
	if err := cmds.Enabled(); err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	sk, err := s.lookup(s.snapshot(), req.GetSkillPath())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	res, err := cmds.Run(ctx, sk, req.GetCommand(), req.GetArgs())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	return &skillsv1.RunCommandResponse{
		Stdout:          res.Stdout,
		Stderr:          res.Stderr,
		ExitCode:        int32(res.ExitCode),
		TimedOut:        res.TimedOut,
		StdoutTruncated: res.StdoutTruncated,
		StderrTruncated: res.StderrTruncated,
		DurationMs:      res.Duration.Milliseconds(),
		Program:         res.Program,
		Isolation:       toIsolation(res.Isolation),
	}, nil
}

package server

import (
	"os"
	"runtime"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
)

func reasonOf(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

func TestRunCommand(t *testing.T) {
	dir := routingFolders(t)
	off := routingService(t, Options{}, dir)
	_, err := off.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "pdf", Command: "ls"})
	if status.Code(err) != codes.FailedPrecondition || reasonOf(err) != "COMMANDS_DISABLED" {
		t.Errorf("RunCommand without commands: got %v (%s), want FailedPrecondition COMMANDS_DISABLED", err, reasonOf(err))
	}
	if runtime.GOOS == "windows" {
		t.Skip("commands do not run on Windows")
	}
	on := routingService(t, Options{
		Commands: sandbox.NewCommands(sandbox.CommandOptions{Enabled: true, Allowed: []string{"ls"}, Runner: sandbox.NewRunner(sandbox.RunnerOptions{Path: os.Getenv("PATH")})}),
		Filter:   catalog.Filter{EnabledSkills: []string{"pdf", "docx"}},
	}, dir)
	resp, err := on.RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "pdf", Command: "ls"})
	if err != nil || resp.GetStdout() != "SKILL.md\n" || resp.GetExitCode() != 0 || resp.GetProgram() != "ls" {
		t.Errorf("RunCommand ls: got %v, %v; want SKILL.md listed", resp, err)
	}
	for _, tt := range []struct {
		req    *skillsv1.RunCommandRequest
		code   codes.Code
		reason string
	}{
		{&skillsv1.RunCommandRequest{SkillPath: "pdf", Command: "cat", Args: []string{"SKILL.md"}}, codes.PermissionDenied, "COMMAND_NOT_ALLOWED"},
		{&skillsv1.RunCommandRequest{SkillPath: "pdf", Command: "ls", Args: []string{".."}}, codes.InvalidArgument, "INVALID_PATH"},
		{&skillsv1.RunCommandRequest{SkillPath: "nope", Command: "ls"}, codes.NotFound, "SKILL_NOT_FOUND"},
		{&skillsv1.RunCommandRequest{SkillPath: "release-notes", Command: "ls"}, codes.PermissionDenied, "SKILL_DISABLED"},
	} {
		_, err := on.RunCommand(t.Context(), tt.req)
		if status.Code(err) != tt.code || reasonOf(err) != tt.reason {
			t.Errorf("RunCommand %v: got %v (%s), want %v %s", tt.req, err, reasonOf(err), tt.code, tt.reason)
		}
	}
}

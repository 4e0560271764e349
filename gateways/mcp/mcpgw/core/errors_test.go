package core

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// withInfo returns a status error carrying a skillsd ErrorInfo detail.
func withInfo(c codes.Code, msg, reason string, meta map[string]string) error {
	st, err := status.New(c, msg).WithDetails(&errdetails.ErrorInfo{Domain: errorDomain, Reason: reason, Metadata: meta})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

func TestErrorMessage(t *testing.T) {
	listOnly := func(name string) bool { return name == ToolListSkills || name == ToolLoadSkill }
	withSearch := func(name string) bool { return name != ToolReadSkillFile }
	tests := []struct {
		name  string
		err   error
		skill string
		has   func(string) bool
		want  string
	}{
		{
			name:  "not found with suggestions",
			err:   withInfo(codes.NotFound, `skill "pfd" not found; did you mean "pdf", "pdf-forms"?`, "SKILL_NOT_FOUND", map[string]string{"skill_path": "pfd", "suggestions": "pdf, pdf-forms,"}),
			skill: "pfd",
			has:   listOnly,
			want:  "Skill 'pfd' not found. Did you mean: pdf, pdf-forms? Use list_skills to see all skills.",
		},
		{
			name:  "not found without suggestions, search served",
			err:   withInfo(codes.NotFound, `skill "zzz" not found`, "SKILL_NOT_FOUND", nil),
			skill: "zzz",
			has:   withSearch,
			want:  "Skill 'zzz' not found. Use search_skills to find a skill for the task, or list_skills to see all skills.",
		},
		{
			name:  "not found without detail",
			err:   status.Error(codes.NotFound, "no such thing"),
			skill: "x",
			has:   listOnly,
			want:  "Skill 'x' not found. Use list_skills to see all skills.",
		},
		{
			name: "file not found",
			err:  withInfo(codes.NotFound, `file "a.txt" is not part of skill "pdf"`, "FILE_NOT_FOUND", nil),
			has:  listOnly,
			want: `file "a.txt" is not part of skill "pdf". load_skill lists the skill's files.`,
		},
		{
			name: "invalid argument",
			err:  withInfo(codes.InvalidArgument, `path "a/../b" is not a valid skill path`, "INVALID_PATH", nil),
			has:  listOnly,
			want: `path "a/../b" is not a valid skill path. Correct the arguments and call the tool again.`,
		},
		{
			name:  "quarantined skill",
			err:   withInfo(codes.PermissionDenied, `skill "x" is quarantined and not served: script.eicar (critical) at x/a.txt:1`, "SKILL_QUARANTINED", map[string]string{"skill_path": "x", "rules": "script.eicar"}),
			skill: "x",
			has:   listOnly,
			want:  `skill "x" is quarantined and not served: script.eicar (critical) at x/a.txt:1. Do not use this skill, do not retry, and do not look for its files elsewhere; tell the user it is quarantined by the server's security scan.`,
		},
		{
			name:  "disabled skill",
			err:   withInfo(codes.PermissionDenied, "skill is disabled", "SKILL_DISABLED", nil),
			skill: "secret",
			has:   listOnly,
			want:  "Skill 'secret' is not enabled on this server. Use list_skills to see all skills.",
		},
		{
			name: "forbidden",
			err:  withInfo(codes.PermissionDenied, "you may not read this", "FORBIDDEN", nil),
			has:  listOnly,
			want: "you may not read this. This server does not allow it; do not retry.",
		},
		{
			name: "unauthenticated",
			err:  status.Error(codes.Unauthenticated, "missing bearer token"),
			has:  listOnly,
			want: "The skills server refused the credentials of this MCP server. Retrying will not help: tell the user to check the token skills-mcp sends (--token-env).",
		},
		{
			name: "unavailable, transport details left out",
			err:  status.Error(codes.Unavailable, `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`),
			has:  listOnly,
			want: "The skills server is unreachable right now. Try again in a moment; if it keeps failing, tell the user that the skills server (skillsd) is not running or cannot be reached.",
		},
		{
			name: "catalog loading",
			err:  withInfo(codes.Unavailable, "the catalog is loading (cloning https://example.com/skills.git for the first time); try again in a moment", "CATALOG_LOADING", nil),
			has:  listOnly,
			want: "the catalog is loading (cloning https://example.com/skills.git for the first time); try again in a moment.",
		},
		{
			name: "deadline",
			err:  status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			has:  listOnly,
			want: "The skills server did not answer in time. Try again; if it keeps failing, tell the user.",
		},
		{
			name: "plain context deadline",
			err:  fmt.Errorf("calling: %w", context.DeadlineExceeded),
			has:  listOnly,
			want: "The skills server did not answer in time. Try again; if it keeps failing, tell the user.",
		},
		{
			name: "cancelled",
			err:  context.Canceled,
			has:  listOnly,
			want: "The call was cancelled before the skills server answered.",
		},
		{
			name: "refresh in progress",
			err:  withInfo(codes.FailedPrecondition, "a refresh is already running; try again when it ends", "REFRESH_IN_PROGRESS", nil),
			has:  listOnly,
			want: "a refresh is already running; try again when it ends.",
		},
		{
			name: "resource exhausted",
			err:  status.Error(codes.ResourceExhausted, "too many scripts running"),
			has:  listOnly,
			want: "too many scripts running. Wait a moment, then try again.",
		},
		{
			name: "unimplemented",
			err:  status.Error(codes.Unimplemented, "unknown method"),
			has:  listOnly,
			want: "The skills server does not support this operation (it may be older than this MCP server).",
		},
		{
			name: "internal",
			err:  status.Error(codes.Internal, "internal error"),
			has:  listOnly,
			want: "The skills server failed to answer: internal error. Try again; if it keeps failing, tell the user.",
		},
		{
			name: "internal without message",
			err:  status.Error(codes.Internal, ""),
			has:  listOnly,
			want: "The skills server failed to answer: Internal. Try again; if it keeps failing, tell the user.",
		},
		{
			name: "not a status",
			err:  errors.New("boom"),
			has:  listOnly,
			want: "The skills server failed to answer: boom. Try again; if it keeps failing, tell the user.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorMessage(tt.err, tt.skill, tt.has); got != tt.want {
				t.Errorf("ErrorMessage(%v, %q):\n got %q\nwant %q", tt.err, tt.skill, got, tt.want)
			}
		})
	}
}

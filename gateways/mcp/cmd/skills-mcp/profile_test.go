package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

func TestProfileArgs(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--profile", "skill-hub"}, "--profile: unknown profile"},
		{[]string{"--run-skill-command"}, "--run-skill-command needs --server"},
		{[]string{"--profile", "SkillHub"}, ""},
		{[]string{"--server", "127.0.0.1:1", "--profile", "skillhub", "--run-skill-command"}, ""},
	} {
		_, err := parseArgs(tt.args, func(string) string { return "" }, io.Discard)
		if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("parseArgs(%q) = %v, want error %q", tt.args, err, tt.wantErr)
		}
	}
}

func TestApplyProfile(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	embedded := service{settings: &skillsd.MCPSettings{Profile: "sk", RunSkillCommand: true}}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SKILLS_MCP_PROFILE" {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		name    string
		o       options
		svc     service
		env     string
		want    string
		wantRun bool
		wantErr string
	}{
		{"default", options{}, service{}, "", mcpgw.ProfileNative, false, ""},
		{"config", options{}, embedded, "", mcpgw.ProfileSk, true, ""},
		{"env over config", options{}, embedded, "universal-skills", mcpgw.ProfileUniversalSkills, true, ""},
		{"flag over env", options{profile: "skillhub"}, embedded, "universal-skills", mcpgw.ProfileSkillHub, true, ""},
		{"remote flag", options{profile: "skillhub", server: "x", runSkillCommand: true}, service{}, "", mcpgw.ProfileSkillHub, true, ""},
		{"remote default off", options{profile: "skillhub", server: "x"}, service{}, "", mcpgw.ProfileSkillHub, false, ""},
		{"bad env", options{}, service{}, "nope", "", false, "SKILLS_MCP_PROFILE"},
		{"run flag, other profile", options{server: "x", runSkillCommand: true}, service{}, "", "", false, "skillhub profile"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var m mcpgw.Options
			err := applyProfile(&m, tt.o, tt.svc, env(tt.env), log)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || m.Profile != tt.want || m.RunSkillCommand != tt.wantRun {
				t.Errorf("got profile %q, run %v, err %v; want %q, %v", m.Profile, m.RunSkillCommand, err, tt.want, tt.wantRun)
			}
		})
	}
}

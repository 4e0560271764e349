package main

import (
	"cmp"
	"flag"
	"log/slog"
	"strings"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
)

// profileFlags declares the flags that choose the MCP tool set.
func profileFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.profile, "profile", "", "the MCP tool set: "+strings.Join(mcpgw.Profiles(), ", ")+
		" (default SKILLS_MCP_PROFILE, then the config's mcp.profile, then native)")
	fs.BoolVar(&o.runSkillCommand, "run-skill-command", false,
		"with --server and --profile skillhub: serve run_skill_command (the remote skillsd must enable commands.enabled); embedded, commands.enabled decides")
}

// checkProfileArgs checks the profile flags on their own.
func checkProfileArgs(o options) error {
	if o.profile != "" {
		if _, err := mcpgw.ParseProfile(o.profile); err != nil {
			return usagef("--profile: %v", err)
		}
	}
	if o.runSkillCommand && o.server == "" {
		return usagef("--run-skill-command needs --server: with an embedded service, set commands.enabled: true in its config instead")
	}
	return nil
}

// applyProfile sets the tool set of mopts: --profile, else SKILLS_MCP_PROFILE,
// else the embedded service's mcp.profile (which already holds
// SKILLS_MCP_PROFILE), else native. run_skill_command follows the embedded
// service's commands.enabled, or --run-skill-command for a remote one.
func applyProfile(mopts *mcpgw.Options, o options, svc service, getenv func(string) string, log *slog.Logger) error {
	name, source := o.profile, "--profile"
	if name == "" {
		name, source = strings.TrimSpace(getenv("SKILLS_MCP_PROFILE")), "SKILLS_MCP_PROFILE"
	}
	if name == "" && svc.settings != nil {
		name, source = svc.settings.Profile, "mcp.profile"
	}
	profile, err := mcpgw.ParseProfile(name)
	if err != nil {
		return usagef("%s: %v", source, err)
	}
	mopts.Profile = profile
	if svc.settings != nil {
		mopts.RunSkillCommand = svc.settings.RunSkillCommand
	} else {
		mopts.RunSkillCommand = o.runSkillCommand
	}
	if o.runSkillCommand && profile != mcpgw.ProfileSkillHub {
		return usagef("--run-skill-command serves a tool of the skillhub profile, but the profile is %s", profile)
	}
	if profile != mcpgw.ProfileNative {
		log.Info("serving a compatibility profile", "profile", profile, "from", cmp.Or(source, "default"),
			"run_skill_command", profile == mcpgw.ProfileSkillHub && mopts.RunSkillCommand)
	}
	return nil
}

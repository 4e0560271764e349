package skillsd

import (
	"log/slog"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
)

// commandRunner runs seed 004's allow-listed commands as the configuration
// asks (commands.*), with the same minimal environment as scripts.
func commandRunner(cfg config.Config, home string, getenv func(string) string, log *slog.Logger) *sandbox.Commands {
	return sandbox.NewCommands(sandbox.CommandOptions{
		Enabled:        cfg.Commands.Enabled,
		Allowed:        cfg.Commands.Allowed,
		Timeout:        cfg.Commands.Timeout(),
		MaxOutputBytes: cfg.Commands.MaxOutputBytes,
		Path:           getenv("PATH"),
		Home:           home,
		Lang:           getenv("LANG"),
		TempDir:        getenv("TMPDIR"),
		Logger:         log,
	})
}

// MCPSettings are the settings of the MCP gateway that the service's
// configuration holds, for an MCP gateway embedding this server.
type MCPSettings struct {
	// Profile is mcp.profile (SKILLS_MCP_PROFILE): the MCP tool set to serve.
	Profile string
	// RunSkillCommand is commands.enabled: whether the skillhub profile
	// serves run_skill_command.
	RunSkillCommand bool
}

// MCPSettings returns the MCP gateway's settings of the configuration.
func (s *Server) MCPSettings() MCPSettings {
	return MCPSettings{Profile: s.cfg.MCP.Profile, RunSkillCommand: s.cfg.Commands.Enabled}
}

// RESTSettings are the settings of the REST gateway that the service's
// configuration holds, for a REST gateway embedding this server.
type RESTSettings struct {
	// CORSOrigins is rest.cors_origins: the origins whose pages may call the
	// REST API from a browser; empty for none.
	CORSOrigins []string
}

// RESTSettings returns the REST gateway's settings of the configuration.
func (s *Server) RESTSettings() RESTSettings {
	return RESTSettings{CORSOrigins: append([]string{}, s.cfg.REST.CORSOrigins...)}
}

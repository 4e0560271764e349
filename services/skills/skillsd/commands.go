package skillsd

import (
	"log/slog"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
)

// processRunner is the one runner of every process the service starts,
// scripts and commands alike: one concurrency limit (scripts.max_concurrent),
// one environment built from a few variables of the server's (PATH, LANG,
// TMPDIR, read through getenv) and its home folder — nothing else of the
// server's environment reaches a process — and one kernel isolation
// (scripts.allow_network, scripts.require_isolation, scripts.read_paths).
func processRunner(cfg config.Config, home, cwd string, getenv func(string) string, log *slog.Logger) *sandbox.Runner {
	return sandbox.NewRunner(sandbox.RunnerOptions{
		MaxConcurrent:    cfg.Scripts.MaxConcurrent,
		Path:             getenv("PATH"),
		Home:             home,
		Lang:             getenv("LANG"),
		TempDir:          getenv("TMPDIR"),
		ReadPaths:        configPaths(cfg.Scripts.ReadPaths, home, cwd, getenv),
		AllowNetwork:     cfg.Scripts.AllowNetwork,
		RequireIsolation: cfg.Scripts.RequireIsolation,
		Logger:           log,
	})
}

// commandRunner runs seed 004's allow-listed commands as the configuration
// asks (commands.*), through run, the runner they share with scripts.
func commandRunner(cfg config.Config, run *sandbox.Runner, log *slog.Logger) *sandbox.Commands {
	return sandbox.NewCommands(sandbox.CommandOptions{
		Enabled:        cfg.Commands.Enabled,
		Allowed:        cfg.Commands.Allowed,
		Timeout:        cfg.Commands.Timeout(),
		MaxOutputBytes: cfg.Commands.MaxOutputBytes,
		Runner:         run,
		Logger:         log,
	})
}

// SandboxHelper must be the first call of main in every binary that embeds
// the service (skillsd, skills-mcp, skills-rest, skills), and of TestMain
// in every test package that runs scripts or commands. In a normal start it
// returns at once; when a Runner re-executes the binary to start a script or
// command, it confines the process with Landlock and becomes that script or
// command, never returning. A binary that does not call it runs scripts
// without Landlock, and says so in GetCatalogStatus and in every result.
func SandboxHelper() { sandbox.Helper() }

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

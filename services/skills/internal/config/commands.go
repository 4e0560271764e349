package config

import (
	"strings"
	"time"
)

// Commands configures seed 004's run_skill_command (the skillhub MCP
// profile, and ScriptService.RunCommand): allow-listed commands run with a
// skill's folder as their working directory, in the scripts' sandbox.
type Commands struct {
	// Enabled is the switch; off by default (seed 004 ships the tool disabled).
	Enabled bool `yaml:"enabled"`
	// Allowed lists the command names that may run (ALLOWED_COMMANDS). A list
	// in config.yaml replaces the default list.
	Allowed []string `yaml:"allowed"`
	// TimeoutSeconds after which the command's process group is killed
	// (EXEC_TIMEOUT_SECONDS, 1..86400).
	TimeoutSeconds int `yaml:"timeout_seconds"`
	// MaxOutputBytes caps stdout and stderr each (EXEC_MAX_OUTPUT_BYTES,
	// 1 to 64 MiB).
	MaxOutputBytes int64 `yaml:"max_output_bytes"`
}

// Timeout is TimeoutSeconds as a duration.
func (c Commands) Timeout() time.Duration {
	return time.Duration(c.TimeoutSeconds) * time.Second
}

func (c Commands) validate() *Error {
	if c.TimeoutSeconds < 1 || c.TimeoutSeconds > 86400 {
		return errorf("commands.timeout_seconds", "must be 1 to 86400 seconds, got %d", c.TimeoutSeconds)
	}
	if c.MaxOutputBytes < 1 || c.MaxOutputBytes > 64<<20 {
		return errorf("commands.max_output_bytes", "must be 1 to 67108864 bytes, got %d", c.MaxOutputBytes)
	}
	for i, name := range c.Allowed {
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "/\\ \t") {
			return errorf("commands.allowed", "item %d (%s) must be a program name, without a path or spaces", i+1, quote(name))
		}
	}
	return nil
}

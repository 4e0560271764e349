package config

import (
	"path/filepath"
	"strings"

	"github.com/skillsd/skillsd/services/skills/userpath"
)

// StateDir is the folder that holds all local state (git caches, the analytics
// spool, stored aggregates): SKILLSD_HOME if set, else c.StateDir, else
// ~/.skillsd. "~" and $VAR are expanded with userpath.Expand (MCP hosts do
// not run a shell). It is empty only when none is set and home is unknown. A
// nil getenv reads nothing.
func StateDir(c Config, getenv func(string) string, home string) string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if v := strings.TrimSpace(getenv("SKILLSD_HOME")); v != "" {
		return userpath.Expand(v, home, getenv)
	}
	if c.StateDir != "" {
		return userpath.Expand(c.StateDir, home, getenv)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".skillsd")
}

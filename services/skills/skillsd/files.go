package skillsd

import (
	"log/slog"

	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// fileReader is the reader of skill files the configuration asks for
// (assets.max_size_bytes, assets.max_file_bytes).
func fileReader(cfg config.Config) *assets.Reader {
	return assets.New(assets.Options{MaxSizeBytes: cfg.Assets.MaxSizeBytes, PageBytes: cfg.Assets.MaxFileBytes})
}

// scriptSandbox is the sandbox the configuration asks for (scripts.*), whose
// scripts start through run, the runner they share with commands.
func scriptSandbox(cfg config.Config, home, cwd string, getenv func(string) string, run *sandbox.Runner, log *slog.Logger) *sandbox.Sandbox {
	return sandbox.New(sandbox.Options{
		Enabled:           cfg.Scripts.Enabled,
		Timeout:           cfg.Scripts.Timeout(),
		MaxOutputBytes:    cfg.Scripts.MaxOutputBytes,
		AllowedExtensions: cfg.Scripts.AllowedExtensions,
		Runners:           cfg.Scripts.Runners,
		CwdAllow:          configPaths(cfg.Scripts.CwdAllow, home, cwd, getenv),
		Runner:            run,
		Logger:            log,
	})
}

// configPaths expands "~" and $VAR in the folders of a config list and makes
// them absolute (relative to cwd); empty results are dropped.
func configPaths(list []string, home, cwd string, getenv func(string) string) []string {
	var out []string
	for _, d := range list {
		if userpath.Expand(d, home, getenv) == "" {
			continue
		}
		out = append(out, userpath.Abs(d, cwd, home, getenv))
	}
	return out
}

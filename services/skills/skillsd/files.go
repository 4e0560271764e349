package skillsd

import (
	"log/slog"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// fileReader is the reader of skill files the configuration asks for
// (assets.max_size_bytes, assets.max_file_bytes).
func fileReader(cfg config.Config) *assets.Reader {
	return assets.New(assets.Options{MaxSizeBytes: cfg.Assets.MaxSizeBytes, PageBytes: cfg.Assets.MaxFileBytes})
}

// scriptSandbox is the sandbox the configuration asks for (scripts.*). The
// scripts' environment is built here from a few variables of the server's
// (PATH, LANG, TMPDIR, read through getenv) and its home folder; nothing else
// of the server's environment reaches a script.
func scriptSandbox(cfg config.Config, home, cwd string, getenv func(string) string, log *slog.Logger) *sandbox.Sandbox {
	var allow []string
	for _, d := range cfg.Scripts.CwdAllow {
		if d = source.ExpandPath(d, home, getenv); d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		allow = append(allow, filepath.Clean(d))
	}
	return sandbox.New(sandbox.Options{
		Enabled:           cfg.Scripts.Enabled,
		Timeout:           cfg.Scripts.Timeout(),
		MaxOutputBytes:    cfg.Scripts.MaxOutputBytes,
		AllowedExtensions: cfg.Scripts.AllowedExtensions,
		Runners:           cfg.Scripts.Runners,
		MaxConcurrent:     cfg.Scripts.MaxConcurrent,
		CwdAllow:          allow,
		Path:              getenv("PATH"),
		Home:              home,
		Lang:              getenv("LANG"),
		TempDir:           getenv("TMPDIR"),
		Logger:            log,
	})
}

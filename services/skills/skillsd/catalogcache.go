package skillsd

import (
	"log/slog"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/config"
)

// newCatalogCache is the catalog cache in the state folder, beside the scan
// cache: what the builds parsed and hashed, kept for the first build of the
// next start of this version (catalog.Cache), so that it parses and hashes
// only the files changed meanwhile. Nil without a state folder.
func newCatalogCache(cfg config.Config, getenv func(string) string, home, version string, log *slog.Logger) *catalog.Cache {
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		return nil
	}
	return catalog.NewCache(filepath.Join(state, catalog.CacheFileName()), version, log)
}

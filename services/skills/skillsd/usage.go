package skillsd

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// openUsage opens the usage recorder when analytics is on (analytics.enabled,
// or ANALYTICS_ENDPOINT): spool and store under <state folder>/analytics. It
// returns nil when analytics is off.
func openUsage(ctx context.Context, cfg config.Config, getenv func(string) string, home string, log *slog.Logger) (*usage.Recorder, error) {
	a := cfg.Analytics
	if !a.Enabled {
		return nil, nil
	}
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		return nil, fmt.Errorf("analytics is on but there is no folder for its spool: set SKILLSD_HOME or state_dir")
	}
	serverID := a.ServerID
	if serverID == "" {
		serverID = usage.DefaultServerID(getenv)
	}
	dir := filepath.Join(state, "analytics")
	rec, err := usage.Open(ctx, usage.Options{
		Dir:           dir,
		Endpoint:      a.Endpoint,
		FlushInterval: a.FlushInterval(),
		MaxSpoolBytes: a.MaxSpoolBytes,
		ServerID:      serverID,
		Logger:        log.With("component", "usage"),
	})
	if err != nil {
		return nil, fmt.Errorf("analytics: %w (set SKILLSD_HOME to a writable folder, or turn analytics off)", err)
	}
	log.Info("analytics on", "folder", dir, "server_id", serverID, "endpoint_set", a.Endpoint != "", "flush_interval", a.FlushInterval())
	return rec, nil
}

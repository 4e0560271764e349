package skillsd

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// openUsage opens the usage recorder when analytics is on (the default;
// analytics.enabled: false turns it off): spool and store under <state
// folder>/analytics, events posted to analytics.endpoint (ANALYTICS_ENDPOINT)
// only when one is set. It returns nil when analytics is off.
//
// The local store alone is best effort: a server with no folder for it, or
// one it cannot open (a read-only home), serves on without analytics and
// says so in the log, since several skills-mcp processes (one per editor
// window) start with it on by default. With an endpoint set, the spool is
// what makes delivery reliable, so not having it stops start-up.
func openUsage(ctx context.Context, cfg config.Config, getenv func(string) string, home string, log *slog.Logger) (*usage.Recorder, error) {
	a := cfg.Analytics
	if !a.Enabled {
		return nil, nil
	}
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		if a.Endpoint != "" {
			return nil, fmt.Errorf("analytics.endpoint is set but there is no folder for its spool: set SKILLSD_HOME or state_dir")
		}
		log.Warn("usage analytics off: no folder for the local store (set SKILLSD_HOME or state_dir); report_usage answers recorded: false")
		return nil, nil
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
		if a.Endpoint != "" {
			return nil, fmt.Errorf("analytics: %w (set SKILLSD_HOME to a writable folder, or turn analytics off)", err)
		}
		log.Warn("usage analytics off: the local store cannot be opened (set SKILLSD_HOME to a writable folder, or analytics.enabled: false); report_usage answers recorded: false",
			"folder", dir, "error", err)
		return nil, nil
	}
	log.Info("usage analytics on", "folder", dir, "server_id", serverID, "forwarding", a.Endpoint != "", "flush_interval", a.FlushInterval())
	return rec, nil
}

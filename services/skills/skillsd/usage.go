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
// analytics.enabled: false turns it off): the spool under <state
// folder>/analytics, the store there too (SQLite) or in the PostgreSQL
// database of analytics.store (SKILLSD_DATABASE_URL), events posted to
// analytics.endpoint (ANALYTICS_ENDPOINT) only when one is set. It returns
// nil when analytics is off.
//
// The local store alone is best effort: a server with no folder for it, or
// one it cannot open (a read-only home), serves on without analytics and
// says so in the log, since several skills-mcp processes (one per editor
// window) start with it on by default. With an endpoint or a PostgreSQL
// store set, the spool is what makes delivery reliable, so not having it
// stops start-up, as does a database that refuses the server.
//
// after (Options.UsageAfter) defers opening the local store, when it is the
// only one.
func openUsage(ctx context.Context, cfg config.Config, getenv func(string) string, home string, after <-chan struct{}, log *slog.Logger) (*usage.Recorder, error) {
	a := cfg.Analytics
	if !a.Enabled {
		return nil, nil
	}
	var required string // the key that makes the spool necessary
	switch {
	case a.PostgresStore():
		required = "analytics.store"
	case a.Endpoint != "":
		required = "analytics.endpoint"
	}
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		if required != "" {
			return nil, fmt.Errorf("%s is set but there is no folder for the spool of usage events: set SKILLSD_HOME or state_dir", required)
		}
		log.Warn("usage analytics off: no folder for the local store (set SKILLSD_HOME or state_dir); report_usage answers recorded: false")
		return nil, nil
	}
	serverID := a.ServerID
	if serverID == "" {
		serverID = usage.DefaultServerID(getenv)
	}
	dir := filepath.Join(state, "analytics")
	ulog := log.With("component", "usage")
	var store usage.Store
	storeName := "sqlite " + filepath.Join(dir, "usage.db")
	if a.PostgresStore() {
		st, err := usage.OpenPostgres(ctx, a.Store, usage.StoreOptions{Logger: ulog})
		if err != nil {
			return nil, fmt.Errorf("analytics.store: %w", err)
		}
		store, storeName = st, fmt.Sprint(st)
	}
	// Why analytics is off when the local store does not open.
	storeOff := func(err error) {
		log.Warn("usage analytics off: the local store cannot be opened (set SKILLSD_HOME to a writable folder, or analytics.enabled: false); report_usage answers recorded: false",
			"folder", dir, "error", err)
	}
	var storeAfter <-chan struct{}
	if store == nil && required == "" {
		storeAfter = after
	}
	rec, err := usage.Open(ctx, usage.Options{
		Dir:           dir,
		Store:         store,
		Endpoint:      a.Endpoint,
		FlushInterval: a.FlushInterval(),
		MaxSpoolBytes: a.MaxSpoolBytes,
		ServerID:      serverID,
		Logger:        ulog,
		StoreAfter:    storeAfter,
		OnStoreError:  storeOff,
	})
	if err != nil {
		if required != "" {
			return nil, fmt.Errorf("analytics: %w (set SKILLSD_HOME to a writable folder, or turn analytics off)", err)
		}
		storeOff(err)
		return nil, nil
	}
	opens := "at start"
	if storeAfter != nil {
		opens = "after the first answers"
	}
	log.Info("usage analytics on", "folder", dir, "store", storeName, "server_id", serverID, "forwarding", a.Endpoint != "", "flush_interval", a.FlushInterval(),
		"store_opens", opens)
	return rec, nil
}

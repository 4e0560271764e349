package usage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

var sqliteDialect = &dialect{
	name:     "sqlite",
	greatest: "max",
	least:    "min",
	// A deferred transaction: it reads one snapshot of the WAL database
	// and takes no write lock.
	readTx: &sql.TxOptions{ReadOnly: true},
	// Writers of other processes held the database longer than the busy
	// timeout (10 s): the transaction is tried again.
	retryable: func(err error) bool {
		var se *sqlite.Error
		if !errors.As(err, &se) {
			return false
		}
		code := se.Code() & 0xff
		return code == 5 || code == 6 // SQLITE_BUSY, SQLITE_LOCKED
	},
}

// OpenSQLite opens (creating, migrating) the SQLite store at path. SQLite
// (the pure-Go modernc.org/sqlite, so no cgo) because several processes
// share one SKILLSD_HOME (one skills-mcp per editor window) and WAL lets
// them all read and write one database. A database written by skillsd
// before the store had versioned migrations is converted in place.
func OpenSQLite(ctx context.Context, path string, opts StoreOptions) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the usage store's folder: %w", err)
	}
	q := url.Values{}
	// The busy timeout first, so that it covers the pragmas after it on
	// every new connection. WAL: readers and one writer at a time across
	// processes; FULL: a committed batch survives a power loss (the spool
	// segment it came from may be removed right after); immediate: a
	// writing transaction takes the write lock when it begins, so two never
	// deadlock upgrading.
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening the usage store %s: %w", path, err)
	}
	db.SetMaxOpenConns(cmp.Or(max(opts.MaxConns, 0), 4))
	s := &sqlStore{db: db, d: sqliteDialect, where: path, log: opts.logger()}
	s.migrate = s.migrateSQLite
	if err := s.readyAtOpen(ctx); err != nil {
		_ = db.Close()
		if Unavailable(err) || isFailure(err) {
			return nil, err
		}
		return nil, fmt.Errorf("preparing the usage store %s: %w", path, err)
	}
	// Table statistics for the query planner, refreshed where they are
	// stale (SQLite's advice for every new connection; quick).
	if _, err := db.ExecContext(ctx, `PRAGMA optimize=0x10002`); err != nil {
		s.log.Debug("usage store: PRAGMA optimize failed", "err", err)
	}
	return s, nil
}

// readyAtOpen makes the store ready (ensureReady), trying again a few
// times, shortly, when SQLite answers busy at once: it does so without its
// busy timeout where waiting could deadlock, as when stores opening
// together on a fresh SKILLSD_HOME (one per editor window) switch the new
// database to WAL (TestStoreMigratesOnce failed 3 times in 80 runs under
// the race detector).
func (s *sqlStore) readyAtOpen(ctx context.Context) error {
	err := s.ensureReady(ctx)
	for wait := 20 * time.Millisecond; err != nil && s.d.retryable(err) && wait <= time.Second; wait *= 2 {
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		s.readyMu.Lock()
		s.lastTry = time.Time{} // not the throttle of a database that is away
		s.readyMu.Unlock()
		err = s.ensureReady(ctx)
	}
	return err
}

// legacyTable is the one table of the store before versioned migrations.
const legacyTable = "events"

// migrateSQLite applies the migrations in one immediate transaction (the
// write lock makes it the only migrator among the processes sharing the
// file), then moves the events of a legacy table, if any, into the store.
func (s *sqlStore) migrateSQLite(ctx context.Context) (int, error) {
	return s.migrateIn(ctx, nil, func(tx *sql.Tx) error {
		if err := s.importLegacy(ctx, tx); err != nil {
			return fmt.Errorf("moving the events of the previous store format: %w", err)
		}
		return nil
	})
}

// importLegacy stores the events of the legacy table (id, type, ts,
// server_id, skill_path, context, data) through the ingest path, so that
// they are derived and rolled up like new ones, then drops it.
func (s *sqlStore) importLegacy(ctx context.Context, tx *sql.Tx) error {
	var name string
	err := tx.QueryRowContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, legacyTable).Scan(&name)
	if err == sql.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	after, moved, skipped := "", 0, 0
	for {
		var batch []row
		last := after
		err := func() error {
			rs, err := tx.QueryContext(ctx, `SELECT id, type, ts, server_id, data FROM `+legacyTable+` WHERE id > ? ORDER BY id LIMIT 1000`, after)
			if err != nil {
				return err
			}
			defer func() { _ = rs.Close() }()
			for rs.Next() {
				var e Event
				var ts int64
				var data string
				if err := rs.Scan(&e.ID, &e.Type, &ts, &e.ServerID, &data); err != nil {
					return err
				}
				last = e.ID
				e.Timestamp = time.Unix(0, ts).UTC()
				if json.Unmarshal([]byte(data), &e.Data) != nil || e.Validate() != nil {
					skipped++
					continue
				}
				r, err := derive(&e)
				if err != nil {
					skipped++
					continue
				}
				batch = append(batch, r)
			}
			return rs.Err()
		}()
		if err != nil {
			return err
		}
		if last == after {
			break
		}
		after = last
		n, err := s.ingestTx(ctx, tx, batch)
		if err != nil {
			return err
		}
		moved += n
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE `+legacyTable); err != nil {
		return err
	}
	s.log.Info("usage store converted to the versioned format", "store", s.where, "events", moved, "skipped", skipped)
	return nil
}

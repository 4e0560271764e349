package usage

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Store keeps every event it is given, once (by id), and answers the
// aggregates of Stats. Two implementations share one schema and one set of
// queries: SQLite under SKILLSD_HOME (OpenSQLite, the embedded default) and
// PostgreSQL (OpenPostgres), shared by every replica of a fleet. Both are
// safe for concurrent use, by goroutines and by processes.
type Store interface {
	// Ingest stores the events whose ids the store does not hold yet, in one
	// transaction, and reports how many it stored and how many it already
	// had (an id twice in events counts once). Events must be valid
	// (Event.Validate).
	Ingest(ctx context.Context, events []Event) (accepted, duplicates int, err error)
	// Stats aggregates the events of a window.
	Stats(ctx context.Context, w Window) (*Stats, error)
	// Close releases the database.
	Close() error
}

// StoreOptions configures OpenSQLite and OpenPostgres.
type StoreOptions struct {
	// Logger receives the store's log (migrations, an unreachable
	// database); nil discards it.
	Logger *slog.Logger
	// MaxConns caps the store's connections; zero means 4 for SQLite and
	// 8 for PostgreSQL.
	MaxConns int
}

func (o StoreOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Window is the time range of a Stats query: [Start, End).
type Window struct {
	Start, End time.Time
	// SkillPath narrows the per-skill rows to one skill; "" is every skill.
	SkillPath string
	// TopN is how many top contexts to return.
	TopN int
	// Comments is how many recent comments to return per skill.
	Comments int
}

// SkillStats is one skill's usage over a window.
type SkillStats struct {
	SkillPath            string
	Served               int64
	AmbiguousAppearances int64
	Useful, NotUseful    int64
	RecentComments       []string // newest first
	LastServed           time.Time
}

// ContextCount is a context (or search query) and how often it was seen.
type ContextCount struct {
	Context string
	Count   int64
}

// DayCount is one UTC day's counts.
type DayCount struct {
	Day                                            string // YYYY-MM-DD
	Served, NoMatch, Ambiguous, Searches, Feedback int64
}

// Stats is the aggregates of a window.
type Stats struct {
	Skills       []SkillStats // most served first
	TopNoMatch   []ContextCount
	TopAmbiguous []ContextCount
	ByDay        []DayCount // oldest first
	TotalEvents  int64
}

// dayNanos and hourNanos are a UTC day and hour in Unix nanoseconds.
const (
	dayNanos  = int64(24 * time.Hour)
	hourNanos = int64(time.Hour)
)

// maxKeyBytes bounds a skill path in the day rollups' keys (a PostgreSQL
// index entry holds at most about 2.7 kB); a longer one is cut there.
const maxKeyBytes = 1024

// retryReadyAfter is how long a failed migration answers for the calls
// after it before the next one tries again.
const retryReadyAfter = time.Second

// maxParams bounds the parameters of one statement (SQLite allows 32766,
// PostgreSQL 65535).
const maxParams = 8192

// sqlStore is the Store over database/sql: the same statements for SQLite
// and PostgreSQL, but for the placeholders and two function names (dialect).
//
// Every event is stored with the fields the aggregates need, derived once in
// Go (derive), so both databases count alike. Rollups by UTC day and by UTC
// hour (usage_days, usage_skill_days, usage_context_days and their _hours
// twins), updated in the transaction that stores the events and only for
// the events it stored, answer the whole days of a window and the whole
// hours of its first and last days; the events answer the rest. So a 30-day
// window reads about 30 + 46 rollup rows per skill and two hours of events,
// however many events the store holds; the top contexts are found among
// the few that can reach them (topContexts).
type sqlStore struct {
	db    *sql.DB
	d     *dialect
	where string // the database, for messages (never credentials)
	log   *slog.Logger

	// ready is set once the schema is known to be current; until then
	// every call first tries to migrate (PostgreSQL, when the database was
	// unreachable at start).
	ready   atomic.Bool
	readyMu sync.Mutex
	migrate func(ctx context.Context) (applied int, err error)
	// lastTry and lastErr are the last failed migration (under readyMu).
	lastTry time.Time
	lastErr error
	// migrations counts the migrations this store applied (tests).
	migrations atomic.Int64
	// prunedTops and fullTops count how topContexts answered (tests).
	prunedTops, fullTops atomic.Int64
	// rawOnly answers Stats from the events alone, without the rollups
	// (benchmarks compare the two; set before use).
	rawOnly bool
}

// ensureReady migrates the schema if that has not succeeded yet.
func (s *sqlStore) ensureReady(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	if s.ready.Load() {
		return nil
	}
	// While the database is away, calls that queue here fail with the
	// last attempt's error rather than each waiting for its own.
	if time.Since(s.lastTry) < retryReadyAfter {
		return s.lastErr
	}
	n, err := s.migrate(ctx)
	if err != nil {
		s.lastTry, s.lastErr = time.Now(), err
		return err
	}
	s.migrations.Add(int64(n))
	if n > 0 {
		s.log.Info("usage store schema migrated", "store", s.where, "migrations", n)
	}
	s.ready.Store(true)
	return nil
}

// Close closes the database.
func (s *sqlStore) Close() error { return s.db.Close() }

// String names the store for logs: its kind and database, never a password.
func (s *sqlStore) String() string { return s.d.name + " " + s.where }

// Ingest implements Store.
func (s *sqlStore) Ingest(ctx context.Context, events []Event) (accepted, duplicates int, err error) {
	if len(events) == 0 {
		return 0, 0, nil
	}
	if err := s.ensureReady(ctx); err != nil {
		return 0, 0, s.d.fail(ctx, "storing usage events", err)
	}
	rows := make([]row, 0, len(events))
	seen := make(map[string]struct{}, len(events))
	for i := range events {
		if _, dup := seen[events[i].ID]; dup {
			continue
		}
		seen[events[i].ID] = struct{}{}
		r, err := derive(&events[i])
		if err != nil {
			return 0, 0, fmt.Errorf("usage store: %w", err)
		}
		rows = append(rows, r)
	}
	// One order for every writer, so that concurrent transactions take
	// their locks in the same order and never deadlock each other.
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.id, b.id) })
	for attempt := 1; ; attempt++ {
		n, err := s.ingestOnce(ctx, rows)
		if err == nil {
			return n, len(events) - n, nil
		}
		if attempt < 5 && s.d.retryable(err) && ctx.Err() == nil {
			continue
		}
		return 0, 0, s.d.fail(ctx, "storing usage events", err)
	}
}

func (s *sqlStore) ingestOnce(ctx context.Context, rows []row) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	n, err := s.ingestTx(ctx, tx, rows)
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// ingestTx stores rows (distinct ids, sorted) in tx with their rollups, and
// returns how many were new.
func (s *sqlStore) ingestTx(ctx context.Context, tx *sql.Tx, rows []row) (int, error) {
	stored := make(map[string]struct{}, len(rows))
	vals := make([][]any, len(rows))
	for i, r := range rows {
		vals[i] = []any{r.id, r.typ, r.ts, r.day, r.serverID, r.skillPath, r.context, r.contextKey, r.useful, r.noResult, r.comment, r.data}
	}
	err := s.insert(ctx, tx,
		`INSERT INTO usage_events (id, type, ts, day, server_id, skill_path, context, context_key, useful, no_result, comment, data)`,
		`ON CONFLICT (id) DO NOTHING RETURNING id`, vals, func(rs *sql.Rows) error {
			var id string
			if err := rs.Scan(&id); err != nil {
				return err
			}
			stored[id] = struct{}{}
			return nil
		})
	if err != nil || len(stored) == 0 {
		return 0, err
	}
	newRows := rows[:0:0]
	for _, r := range rows {
		if _, ok := stored[r.id]; ok {
			newRows = append(newRows, r)
		}
	}
	if err := s.writeRollups(ctx, tx, newRows); err != nil {
		return 0, err
	}
	return len(newRows), nil
}

// insert runs head VALUES (…), (…) tail over vals, as few statements as
// the parameter limit allows; each, when set, reads the rows returned.
func (s *sqlStore) insert(ctx context.Context, tx *sql.Tx, head, tail string, vals [][]any, each func(*sql.Rows) error) error {
	if len(vals) == 0 {
		return nil
	}
	cols := len(vals[0])
	tuple := "(" + strings.Repeat("?, ", cols-1) + "?)"
	per := max(1, maxParams/cols)
	for len(vals) > 0 {
		n := min(per, len(vals))
		chunk := vals[:n]
		vals = vals[n:]
		var q strings.Builder
		q.WriteString(head)
		q.WriteString(" VALUES ")
		args := make([]any, 0, n*cols)
		for i, v := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(tuple)
			args = append(args, v...)
		}
		q.WriteString(" ")
		q.WriteString(tail)
		stmt := s.d.rebind(q.String())
		if each == nil {
			if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
				return err
			}
			continue
		}
		rs, err := tx.QueryContext(ctx, stmt, args...)
		if err != nil {
			return err
		}
		for rs.Next() {
			if err := each(rs); err != nil {
				_ = rs.Close()
				return err
			}
		}
		if err := rs.Close(); err != nil {
			return err
		}
		if err := rs.Err(); err != nil {
			return err
		}
	}
	return nil
}

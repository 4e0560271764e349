package usage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

// Store keeps every event it is given, once (by id), in an SQLite database,
// and answers the aggregate queries of Stats. SQLite (the pure-Go
// modernc.org/sqlite, so no cgo) because several processes share one
// SKILLSD_HOME (one skills-mcp per editor window) and WAL lets them all read
// and write one database, and because the aggregates are GROUP BY queries
// over an indexed time range. It is safe for concurrent use.
type Store struct {
	db *sql.DB
}

const schema = `
CREATE TABLE IF NOT EXISTS events (
	id         TEXT PRIMARY KEY,
	type       TEXT NOT NULL,
	ts         INTEGER NOT NULL, -- Unix nanoseconds
	server_id  TEXT NOT NULL,
	skill_path TEXT NOT NULL,    -- data.skill_path, '' when none
	context    TEXT NOT NULL,    -- data.context, or data.query for search
	data       TEXT NOT NULL     -- the data fields, JSON
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_type_ts ON events (type, ts);
CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
`

// OpenStore opens (creating) the database at path.
func OpenStore(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the usage store's folder: %w", err)
	}
	q := url.Values{}
	// WAL: readers and one writer at a time across processes; FULL: a
	// committed batch survives a power loss (the spool segment it came from
	// may be removed right after).
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening the usage store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("preparing the usage store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Ingest stores the events whose ids it does not hold yet, in one
// transaction, and reports how many it stored and how many it already had.
// Events must be valid (Event.Validate).
func (s *Store) Ingest(ctx context.Context, events []Event) (accepted, duplicates int, err error) {
	if len(events) == 0 {
		return 0, 0, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("usage store: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO events (id, type, ts, server_id, skill_path, context, data) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, 0, fmt.Errorf("usage store: %w", err)
	}
	defer func() { _ = stmt.Close() }()
	for i := range events {
		e := &events[i]
		data := e.Data
		if data == nil {
			data = map[string]any{}
		}
		raw, err := json.Marshal(data)
		if err != nil {
			return 0, 0, fmt.Errorf("usage store: event %s: %w", e.ID, err)
		}
		ctxText := str(data["context"])
		if e.Type == TypeSearch {
			ctxText = str(data["query"])
		}
		res, err := stmt.ExecContext(ctx, e.ID, e.Type, e.Timestamp.UnixNano(), e.ServerID, str(data["skill_path"]), normContext(ctxText), string(raw))
		if err != nil {
			return 0, 0, fmt.Errorf("usage store: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			accepted++
		} else {
			duplicates++
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("usage store: %w", err)
	}
	return accepted, duplicates, nil
}

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// normContext collapses runs of white space, so that the same task typed
// twice counts once in the top contexts.
func normContext(s string) string {
	return strings.Join(strings.Fields(s), " ")
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

// Stats aggregates the events of the window. Searches that found nothing
// count among the no-match contexts (a miss is a miss, whichever tool saw it).
func (s *Store) Stats(ctx context.Context, w Window) (*Stats, error) {
	lo, hi := w.Start.UnixNano(), w.End.UnixNano()
	st := &Stats{Skills: []SkillStats{}, TopNoMatch: []ContextCount{}, TopAmbiguous: []ContextCount{}, ByDay: []DayCount{}}
	skills := map[string]*SkillStats{}
	get := func(p string) *SkillStats {
		if sk, ok := skills[p]; ok {
			return sk
		}
		sk := &SkillStats{SkillPath: p, RecentComments: []string{}}
		skills[p] = sk
		return sk
	}
	wantSkill := func(p string) bool { return p != "" && (w.SkillPath == "" || p == w.SkillPath) }

	err := s.query(ctx, `SELECT skill_path, COUNT(*), MAX(ts) FROM events WHERE type = ? AND ts >= ? AND ts < ? GROUP BY skill_path`,
		[]any{TypeSkillServed, lo, hi}, func(rows *sql.Rows) error {
			var p string
			var n, last int64
			if err := rows.Scan(&p, &n, &last); err != nil {
				return err
			}
			if wantSkill(p) {
				sk := get(p)
				sk.Served, sk.LastServed = n, time.Unix(0, last).UTC()
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = s.query(ctx, `SELECT j.value, COUNT(*) FROM events e, json_each(e.data, '$.candidates') j
		WHERE e.type = ? AND e.ts >= ? AND e.ts < ? AND j.type = 'text' GROUP BY j.value`,
		[]any{TypeAmbiguous, lo, hi}, func(rows *sql.Rows) error {
			var p string
			var n int64
			if err := rows.Scan(&p, &n); err != nil {
				return err
			}
			if wantSkill(p) {
				get(p).AmbiguousAppearances = n
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	err = s.query(ctx, `SELECT skill_path,
			SUM(CASE WHEN json_extract(data, '$.useful') THEN 1 ELSE 0 END),
			SUM(CASE WHEN json_extract(data, '$.useful') THEN 0 ELSE 1 END)
		FROM events WHERE type = ? AND ts >= ? AND ts < ? GROUP BY skill_path`,
		[]any{TypeSkillFeedback, lo, hi}, func(rows *sql.Rows) error {
			var p string
			var up, down int64
			if err := rows.Scan(&p, &up, &down); err != nil {
				return err
			}
			if wantSkill(p) {
				sk := get(p)
				sk.Useful, sk.NotUseful = up, down
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	if w.Comments > 0 {
		err = s.query(ctx, `SELECT skill_path, comment FROM (
				SELECT skill_path, json_extract(data, '$.comment') AS comment,
					ROW_NUMBER() OVER (PARTITION BY skill_path ORDER BY ts DESC, id DESC) AS n
				FROM events WHERE type = ? AND ts >= ? AND ts < ? AND COALESCE(json_extract(data, '$.comment'), '') != '')
			WHERE n <= ? ORDER BY skill_path, n`,
			[]any{TypeSkillFeedback, lo, hi, w.Comments}, func(rows *sql.Rows) error {
				var p, c string
				if err := rows.Scan(&p, &c); err != nil {
					return err
				}
				if wantSkill(p) {
					sk := get(p)
					sk.RecentComments = append(sk.RecentComments, c)
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	for _, sk := range skills {
		st.Skills = append(st.Skills, *sk)
	}
	sortSkills(st.Skills)

	top := func(where string, args []any) ([]ContextCount, error) {
		out := []ContextCount{}
		err := s.query(ctx, `SELECT MIN(context), COUNT(*) AS n FROM events WHERE ts >= ? AND ts < ? AND context != '' AND (`+where+`)
			GROUP BY context COLLATE NOCASE ORDER BY n DESC, MIN(context) LIMIT ?`,
			append(append([]any{lo, hi}, args...), w.TopN), func(rows *sql.Rows) error {
				var c ContextCount
				if err := rows.Scan(&c.Context, &c.Count); err != nil {
					return err
				}
				out = append(out, c)
				return nil
			})
		return out, err
	}
	if st.TopNoMatch, err = top(`type = ? OR (type = ? AND json_extract(data, '$.result_count') = 0)`, []any{TypeNoMatch, TypeSearch}); err != nil {
		return nil, err
	}
	if st.TopAmbiguous, err = top(`type = ?`, []any{TypeAmbiguous}); err != nil {
		return nil, err
	}
	err = s.query(ctx, `SELECT strftime('%Y-%m-%d', ts / 1000000000, 'unixepoch') AS day,
			SUM(type = ?), SUM(type = ?), SUM(type = ?), SUM(type = ?), SUM(type = ?)
		FROM events WHERE ts >= ? AND ts < ? GROUP BY day ORDER BY day`,
		[]any{TypeSkillServed, TypeNoMatch, TypeAmbiguous, TypeSearch, TypeSkillFeedback, lo, hi}, func(rows *sql.Rows) error {
			var d DayCount
			if err := rows.Scan(&d.Day, &d.Served, &d.NoMatch, &d.Ambiguous, &d.Searches, &d.Feedback); err != nil {
				return err
			}
			st.ByDay = append(st.ByDay, d)
			return nil
		})
	if err != nil {
		return nil, err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE ts >= ? AND ts < ?`, lo, hi).Scan(&st.TotalEvents); err != nil {
		return nil, fmt.Errorf("usage store: %w", err)
	}
	return st, nil
}

// query runs a query and calls each for every row.
func (s *Store) query(ctx context.Context, q string, args []any, each func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("usage store: %w", err)
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := each(rows); err != nil {
			return fmt.Errorf("usage store: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("usage store: %w", err)
	}
	return nil
}

// sortSkills orders skills most served first, then by ambiguous appearances,
// then by feedback, then by path.
func sortSkills(s []SkillStats) {
	key := func(a SkillStats) [3]int64 { return [3]int64{a.Served, a.AmbiguousAppearances, a.Useful + a.NotUseful} }
	slices.SortFunc(s, func(a, b SkillStats) int {
		ka, kb := key(a), key(b)
		for i := range ka {
			if ka[i] != kb[i] {
				if ka[i] > kb[i] {
					return -1
				}
				return 1
			}
		}
		return strings.Compare(a.SkillPath, b.SkillPath)
	})
}

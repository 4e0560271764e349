package usage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
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

// maxParams bounds the parameters of one statement (SQLite allows 32766,
// PostgreSQL 65535).
const maxParams = 8192

// sqlStore is the Store over database/sql: the same statements for SQLite
// and PostgreSQL, but for the placeholders and two function names (dialect).
//
// Every event is stored with the fields the aggregates need, derived once in
// Go (derive), so both databases count alike. Day rollups (usage_days,
// usage_skill_days, usage_context_days), updated in the transaction that
// stores the events and only for the events it stored, answer the whole
// days of a window; the events themselves answer its partial first and last
// days. So a 30-day window reads about 30 rollup rows per skill and context
// and one day of events, however many events the store holds.
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
	n, err := s.migrate(ctx)
	if err != nil {
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

// row is an event as stored: its columns, derived once.
type row struct {
	id, typ, serverID string
	ts, day           int64
	skillPath         string
	context           string
	contextKey        string
	useful, noResult  int64
	comment           string
	data              string
	candidates        []string
}

// derive computes an event's columns. What counts is decided here, once for
// both databases:
//   - skill_path is data.skill_path when it is a string (else ""), cut at
//     maxKeyBytes;
//   - the context is data.context (data.query for a search) when a string,
//     with runs of white space collapsed, so the same task typed twice counts
//     once; contexts that differ only in ASCII letter case are counted
//     together (context_key) under their smallest spelling in byte order;
//   - a feedback is useful when data.useful is true or a non-zero number;
//   - a search found nothing when data.result_count is the number 0;
//   - an ambiguous event's candidates are the strings of data.candidates.
//
// Text that a database could refuse is made safe: invalid UTF-8 and NUL
// (which PostgreSQL text cannot hold) become U+FFFD in both stores.
func derive(e *Event) (row, error) {
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return row{}, fmt.Errorf("event %s: %w", e.ID, err)
	}
	ts := e.Timestamp.UnixNano()
	r := row{id: e.ID, typ: e.Type, serverID: e.ServerID, ts: ts, day: floorDiv(ts, dayNanos), data: string(raw),
		skillPath: cutKey(clean(str(data["skill_path"])))}
	text := str(data["context"])
	if e.Type == TypeSearch {
		text = str(data["query"])
	}
	r.context = normContext(clean(text))
	r.contextKey = contextKey(r.context)
	switch e.Type {
	case TypeSkillFeedback:
		if b, ok := data["useful"].(bool); (ok && b) || isNonZero(data["useful"]) {
			r.useful = 1
		}
		r.comment = clean(str(data["comment"]))
	case TypeSearch:
		if n, ok := number(data["result_count"]); ok && n == 0 {
			r.noResult = 1
		}
	case TypeAmbiguous:
		switch cs := data["candidates"].(type) {
		case []string:
			for _, c := range cs {
				r.candidates = append(r.candidates, cutKey(clean(c)))
			}
		case []any:
			for _, c := range cs {
				if c, ok := c.(string); ok {
					r.candidates = append(r.candidates, cutKey(clean(c)))
				}
			}
		}
	}
	return r, nil
}

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// number is v as a float64 when it is a JSON or Go number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func isNonZero(v any) bool {
	n, ok := number(v)
	return ok && n != 0
}

// normContext collapses runs of white space, so that the same task typed
// twice counts once in the top contexts.
func normContext(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// clean replaces each invalid UTF-8 byte and each NUL by U+FFFD (as
// encoding/json does for the invalid bytes).
func clean(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || (r == utf8.RuneError && n == 1) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// cutKey cuts s to at most maxKeyBytes, on a character boundary.
func cutKey(s string) string {
	if len(s) <= maxKeyBytes {
		return s
	}
	n := maxKeyBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// contextKey is the grouping key of a context: a digest of it with ASCII
// letters in lower case (SQLite's NOCASE folding), short enough for an
// index however long the context.
func contextKey(ctx string) string {
	if ctx == "" {
		return ""
	}
	b := []byte(ctx)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// floorDiv is a/b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// dayString is the YYYY-MM-DD of a day number.
func dayString(day int64) string {
	return time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
}

// unixNano is t in Unix nanoseconds, clamped to what an int64 holds.
func unixNano(t time.Time) int64 {
	switch {
	case t.Before(minEventTime):
		return math.MinInt64
	case t.After(maxEventTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

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

// writeRollups adds the new rows to the candidates table and the rollups.
func (s *sqlStore) writeRollups(ctx context.Context, tx *sql.Tx, rows []row) error {
	type skillKey struct {
		unit int64 // day or hour
		path string
	}
	type skillAgg struct{ served, last, ambiguous, useful, notUseful int64 }
	type ctxKey struct {
		kind string
		unit int64 // day or hour
		key  string
	}
	type ctxAgg struct {
		min string
		n   int64
	}
	// served, no_match, ambiguous, searches, feedback, total
	days, hours := map[int64]*[6]int64{}, map[int64]*[6]int64{}
	skillDays, skillHours := map[skillKey]*skillAgg{}, map[skillKey]*skillAgg{}
	ctxDays, ctxHours := map[ctxKey]*ctxAgg{}, map[ctxKey]*ctxAgg{}
	var cands, comments [][]any
	// skill applies f to the day and the hour rows of a skill.
	skill := func(r *row, p string, f func(*skillAgg)) {
		for _, x := range []struct {
			m    map[skillKey]*skillAgg
			unit int64
		}{{skillDays, r.day}, {skillHours, floorDiv(r.ts, hourNanos)}} {
			k := skillKey{x.unit, p}
			a := x.m[k]
			if a == nil {
				a = &skillAgg{last: math.MinInt64}
				x.m[k] = a
			}
			f(a)
		}
	}
	addContext := func(kind string, r *row) {
		if r.context == "" {
			return
		}
		for _, x := range []struct {
			m    map[ctxKey]*ctxAgg
			unit int64
		}{{ctxDays, r.day}, {ctxHours, floorDiv(r.ts, hourNanos)}} {
			k := ctxKey{kind, x.unit, r.contextKey}
			if a := x.m[k]; a == nil {
				x.m[k] = &ctxAgg{min: r.context, n: 1}
			} else {
				a.n++
				a.min = min(a.min, r.context)
			}
		}
	}
	for i := range rows {
		r := &rows[i]
		var d [6]int64 // this event's counts
		d[5] = 1
		switch r.typ {
		case TypeSkillServed:
			d[0] = 1
			skill(r, r.skillPath, func(a *skillAgg) {
				a.served++
				a.last = max(a.last, r.ts)
			})
		case TypeNoMatch:
			d[1] = 1
			addContext(TypeNoMatch, r)
		case TypeAmbiguous:
			d[2] = 1
			addContext(TypeAmbiguous, r)
			counts := map[string]int64{}
			for _, c := range r.candidates {
				counts[c]++
			}
			for _, c := range slices.Sorted(mapKeys(counts)) {
				skill(r, c, func(a *skillAgg) { a.ambiguous += counts[c] })
				cands = append(cands, []any{r.id, r.ts, c, counts[c]})
			}
		case TypeSearch:
			d[3] = 1
			if r.noResult == 1 {
				addContext(TypeNoMatch, r)
			}
		case TypeSkillFeedback:
			d[4] = 1
			skill(r, r.skillPath, func(a *skillAgg) {
				a.useful += r.useful
				a.notUseful += 1 - r.useful
			})
			if r.comment != "" {
				comments = append(comments, []any{r.id, r.ts, r.skillPath, r.comment})
			}
		}
		add(days, r.day, d)
		add(hours, floorDiv(r.ts, hourNanos), d)
	}
	if err := s.insert(ctx, tx, `INSERT INTO usage_candidates (event_id, ts, skill_path, n)`, ``, cands, nil); err != nil {
		return err
	}
	if err := s.insert(ctx, tx, `INSERT INTO usage_comments (event_id, ts, skill_path, comment)`, ``, comments, nil); err != nil {
		return err
	}
	// The rollup rows in key order: the same lock order in every writer.
	counts := `served = %[1]s.served + excluded.served, no_match = %[1]s.no_match + excluded.no_match,
		ambiguous = %[1]s.ambiguous + excluded.ambiguous, searches = %[1]s.searches + excluded.searches,
		feedback = %[1]s.feedback + excluded.feedback, total = %[1]s.total + excluded.total`
	var dv, hv [][]any
	for _, day := range slices.Sorted(mapKeys(days)) {
		d := days[day]
		dv = append(dv, []any{day, d[0], d[1], d[2], d[3], d[4], d[5]})
	}
	for _, hour := range slices.Sorted(mapKeys(hours)) {
		d := hours[hour]
		hv = append(hv, []any{hour, floorDiv(hour, 24), d[0], d[1], d[2], d[3], d[4], d[5]})
	}
	err := s.insert(ctx, tx, `INSERT INTO usage_days (day, served, no_match, ambiguous, searches, feedback, total)`,
		`ON CONFLICT (day) DO UPDATE SET `+fmt.Sprintf(counts, "usage_days"), dv, nil)
	if err != nil {
		return err
	}
	err = s.insert(ctx, tx, `INSERT INTO usage_hours (hour, day, served, no_match, ambiguous, searches, feedback, total)`,
		`ON CONFLICT (hour) DO UPDATE SET `+fmt.Sprintf(counts, "usage_hours"), hv, nil)
	if err != nil {
		return err
	}
	for _, t := range []struct {
		table, unit string
		m           map[skillKey]*skillAgg
	}{{"usage_skill_days", "day", skillDays}, {"usage_skill_hours", "hour", skillHours}} {
		keys := slices.SortedFunc(mapKeys(t.m), func(a, b skillKey) int {
			if a.unit != b.unit {
				return cmpInt(a.unit, b.unit)
			}
			return strings.Compare(a.path, b.path)
		})
		sv := make([][]any, 0, len(keys))
		for _, k := range keys {
			a := t.m[k]
			sv = append(sv, []any{k.unit, k.path, a.served, a.last, a.ambiguous, a.useful, a.notUseful})
		}
		err := s.insert(ctx, tx, `INSERT INTO `+t.table+` (`+t.unit+`, skill_path, served, last_served, ambiguous, useful, not_useful)`,
			fmt.Sprintf(`ON CONFLICT (%[2]s, skill_path) DO UPDATE SET served = %[1]s.served + excluded.served,
				last_served = %[3]s(%[1]s.last_served, excluded.last_served), ambiguous = %[1]s.ambiguous + excluded.ambiguous,
				useful = %[1]s.useful + excluded.useful, not_useful = %[1]s.not_useful + excluded.not_useful`, t.table, t.unit, s.d.greatest), sv, nil)
		if err != nil {
			return err
		}
	}
	for _, t := range []struct {
		table, unit string
		m           map[ctxKey]*ctxAgg
	}{{"usage_context_days", "day", ctxDays}, {"usage_context_hours", "hour", ctxHours}} {
		keys := slices.SortedFunc(mapKeys(t.m), func(a, b ctxKey) int {
			if a.kind != b.kind {
				return strings.Compare(a.kind, b.kind)
			}
			if a.unit != b.unit {
				return cmpInt(a.unit, b.unit)
			}
			return strings.Compare(a.key, b.key)
		})
		cv := make([][]any, 0, len(keys))
		for _, k := range keys {
			a := t.m[k]
			cv = append(cv, []any{k.kind, k.unit, k.key, a.min, a.n})
		}
		err := s.insert(ctx, tx, `INSERT INTO `+t.table+` (kind, `+t.unit+`, context_key, context_min, n)`,
			fmt.Sprintf(`ON CONFLICT (kind, %[2]s, context_key) DO UPDATE SET n = %[1]s.n + excluded.n,
				context_min = %[3]s(%[1]s.context_min, excluded.context_min)`, t.table, t.unit, s.d.least), cv, nil)
		if err != nil {
			return err
		}
	}
	return nil
}

// add adds an event's counts to its row of a day or hour rollup.
func add(m map[int64]*[6]int64, k int64, d [6]int64) {
	c := m[k]
	if c == nil {
		c = &[6]int64{}
		m[k] = c
	}
	for i := range d {
		c[i] += d[i]
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
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

// span is a time range [lo, hi) in Unix nanoseconds.
type span struct{ lo, hi int64 }

// units splits [lo, hi) into whole units of unit nanoseconds (UTC days or
// hours) [uLo, uHi) and the partial units around them.
func units(lo, hi, unit int64) (uLo, uHi int64, partial []span) {
	uLo, uHi = -floorDiv(-lo, unit), floorDiv(hi, unit) // ceil(lo), floor(hi) in units
	if lo < math.MinInt64+unit || hi > math.MaxInt64-unit || uLo >= uHi {
		return 0, 0, []span{{lo, hi}}
	}
	if lo < uLo*unit {
		partial = append(partial, span{lo, uLo * unit})
	}
	if uHi*unit < hi {
		partial = append(partial, span{uHi * unit, hi})
	}
	return uLo, uHi, partial
}

// plan is how a window is read: its whole UTC days from the day rollups;
// its partial days either from the events (partial), or from the hour
// rollups (hours) and the events for what is left (raw).
type plan struct {
	days    [2]int64   // [first, end) day; empty when first >= end
	partial []span     // the partial days
	hours   [][2]int64 // the whole hours of the partial days
	raw     []span     // the partial hours
}

func planWindow(lo, hi int64, rawOnly bool) plan {
	if rawOnly {
		return plan{partial: []span{{lo, hi}}, raw: []span{{lo, hi}}}
	}
	var p plan
	p.days[0], p.days[1], p.partial = units(lo, hi, dayNanos)
	for _, sp := range p.partial {
		hLo, hHi, rest := units(sp.lo, sp.hi, hourNanos)
		if hLo < hHi {
			p.hours = append(p.hours, [2]int64{hLo, hHi})
		}
		p.raw = append(p.raw, rest...)
	}
	return p
}

// selects are the statements that read the parts of a window, each with
// ? for its range first ("day >= ? AND day < ?", "hour >= ? AND hour < ?",
// "ts >= ? AND ts < ?"), then the extra arguments. An empty statement
// reads nothing; without an hour statement, the events are read for the
// whole partial days.
type selects struct {
	days, hours, events string
	// byHour reads the partial days by hour: the hour statement (if any)
	// for their whole hours, the events for the rest.
	byHour bool
}

// union builds the UNION ALL of the statements over the parts of p.
func (p plan) union(sel selects, extra ...any) (string, []any) {
	var parts []string
	var args []any
	add := func(q string, lo, hi int64) {
		parts = append(parts, q)
		args = append(append(args, lo, hi), extra...)
	}
	if sel.days != "" && p.days[0] < p.days[1] {
		add(sel.days, p.days[0], p.days[1])
	}
	if sel.events == "" {
		return strings.Join(parts, "\nUNION ALL\n"), args
	}
	raw := p.partial
	if sel.byHour {
		if sel.hours != "" {
			for _, h := range p.hours {
				add(sel.hours, h[0], h[1])
			}
		}
		raw = p.raw
	}
	for _, sp := range raw {
		add(sel.events, sp.lo, sp.hi)
	}
	return strings.Join(parts, "\nUNION ALL\n"), args
}

// Stats implements Store. Its queries run in one read-only transaction, so
// they see one state of the store. Searches that found nothing count among
// the no-match contexts (a miss is a miss, whichever tool saw it).
func (s *sqlStore) Stats(ctx context.Context, w Window) (*Stats, error) {
	if err := s.ensureReady(ctx); err != nil {
		return nil, s.d.fail(ctx, "reading usage statistics", err)
	}
	st, err := s.stats(ctx, w)
	if err != nil {
		return nil, s.d.fail(ctx, "reading usage statistics", err)
	}
	return st, nil
}

func (s *sqlStore) stats(ctx context.Context, w Window) (*Stats, error) {
	lo, hi := unixNano(w.Start), unixNano(w.End)
	p := planWindow(lo, hi, s.rawOnly)
	st := &Stats{Skills: []SkillStats{}, TopNoMatch: []ContextCount{}, TopAmbiguous: []ContextCount{}, ByDay: []DayCount{}}
	if lo >= hi {
		return st, nil
	}
	tx, err := s.db.BeginTx(ctx, s.d.readTx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()

	// Per skill: served, ambiguous appearances, feedback.
	skillFilter, skillArg := "", []any(nil)
	if w.SkillPath != "" {
		skillFilter, skillArg = " AND skill_path = ?", []any{w.SkillPath}
	}
	// A raw feedback or candidate row has no last_served (NULL, which MAX
	// skips); a rollup row without a serve holds math.MinInt64.
	var all string
	var args []any
	for _, sel := range []selects{
		{days: `SELECT skill_path, served, last_served, ambiguous, useful, not_useful FROM usage_skill_days WHERE day >= ? AND day < ?` + skillFilter,
			hours: `SELECT skill_path, served, last_served, ambiguous, useful, not_useful FROM usage_skill_hours WHERE hour >= ? AND hour < ?` + skillFilter,
			events: `SELECT skill_path, 1 AS served, ts AS last_served, 0 AS ambiguous, 0 AS useful, 0 AS not_useful
				FROM usage_events WHERE type = '` + TypeSkillServed + `' AND ts >= ? AND ts < ?` + skillFilter},
		{events: `SELECT skill_path, 0 AS served, NULL AS last_served, 0 AS ambiguous, useful, 1 - useful AS not_useful
				FROM usage_events WHERE type = '` + TypeSkillFeedback + `' AND ts >= ? AND ts < ?` + skillFilter},
		{events: `SELECT skill_path, 0 AS served, NULL AS last_served, n AS ambiguous, 0 AS useful, 0 AS not_useful
				FROM usage_candidates WHERE ts >= ? AND ts < ?` + skillFilter},
	} {
		sel.byHour = true
		if part, pargs := p.union(sel, skillArg...); part != "" {
			if all != "" {
				all += "\nUNION ALL\n"
			}
			all += part
			args = append(args, pargs...)
		}
	}
	skills := []SkillStats{}
	index := map[string]int{}
	err = s.query(ctx, tx, `SELECT skill_path, CAST(SUM(served) AS BIGINT), MAX(last_served), CAST(SUM(ambiguous) AS BIGINT),
			CAST(SUM(useful) AS BIGINT), CAST(SUM(not_useful) AS BIGINT)
		FROM (`+all+`) u WHERE skill_path <> '' GROUP BY skill_path`, args, func(rs *sql.Rows) error {
		var sk SkillStats
		var last sql.NullInt64
		if err := rs.Scan(&sk.SkillPath, &sk.Served, &last, &sk.AmbiguousAppearances, &sk.Useful, &sk.NotUseful); err != nil {
			return err
		}
		if sk.Served > 0 && last.Valid {
			sk.LastServed = time.Unix(0, last.Int64).UTC()
		}
		sk.RecentComments = []string{}
		index[sk.SkillPath] = len(skills)
		skills = append(skills, sk)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if w.Comments > 0 {
		err = s.query(ctx, tx, `SELECT skill_path, comment FROM (
				SELECT skill_path, comment, ROW_NUMBER() OVER (PARTITION BY skill_path ORDER BY ts DESC, event_id DESC) AS n
				FROM usage_comments WHERE ts >= ? AND ts < ? AND skill_path <> ''`+skillFilter+`) c
			WHERE n <= ? ORDER BY skill_path, n`,
			append(append([]any{lo, hi}, skillArg...), w.Comments), func(rs *sql.Rows) error {
				var p, c string
				if err := rs.Scan(&p, &c); err != nil {
					return err
				}
				if i, ok := index[p]; ok {
					skills[i].RecentComments = append(skills[i].RecentComments, c)
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	sortSkills(skills)
	st.Skills = skills

	if st.TopNoMatch, err = s.topContexts(ctx, tx, p, TypeNoMatch, `(type = '`+TypeNoMatch+`' OR (type = '`+TypeSearch+`' AND no_result = 1))`, w.TopN); err != nil {
		return nil, err
	}
	if st.TopAmbiguous, err = s.topContexts(ctx, tx, p, TypeAmbiguous, `type = '`+TypeAmbiguous+`'`, w.TopN); err != nil {
		return nil, err
	}

	// By day: whole days from usage_days, whole hours of the partial days
	// from usage_hours, the rest from the events.
	is := func(t string) string { return `CASE WHEN type = '` + t + `' THEN 1 ELSE 0 END` }
	u, args := p.union(selects{
		days:  `SELECT day, served, no_match, ambiguous, searches, feedback, total FROM usage_days WHERE day >= ? AND day < ?`,
		hours: `SELECT day, served, no_match, ambiguous, searches, feedback, total FROM usage_hours WHERE hour >= ? AND hour < ?`,
		events: `SELECT day, ` + is(TypeSkillServed) + ` AS served, ` + is(TypeNoMatch) + ` AS no_match, ` + is(TypeAmbiguous) + ` AS ambiguous,
			` + is(TypeSearch) + ` AS searches, ` + is(TypeSkillFeedback) + ` AS feedback, 1 AS total
			FROM usage_events WHERE ts >= ? AND ts < ?`,
		byHour: true})
	err = s.query(ctx, tx, `SELECT day, CAST(SUM(served) AS BIGINT), CAST(SUM(no_match) AS BIGINT), CAST(SUM(ambiguous) AS BIGINT),
			CAST(SUM(searches) AS BIGINT), CAST(SUM(feedback) AS BIGINT), CAST(SUM(total) AS BIGINT)
		FROM (`+u+`) u GROUP BY day ORDER BY day`, args, func(rs *sql.Rows) error {
		var d DayCount
		var day, total int64
		if err := rs.Scan(&day, &d.Served, &d.NoMatch, &d.Ambiguous, &d.Searches, &d.Feedback, &total); err != nil {
			return err
		}
		d.Day = dayString(day)
		st.ByDay = append(st.ByDay, d)
		st.TotalEvents += total
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, tx.Commit()
}

// maxCandidates is the most candidates topContexts sums before it
// aggregates the whole window instead.
const maxCandidates = 2000

// topContexts returns the n contexts of kind seen most often in the window
// (contexts equal but for ASCII case together, under their smallest
// spelling), most first, ties by spelling.
//
// Aggregating every (day, context) of a 30-day window costs as many rows as
// there are contexts a day. Most contexts are seen once or twice, and the
// top ones many times, so it first sums only the candidates: the contexts
// seen at least m times on some whole day of the window, or m times in its
// partial days. Any other context is seen at most m-1 times a day, so at
// most (m-1)·(days+1) times in all; when the n-th candidate is above that,
// the candidates' top n is the window's. Otherwise it tries a smaller m,
// then aggregates the whole window.
func (s *sqlStore) topContexts(ctx context.Context, tx *sql.Tx, p plan, kind, rawWhere string, n int) ([]ContextCount, error) {
	rawSel := `SELECT context_key, context AS context_min, 1 AS n FROM usage_events WHERE ts >= ? AND ts < ? AND context <> '' AND ` + rawWhere
	hourSel := `SELECT context_key, context_min, n FROM usage_context_hours WHERE kind = '` + kind + `' AND hour >= ? AND hour < ?`
	if n > 0 && p.days[0] < p.days[1] {
		out, ok, err := s.topPruned(ctx, tx, p, kind, hourSel, rawSel, n)
		if err != nil || ok {
			return out, err
		}
	}
	s.fullTops.Add(1)
	u, args := p.union(selects{
		days:   `SELECT context_key, context_min, n FROM usage_context_days WHERE kind = '` + kind + `' AND day >= ? AND day < ?`,
		hours:  hourSel,
		events: rawSel,
		byHour: true})
	out := []ContextCount{}
	err := s.query(ctx, tx, `SELECT MIN(context_min), CAST(SUM(n) AS BIGINT) AS total FROM (`+u+`) u
		GROUP BY context_key ORDER BY total DESC, MIN(context_min) LIMIT ?`, append(args, n), func(rs *sql.Rows) error {
		var c ContextCount
		if err := rs.Scan(&c.Context, &c.Count); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}

// topPruned is topContexts over the candidates; ok is false when they do
// not decide the top n.
func (s *sqlStore) topPruned(ctx context.Context, tx *sql.Tx, p plan, kind, hourSel, rawSel string, n int) (_ []ContextCount, ok bool, _ error) {
	type count struct {
		min   string
		total int64
	}
	// The partial days, by hour and from the events.
	raw := map[string]*count{}
	if u, args := p.union(selects{hours: hourSel, events: rawSel, byHour: true}); u != "" {
		err := s.query(ctx, tx, `SELECT context_key, MIN(context_min), CAST(SUM(n) AS BIGINT) FROM (`+u+`) u GROUP BY context_key`, args, func(rs *sql.Rows) error {
			var k string
			c := &count{}
			if err := rs.Scan(&k, &c.min, &c.total); err != nil {
				return err
			}
			raw[k] = c
			return nil
		})
		if err != nil {
			return nil, false, err
		}
	}
	days := p.days[1] - p.days[0]
	for _, m := range [...]int64{64, 16, 4, 2} {
		cands := map[string]bool{}
		for k, c := range raw {
			if c.total >= m {
				cands[k] = true
			}
		}
		err := s.query(ctx, tx, `SELECT DISTINCT context_key FROM usage_context_days
			WHERE kind = '`+kind+`' AND n >= ? AND day >= ? AND day < ? LIMIT ?`, []any{m, p.days[0], p.days[1], maxCandidates + 1}, func(rs *sql.Rows) error {
			var k string
			if err := rs.Scan(&k); err != nil {
				return err
			}
			cands[k] = true
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		if len(cands) > maxCandidates {
			return nil, false, nil
		}
		if len(cands) < n {
			continue
		}
		keys := slices.Sorted(mapKeys(cands))
		totals := make(map[string]*count, len(keys))
		for k := range cands {
			c := &count{}
			if r := raw[k]; r != nil {
				*c = *r
			}
			totals[k] = c
		}
		for len(keys) > 0 {
			part := keys[:min(len(keys), 500)]
			keys = keys[len(part):]
			args := []any{p.days[0], p.days[1]}
			for _, k := range part {
				args = append(args, k)
			}
			err := s.query(ctx, tx, `SELECT context_key, MIN(context_min), CAST(SUM(n) AS BIGINT) FROM usage_context_days
				WHERE kind = '`+kind+`' AND day >= ? AND day < ? AND context_key IN (?`+strings.Repeat(", ?", len(part)-1)+`)
				GROUP BY context_key`, args, func(rs *sql.Rows) error {
				var k, lo string
				var t int64
				if err := rs.Scan(&k, &lo, &t); err != nil {
					return err
				}
				c := totals[k]
				if c.total == 0 || lo < c.min {
					c.min = lo
				}
				c.total += t
				return nil
			})
			if err != nil {
				return nil, false, err
			}
		}
		out := make([]ContextCount, 0, len(totals))
		for _, c := range totals {
			out = append(out, ContextCount{c.min, c.total})
		}
		slices.SortFunc(out, func(a, b ContextCount) int {
			if a.Count != b.Count {
				return cmpInt(b.Count, a.Count)
			}
			return strings.Compare(a.Context, b.Context)
		})
		if out[n-1].Count > (m-1)*(days+1) {
			s.prunedTops.Add(1)
			return out[:n], true, nil
		}
	}
	return nil, false, nil
}

// query runs a query in tx and calls each for every row.
func (s *sqlStore) query(ctx context.Context, tx *sql.Tx, q string, args []any, each func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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

package usage

import (
	"cmp"
	"context"
	"database/sql"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

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
		keys := slices.Sorted(maps.Keys(cands))
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
				return cmp.Compare(b.Count, a.Count)
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

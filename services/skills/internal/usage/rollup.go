package usage

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// writeRollups records the stored rows beyond usage_events: their candidates
// and comments, and their counts in the day and hour rollups.
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
			for _, c := range slices.Sorted(maps.Keys(counts)) {
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
	// The rollup rows in key order: the same lock order in every writer.
	counts := `served = %[1]s.served + excluded.served, no_match = %[1]s.no_match + excluded.no_match,
		ambiguous = %[1]s.ambiguous + excluded.ambiguous, searches = %[1]s.searches + excluded.searches,
		feedback = %[1]s.feedback + excluded.feedback, total = %[1]s.total + excluded.total`
	dayRow := func(day int64, d *[6]int64) []any { return []any{day, d[0], d[1], d[2], d[3], d[4], d[5]} }
	hourRow := func(hour int64, d *[6]int64) []any {
		return []any{hour, floorDiv(hour, 24), d[0], d[1], d[2], d[3], d[4], d[5]}
	}
	skillOrder := func(a, b skillKey) int { return cmp.Or(cmp.Compare(a.unit, b.unit), strings.Compare(a.path, b.path)) }
	skillRow := func(k skillKey, a *skillAgg) []any {
		return []any{k.unit, k.path, a.served, a.last, a.ambiguous, a.useful, a.notUseful}
	}
	ctxOrder := func(a, b ctxKey) int {
		return cmp.Or(strings.Compare(a.kind, b.kind), cmp.Compare(a.unit, b.unit), strings.Compare(a.key, b.key))
	}
	ctxRow := func(k ctxKey, a *ctxAgg) []any { return []any{k.kind, k.unit, k.key, a.min, a.n} }
	// A write is head VALUES … tail over vals (sqlStore.insert).
	type write struct {
		head, tail string
		vals       [][]any
	}
	skillWrite := func(table, unit string, m map[skillKey]*skillAgg) write {
		return write{`INSERT INTO ` + table + ` (` + unit + `, skill_path, served, last_served, ambiguous, useful, not_useful)`,
			fmt.Sprintf(`ON CONFLICT (%[2]s, skill_path) DO UPDATE SET served = %[1]s.served + excluded.served,
				last_served = %[3]s(%[1]s.last_served, excluded.last_served), ambiguous = %[1]s.ambiguous + excluded.ambiguous,
				useful = %[1]s.useful + excluded.useful, not_useful = %[1]s.not_useful + excluded.not_useful`, table, unit, s.d.greatest),
			sortedRows(m, skillOrder, skillRow)}
	}
	ctxWrite := func(table, unit string, m map[ctxKey]*ctxAgg) write {
		return write{`INSERT INTO ` + table + ` (kind, ` + unit + `, context_key, context_min, n)`,
			fmt.Sprintf(`ON CONFLICT (kind, %[2]s, context_key) DO UPDATE SET n = %[1]s.n + excluded.n,
				context_min = %[3]s(%[1]s.context_min, excluded.context_min)`, table, unit, s.d.least),
			sortedRows(m, ctxOrder, ctxRow)}
	}
	for _, w := range []write{
		{`INSERT INTO usage_candidates (event_id, ts, skill_path, n)`, ``, cands},
		{`INSERT INTO usage_comments (event_id, ts, skill_path, comment)`, ``, comments},
		{`INSERT INTO usage_days (day, served, no_match, ambiguous, searches, feedback, total)`,
			`ON CONFLICT (day) DO UPDATE SET ` + fmt.Sprintf(counts, "usage_days"), sortedRows(days, cmp.Compare[int64], dayRow)},
		{`INSERT INTO usage_hours (hour, day, served, no_match, ambiguous, searches, feedback, total)`,
			`ON CONFLICT (hour) DO UPDATE SET ` + fmt.Sprintf(counts, "usage_hours"), sortedRows(hours, cmp.Compare[int64], hourRow)},
		skillWrite("usage_skill_days", "day", skillDays),
		skillWrite("usage_skill_hours", "hour", skillHours),
		ctxWrite("usage_context_days", "day", ctxDays),
		ctxWrite("usage_context_hours", "hour", ctxHours),
	} {
		if err := s.insert(ctx, tx, w.head, w.tail, w.vals, nil); err != nil {
			return err
		}
	}
	return nil
}

// sortedRows is a row of values for each entry of m, in the order of its
// keys by order.
func sortedRows[K comparable, V any](m map[K]V, order func(a, b K) int, row func(K, V) []any) [][]any {
	keys := slices.SortedFunc(maps.Keys(m), order)
	out := make([][]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, row(k, m[k]))
	}
	return out
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

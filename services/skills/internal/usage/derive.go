package usage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

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
	case float32, int, int32, int64, uint, uint32, uint64:
		return reflect.ValueOf(n).Convert(reflect.TypeFor[float64]()).Float(), true
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

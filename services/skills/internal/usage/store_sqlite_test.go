package usage

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// legacySchema is the store as skillsd wrote it before versioned
// migrations: one table, its two indexes.
const legacySchema = `
CREATE TABLE IF NOT EXISTS events (
	id         TEXT PRIMARY KEY,
	type       TEXT NOT NULL,
	ts         INTEGER NOT NULL,
	server_id  TEXT NOT NULL,
	skill_path TEXT NOT NULL,
	context    TEXT NOT NULL,
	data       TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_type_ts ON events (type, ts);
CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
`

// TestSQLiteLegacyStore: a usage.db written before versioned migrations is
// converted at open: its events are all there, counted as before, once.
func TestSQLiteLegacyStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.db")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(legacySchema); err != nil {
		t.Fatal(err)
	}
	events := storeEvents()
	for _, e := range events {
		raw, _ := json.Marshal(e.Data)
		ctx := str(e.Data["context"])
		if e.Type == TypeSearch {
			ctx = str(e.Data["query"])
		}
		if _, err := db.Exec(`INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)`, e.ID, e.Type, e.Timestamp.UnixNano(), e.ServerID, str(e.Data["skill_path"]), normContext(ctx), string(raw)); err != nil {
			t.Fatal(err)
		}
	}
	// A row the new store refuses (a NUL in its id) is skipped, not fatal.
	if _, err := db.Exec(`INSERT INTO events VALUES (?, 'no_match', ?, 'x', '', '', '{}')`, "bad\x00id", day0.UnixNano()); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	s, err := OpenSQLite(t.Context(), path, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := Window{Start: day0.Add(-48 * time.Hour), End: day0.Add(72 * time.Hour), TopN: 10, Comments: 5}
	got, err := s.Stats(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(referenceStats(events, w), got); diff != "" {
		t.Errorf("converted store (-want +got):\n%s", diff)
	}
	if got.TotalEvents != int64(len(events)) {
		t.Errorf("total = %d, want %d", got.TotalEvents, len(events))
	}
	// The events are known: delivering them again stores nothing.
	if acc, dup, err := s.Ingest(t.Context(), events); err != nil || acc != 0 || dup != len(events) {
		t.Errorf("Ingest of the converted events = %d, %d, %v; want all duplicates", acc, dup, err)
	}
	var n int
	if err := s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'events'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the legacy table is still there (%d, %v)", n, err)
	}
}

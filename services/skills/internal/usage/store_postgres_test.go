package usage

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
)

// wantUnavailable fails unless err is the store's Unavailable error.
func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if !Unavailable(err) || !strings.Contains(err.Error(), "the usage database cannot be reached") {
		t.Fatalf("%s = %v (kind %v); want Unavailable: the usage database cannot be reached", what, err, failure.KindOf(err))
	}
}

// TestPostgresUnreachableAtStart: a store whose database does not answer
// at start opens all the same; its calls are Unavailable until the
// database answers, then it migrates and works.
func TestPostgresUnreachableAtStart(t *testing.T) {
	url := pgtest.Database(t)
	proxy := pgtest.NewProxy(t, url)
	proxy.Close()
	s, err := OpenPostgres(t.Context(), proxy.URL(url), StoreOptions{MaxConns: 2})
	if err != nil {
		t.Fatalf("OpenPostgres with the database away = %v; want a store that waits for it", err)
	}
	defer s.Close()
	_, err = s.Stats(t.Context(), Window{Start: day0, End: day0.Add(time.Hour), TopN: 5})
	wantUnavailable(t, "Stats", err)
	_, _, err = s.Ingest(t.Context(), storeEvents()[:2])
	wantUnavailable(t, "Ingest", err)

	proxy.Reopen()
	// Within a second of a failed attempt, calls fail with its error
	// rather than each trying again.
	var acc int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if acc, _, err = s.Ingest(t.Context(), storeEvents()); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || acc != len(storeEvents()) {
		t.Fatalf("Ingest once the database is back = %d, %v", acc, err)
	}
	if n := s.(*sqlStore).migrations.Load(); n == 0 {
		t.Error("the store did not migrate the database once it was back")
	}
}

// TestPostgresRefusedAtStart: an answer that retrying will not change (no
// such database) stops the start with the database named.
func TestPostgresRefusedAtStart(t *testing.T) {
	url := pgtest.Database(t)
	missing := pgtest.WithDatabase(t, url, pgtest.DatabaseName(t, url)+"_missing")
	_, err := OpenPostgres(t.Context(), missing, StoreOptions{MaxConns: 1})
	if err == nil || !strings.Contains(err.Error(), "_missing") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("OpenPostgres of a missing database = %v; want an error naming it", err)
	}
	for _, bad := range []string{"mysql://x/y", "postgres://[::1", "postgres://h/d?sslmode=bogus"} {
		if _, err := OpenPostgres(t.Context(), bad, StoreOptions{}); err == nil {
			t.Errorf("OpenPostgres(%q) succeeded; want an error", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("OpenPostgres(%q) = %v: leaks the password", bad, err)
		}
	}
	if _, err := OpenPostgres(t.Context(), "postgres://u:secret@127.0.0.1:1/d?sslmode=bogus", StoreOptions{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("OpenPostgres with a password and a bad option = %v; want an error without the password", err)
	}
}

// TestPostgresGoesAway: the database goes away under a recorder: records
// keep succeeding (the spool has them), Stats answers Unavailable, never a
// wrong number; once it is back, a delivery stores every event once.
func TestPostgresGoesAway(t *testing.T) {
	url := pgtest.Database(t)
	proxy := pgtest.NewProxy(t, url)
	st, err := OpenPostgres(t.Context(), proxy.URL(url), StoreOptions{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	r := openTest(t, t.TempDir(), "", func(o *Options) { o.Store = st })
	var ids []string
	record := func(n int) {
		t.Helper()
		for i := range n {
			e, err := r.Record(NoMatch(fmt.Sprintf("task %d", len(ids)+i)))
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			ids = append(ids, e.ID)
		}
	}
	total := func() int64 {
		t.Helper()
		s, err := r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 100})
		if err != nil {
			t.Fatalf("Stats: %v", err)
		}
		return s.TotalEvents
	}
	record(5)
	if got := total(); got != 5 {
		t.Fatalf("total = %d, want 5", got)
	}

	proxy.Close() // the database is gone
	record(7)
	_, err = r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 100})
	wantUnavailable(t, "Stats with the database away", err)
	if err := r.Flush(t.Context()); err == nil {
		t.Fatal("Flush with the database away succeeded; want the segment kept")
	}
	if len(spoolFiles(t, r.opts.Dir)) == 0 {
		t.Fatal("the spool is empty while the database is away")
	}

	proxy.Reopen() // it is back
	// The events the store refused are stored with the next call, and
	// the store's return triggers a delivery of the spool (the publisher's
	// interval here is an hour).
	if got := total(); got != 12 {
		t.Fatalf("total = %d, want 12", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(spoolFiles(t, r.opts.Dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(spoolFiles(t, r.opts.Dir)); n > 0 {
		t.Fatalf("%d spool segments left after the database came back; want a delivery at once", n)
	}
	var rows, distinct int
	db := pgtest.Open(t, url)
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*), COUNT(DISTINCT id) FROM usage_events`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != len(ids) || distinct != len(ids) {
		t.Errorf("usage_events holds %d rows (%d ids); want the %d recorded events once each", rows, distinct, len(ids))
	}

	// An administrator ends every connection: the next calls either answer
	// right or Unavailable, and the store reconnects by itself.
	pgtest.Terminate(t, pgtest.DatabaseName(t, url))
	s, err := r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 100})
	if err != nil {
		wantUnavailable(t, "Stats after the connections were ended", err)
	} else if s.TotalEvents != 12 {
		t.Fatalf("total after the connections were ended = %d, want 12", s.TotalEvents)
	}
	if got := total(); got != 12 {
		t.Fatalf("total = %d, want 12", got)
	}

	// The database is dropped: Unavailable, records still spooled.
	pgtest.Drop(t, pgtest.DatabaseName(t, url))
	record(1)
	_, err = r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 100})
	wantUnavailable(t, "Stats with the database dropped", err)
}

package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is a real HTTP collector on 127.0.0.1 whose behaviour a test
// switches: it answers 503, hangs past the client's timeout, or accepts.
type collector struct {
	srv *httptest.Server

	mu     sync.Mutex
	mode   string // "ok", "fail", "hang"
	posts  int
	ids    map[string]int // event id → times received
	bodies []map[string]any
}

func newCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{mode: "ok", ids: map[string]int{}}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) url() string { return c.srv.URL + "/v1/usage/events" }

func (c *collector) set(mode string) {
	c.mu.Lock()
	c.mode = mode
	c.mu.Unlock()
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	mode := c.mode
	c.posts++
	c.mu.Unlock()
	switch mode {
	case "fail":
		http.Error(w, "collector down for maintenance", http.StatusServiceUnavailable)
		return
	case "hang":
		_, _ = io.Copy(io.Discard, r.Body) // then a closed connection cancels r.Context()
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
		return
	}
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want a JSON POST", http.StatusBadRequest)
		return
	}
	var body struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range body.Events {
		id, _ := e["id"].(string)
		c.ids[id]++
		c.bodies = append(c.bodies, e)
	}
	w.WriteHeader(http.StatusOK)
}

// received returns the distinct ids received.
func (c *collector) received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.ids))
	for id := range c.ids {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// openTest opens a recorder whose background publisher only runs at start
// (the tests call Flush themselves).
func openTest(t *testing.T, dir, endpoint string, mod func(*Options)) *Recorder {
	t.Helper()
	opts := Options{Dir: dir, Endpoint: endpoint, FlushInterval: time.Hour, PostTimeout: 300 * time.Millisecond, ServerID: "dev-test"}
	if mod != nil {
		mod(&opts)
	}
	r, err := Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	<-r.firstFlush // the delivery at start must not split the test's segments
	return r
}

func recordN(t *testing.T, r *Recorder, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		e, err := r.Record(Searched(fmt.Sprintf("query %d", i), i%3))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	slices.Sort(ids)
	return ids
}

func spoolFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "spool", "*"+segmentExt))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeliveryFailsTimesOutRecovers: while the collector fails or hangs,
// nothing leaves the spool; once it answers 2xx every event arrives and the
// spool is empty.
func TestDeliveryFailsTimesOutRecovers(t *testing.T) {
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()
	r := openTest(t, dir, c.url(), nil)
	want := recordN(t, r, 25)

	err := r.Flush(t.Context())
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Flush against a failing collector = %v, want the 503", err)
	}
	if n := len(spoolFiles(t, dir)); n != 1 {
		t.Fatalf("spool segments after a failed post = %d, want 1", n)
	}

	c.set("hang")
	more := recordN(t, r, 10)
	start := time.Now()
	err = r.Flush(t.Context())
	if err == nil {
		t.Fatal("Flush against a hanging collector succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Flush waited %v for a hanging collector, want about the post timeout", d)
	}
	if n := len(spoolFiles(t, dir)); n != 2 {
		t.Fatalf("spool segments after a timeout = %d, want 2", n)
	}

	c.set("ok")
	if err := r.Flush(t.Context()); err != nil {
		t.Fatalf("Flush after recovery: %v", err)
	}
	want = append(want, more...)
	slices.Sort(want)
	if got := c.received(); !slices.Equal(got, want) {
		t.Errorf("received %d ids, want the %d recorded:\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	if n := len(spoolFiles(t, dir)); n != 0 {
		t.Errorf("spool segments after delivery = %d, want 0", n)
	}
	// The batch format: seed 000 §10.3 plus the id.
	c.mu.Lock()
	e := c.bodies[0]
	c.mu.Unlock()
	for _, k := range []string{"id", "type", "timestamp", "server_id", "data"} {
		if _, ok := e[k]; !ok {
			t.Errorf("posted event lacks %q: %v", k, e)
		}
	}
	if e["server_id"] != "dev-test" || e["type"] != TypeSearch {
		t.Errorf("posted event = %v", e)
	}
	if _, err := time.Parse(time.RFC3339Nano, e["timestamp"].(string)); err != nil {
		t.Errorf("timestamp %v is not RFC 3339: %v", e["timestamp"], err)
	}
}

// TestPublisherLoop: the background publisher delivers on its own every
// FlushInterval, once the collector is back.
func TestPublisherLoop(t *testing.T) {
	c := newCollector(t)
	c.set("fail")
	r := openTest(t, t.TempDir(), c.url(), func(o *Options) { o.FlushInterval = 50 * time.Millisecond })
	want := recordN(t, r, 5)
	time.Sleep(200 * time.Millisecond)
	if got := c.received(); len(got) != 0 {
		t.Fatalf("received %v from a failing collector", got)
	}
	c.set("ok")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(c.received(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("received %v, want %v", c.received(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartDelivers: events spooled while the endpoint was down and the
// recorder closed are delivered by the next recorder on the same folder.
func TestRestartDelivers(t *testing.T) {
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()
	r := openTest(t, dir, c.url(), nil)
	want := recordN(t, r, 7)
	_ = r.Flush(t.Context())
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c.set("ok")
	r2 := openTest(t, dir, c.url(), nil)
	if err := r2.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.received(); !slices.Equal(got, want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

// TestSharedFolder: two recorders on one folder (two processes sharing
// SKILLSD_HOME): neither publishes the other's active segment, and every
// event is delivered once both flushed.
func TestSharedFolder(t *testing.T) {
	c := newCollector(t)
	dir := t.TempDir()
	a := openTest(t, dir, c.url(), nil)
	b := openTest(t, dir, c.url(), nil)
	wantA := recordN(t, a, 4)
	if err := b.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := c.received(); len(got) != 0 {
		t.Fatalf("b delivered a's active segment: %v", got)
	}
	if n := len(spoolFiles(t, dir)); n != 1 {
		t.Fatalf("segments = %d, want a's one", n)
	}
	wantB := recordN(t, b, 3)
	if err := a.Flush(t.Context()); err != nil { // seals a's; b's is active
		t.Fatal(err)
	}
	if err := b.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := append(wantA, wantB...)
	slices.Sort(want)
	if got := c.received(); !slices.Equal(got, want) {
		t.Errorf("received %v, want %v", got, want)
	}
}

// TestSpoolFullPolicy: at the cap new events are refused, counted and
// logged; the spooled ones are delivered later and room comes back.
func TestSpoolFullPolicy(t *testing.T) {
	var logBuf syncBuffer
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()
	line := len(eventLine(t, "0197a0b0-0000-7000-8000-000000000000")) + 200
	r := openTest(t, dir, c.url(), func(o *Options) {
		o.MaxSpoolBytes = int64(10 * line)
		o.Logger = slog.New(slog.NewTextHandler(&logBuf, nil))
	})
	var kept []string
	full := 0
	for i := range 40 {
		e, err := r.Record(Searched(fmt.Sprintf("q%d", i), 0))
		switch {
		case errors.Is(err, ErrSpoolFull):
			full++
		case err != nil:
			t.Fatal(err)
		default:
			kept = append(kept, e.ID)
		}
	}
	if full == 0 || r.Dropped() != int64(full) {
		t.Fatalf("refused %d, Dropped() = %d; want some refused and counted", full, r.Dropped())
	}
	if !strings.Contains(logBuf.String(), "usage spool is full") {
		t.Errorf("no warning logged; log:\n%s", logBuf.String())
	}
	if n := strings.Count(logBuf.String(), "usage spool is full"); n != 1 {
		t.Errorf("warned %d times, want once a minute at most", n)
	}
	c.set("ok")
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	slices.Sort(kept)
	if got := c.received(); !slices.Equal(got, kept) {
		t.Errorf("received %d, want the %d spooled", len(got), len(kept))
	}
	if _, err := r.Record(Searched("after", 0)); err != nil {
		t.Errorf("Record after delivery = %v, want room again", err)
	}
}

// TestLocalOnly: with no endpoint the events reach the store, and the spool
// empties at the next delivery.
func TestLocalOnly(t *testing.T) {
	dir := t.TempDir()
	r := openTest(t, dir, "", nil)
	recordN(t, r, 6)
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(spoolFiles(t, dir)); n != 0 {
		t.Errorf("segments = %d, want 0", n)
	}
	st, err := r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalEvents != 6 {
		t.Errorf("TotalEvents = %d, want 6", st.TotalEvents)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The crash test (crash_unix_test.go): a child process (this test binary,
// re-executed to run TestCrashChild) records events with the endpoint down
// and is killed with SIGKILL before it can publish.

const crashChildEnv = "SKILLSD_USAGE_CRASH_CHILD"

// TestCrashChild is the child's side: it records 50 events, prints their
// ids, then waits to be killed (no Close, no flush, no fsync). It is skipped
// unless the crash test runs it.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("run by TestCrashBetweenRecordAndPublish only")
	}
	r, err := Open(t.Context(), Options{Dir: dir, Endpoint: os.Getenv("SKILLSD_USAGE_CRASH_ENDPOINT"), FlushInterval: time.Hour, ServerID: "dev-child"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		p := NoMatch(fmt.Sprintf("task %d", i%5))
		if i%2 == 0 {
			p = Feedback("pdf", i%4 == 0, fmt.Sprintf("comment %d", i))
		}
		e, err := r.Record(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(e.ID)
	}
	fmt.Println("recorded")
	<-t.Context().Done() // killed before this
}

// TestRecordForOneCall: the events of one call (one request id) have one
// id, however often the call is made (a client retrying it), and the store
// keeps it once; another call, or the same call's other data, is another
// event, and Record's ids never repeat.
func TestRecordForOneCall(t *testing.T) {
	r := openTest(t, t.TempDir(), "", nil)
	record := func(call string, p Payload) string {
		t.Helper()
		e, err := r.RecordFor(call, p)
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	first := record("req-1", Searched("pdf tables", 3))
	if again := record("req-1", Searched("pdf tables", 3)); again != first {
		t.Errorf("the same call made again: id %s, want %s", again, first)
	}
	ids := map[string]bool{first: true}
	for _, id := range []string{
		record("req-2", Searched("pdf tables", 3)), // another call
		record("req-1", Searched("pdf tables", 4)), // other data
		record("req-1", NoMatch("pdf tables")),     // another type
		record("", Searched("pdf tables", 3)),      // no call: Record
		record("", Searched("pdf tables", 3)),
	} {
		if ids[id] {
			t.Errorf("id %s given twice", id)
		}
		ids[id] = true
	}
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	st, err := r.Stats(t.Context(), Window{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour), TopN: 10})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalEvents != 6 {
		t.Errorf("TotalEvents = %d, want 6 (seven recorded, one of them twice)", st.TotalEvents)
	}
}

// TestKeyedID checks KeyedID's form (a UUIDv8) and that no part runs into
// the next.
func TestKeyedID(t *testing.T) {
	id := KeyedID("req", "search", []byte(`{"query":"q"}`))
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' || id[14] != '8' || !strings.ContainsRune("89ab", rune(id[19])) {
		t.Errorf("KeyedID = %q, want a UUIDv8 in its text form", id)
	}
	if KeyedID("ab", "c", nil) == KeyedID("a", "bc", nil) {
		t.Error("KeyedID(ab, c) = KeyedID(a, bc): the parts run into each other")
	}
	if KeyedID("req", "search", []byte(`{"query":"q"}`)) != id {
		t.Error("KeyedID is not a function of its inputs")
	}
}

package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func eventLine(t testing.TB, id string) []byte {
	t.Helper()
	b, err := json.Marshal(Event{ID: id, Type: TypeSearch, Timestamp: time.Unix(1700000000, 0).UTC(), ServerID: "dev-test", Data: map[string]any{"query": "q", "result_count": 1}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	now := time.Now()
	seen := map[string]bool{}
	for range 10000 {
		id := NewID(now)
		if !re.MatchString(id) {
			t.Fatalf("NewID = %q, want a UUIDv7", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	// Ids sort by time.
	if a, b := NewID(time.UnixMilli(1000)), NewID(time.UnixMilli(2000)); a >= b {
		t.Errorf("NewID(1s) = %s is not before NewID(2s) = %s", a, b)
	}
}

func TestDefaultServerID(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"USER": "ada"}, "dev-ada"},
		{map[string]string{"USERNAME": "bob"}, "dev-bob"},
		{map[string]string{"USER": "ada", "USERNAME": "bob"}, "dev-ada"},
		{nil, "dev-unknown"},
	} {
		if got := DefaultServerID(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("DefaultServerID(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestSpoolSegments: appended events are in a segment that no one can claim
// while it is active; once sealed it is claimed, read and removed.
func TestSpoolSegments(t *testing.T) {
	dir := t.TempDir()
	s, err := openSpool(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := s.append(eventLine(t, id)); err != nil {
			t.Fatal(err)
		}
	}
	segs, err := s.segments()
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments = %v, %v; want one", segs, err)
	}
	if c, err := s.claim(segs[0]); c != nil || err != nil {
		t.Fatalf("claim(active) = %v, %v; want nothing", c, err)
	}
	// Another spool on the same folder (another process) cannot take it either.
	other, err := openSpool(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := other.claim(segs[0]); c != nil || err != nil {
		t.Fatalf("other.claim(active) = %v, %v; want nothing", c, err)
	}
	if err := s.seal(); err != nil {
		t.Fatal(err)
	}
	c, err := other.claim(segs[0])
	if c == nil || err != nil {
		t.Fatalf("claim(sealed) = %v, %v; want the segment", c, err)
	}
	events, bad, err := readSegment(c.f)
	if err != nil || bad != 0 || len(events) != 3 || events[0].ID != "a" || events[2].ID != "c" {
		t.Fatalf("readSegment = %v, %d, %v; want a, b, c", events, bad, err)
	}
	// While claimed, nobody else gets it.
	if c2, _ := s.claim(segs[0]); c2 != nil {
		t.Fatal("a claimed segment was claimed twice")
	}
	if err := other.remove(c); err != nil {
		t.Fatal(err)
	}
	if segs, _ := s.segments(); len(segs) != 0 {
		t.Errorf("segments after remove = %v, want none", segs)
	}
	// The next append starts a new segment.
	if err := s.append(eventLine(t, "d")); err != nil {
		t.Fatal(err)
	}
	if segs, _ := s.segments(); len(segs) != 1 {
		t.Errorf("segments = %v, want one new", segs)
	}
}

// TestSpoolRotates: a segment is sealed at segmentMaxEvents.
func TestSpoolRotates(t *testing.T) {
	s, err := openSpool(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range segmentMaxEvents + 1 {
		if err := s.append(eventLine(t, string(rune('a'+i%26)))); err != nil {
			t.Fatal(err)
		}
	}
	segs, _ := s.segments()
	if len(segs) != 2 {
		t.Fatalf("segments = %d, want 2", len(segs))
	}
	if c, _ := s.claim(segs[0]); c == nil {
		t.Error("the full segment cannot be claimed; it should have been sealed")
	} else {
		c.release()
	}
}

// TestSpoolCap: at the cap, new lines are refused and the spooled ones stay.
func TestSpoolCap(t *testing.T) {
	line := eventLine(t, "x")
	s, err := openSpool(t.TempDir(), int64(3*(len(line)+1)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.append(line); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if err := s.append(line); !errors.Is(err, ErrSpoolFull) {
		t.Fatalf("append past the cap = %v, want ErrSpoolFull", err)
	}
	_ = s.seal()
	segs, _ := s.segments()
	c, _ := s.claim(segs[0])
	events, _, _ := readSegment(c.f)
	if len(events) != 3 {
		t.Errorf("spooled events = %d, want the 3 appended before the cap", len(events))
	}
	if err := s.remove(c); err != nil {
		t.Fatal(err)
	}
	if err := s.append(line); err != nil {
		t.Errorf("append after delivery = %v, want room again", err)
	}
}

// TestReadSegmentSkipsBadLines: a torn last line, garbage, an invalid event
// and an overlong line are skipped; the good events around them are kept.
func TestReadSegmentSkipsBadLines(t *testing.T) {
	var b bytes.Buffer
	b.Write(eventLine(t, "1"))
	b.WriteString("\nnot json\n")
	b.WriteString(`{"id":"","type":"search","timestamp":"2026-01-01T00:00:00Z"}` + "\n")
	b.WriteString("\n")
	b.WriteString(`{"id":"long","type":"search","timestamp":"2026-01-01T00:00:00Z","data":{"q":"` + strings.Repeat("x", MaxEventBytes) + `"}}` + "\n")
	b.Write(eventLine(t, "2"))
	b.WriteString("\n")
	torn := eventLine(t, "3")
	b.Write(torn[:len(torn)/2])
	events, bad, err := readSegment(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].ID != "1" || events[1].ID != "2" {
		t.Errorf("events = %+v, want 1 and 2", events)
	}
	if bad != 4 {
		t.Errorf("bad = %d, want 4", bad)
	}
}

// TestClaimLeftover: a segment left by a process that died (no lock) is
// claimed; a pending file is never listed.
func TestClaimLeftover(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "00000000000000000001-1-aaaa"+segmentExt)
	if err := os.WriteFile(name, append(eventLine(t, "left"), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000002-1-bbbb"+pendingExt), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := openSpool(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := s.segments()
	if len(segs) != 1 || segs[0] != name {
		t.Fatalf("segments = %v, want %s", segs, name)
	}
	c, err := s.claim(name)
	if c == nil || err != nil {
		t.Fatalf("claim = %v, %v", c, err)
	}
	c.release()

	// The pending file goes once it is a minute old and no one holds it.
	pending := filepath.Join(dir, "00000000000000000002-1-bbbb"+pendingExt)
	s.cleanPending(time.Now())
	if _, err := os.Stat(pending); err != nil {
		t.Fatalf("a fresh pending file was removed: %v", err)
	}
	s.cleanPending(time.Now().Add(2 * time.Minute))
	if _, err := os.Stat(pending); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an old pending file stayed: %v", err)
	}
}

// FuzzReadSegment: any bytes read as a segment give valid events or skipped
// lines, never a panic or an error, and the good lines before garbage survive.
func FuzzReadSegment(f *testing.F) {
	f.Add([]byte(""))
	f.Add(append(eventLine(f, "a"), '\n'))
	f.Add([]byte("{\"id\":\"x\"}\n\xff\xfe\n{"))
	f.Add([]byte(`{"id":"i","type":"t","timestamp":"2026-01-01T00:00:00Z","server_id":"s","data":null}`))
	f.Add(bytes.Repeat([]byte("a"), MaxEventBytes+10))
	good := append(eventLine(f, "keep"), '\n')
	f.Fuzz(func(t *testing.T, data []byte) {
		events, _, err := readSegment(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("readSegment: %v", err)
		}
		for _, e := range events {
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event returned: %v", err)
			}
		}
		// A good line first is always kept, whatever follows.
		events, _, err = readSegment(bytes.NewReader(append(append([]byte{}, good...), data...)))
		if err != nil || len(events) == 0 || events[0].ID != "keep" {
			t.Fatalf("good first line lost: %v, %v", events, err)
		}
	})
}

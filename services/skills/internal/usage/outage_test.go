package usage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/testfs"
)

// TestSpoolDiskFull fills the spool's own file system, a 64 KiB tmpfs far
// below MaxSpoolBytes, while the endpoint is down: the kernel refuses
// writes (ENOSPC). Events that do not fit are refused as ErrSpoolFull,
// counted in Dropped and warned about once; the spool stays whole: one
// segment, every line an event, no half-written line, no empty segment
// per refused event; once the endpoint is back every accepted event is
// delivered, the spool empties, and events are accepted again. Before, a
// refused event left a torn line behind, every later one an empty segment
// file, none was counted, and each was logged as an error.
func TestSpoolDiskFull(t *testing.T) {
	var logBuf syncBuffer
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()
	spoolDir := filepath.Join(dir, "spool")
	if err := os.Mkdir(spoolDir, 0o700); err != nil {
		t.Fatal(err)
	}
	testfs.MountTmpfs(t, spoolDir, 64<<10)
	r := openTest(t, dir, c.url(), func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logBuf, nil))
	})
	comment := strings.Repeat("a long comment that fills the disk ", 10)
	var kept []string
	full := 0
	for i := range 400 {
		e, err := r.Record(Feedback(fmt.Sprintf("skill-%d", i), true, comment))
		switch {
		case errors.Is(err, ErrSpoolFull):
			full++
		case err != nil:
			t.Fatalf("event %d: %v, want ErrSpoolFull once the disk is full", i, err)
		default:
			kept = append(kept, e.ID)
		}
	}
	t.Logf("%d events spooled, %d refused", len(kept), full)
	if full == 0 || len(kept) == 0 || r.Dropped() != int64(full) {
		t.Fatalf("spooled %d, refused %d, Dropped() = %d; want some of each, every refusal counted", len(kept), full, r.Dropped())
	}
	if n := strings.Count(logBuf.String(), "usage spool is full"); n != 1 || !strings.Contains(logBuf.String(), "no space left on device") {
		t.Errorf("want one warning naming the full device, got %d; log:\n%s", n, logBuf.String())
	}
	if strings.Contains(logBuf.String(), "level=ERROR") {
		t.Errorf("refused events logged as errors:\n%s", logBuf.String())
	}
	segs := spoolFiles(t, dir)
	if len(segs) != 1 {
		t.Errorf("segments: %v, want the one being written", segs)
	}
	for _, p := range segs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		events, bad, err := readSegment(f)
		_ = f.Close()
		if err != nil || bad != 0 || len(events) != len(kept) {
			t.Errorf("segment %s: %d events, %d bad lines, %v; want the %d spooled, none bad", p, len(events), bad, err, len(kept))
		}
	}

	c.set("ok")
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	slices.Sort(kept)
	if got := c.received(); !slices.Equal(got, kept) {
		t.Errorf("delivered %d events, want the %d spooled, exactly", len(got), len(kept))
	}
	if segs := spoolFiles(t, dir); len(segs) != 0 {
		t.Errorf("segments after delivery: %v, want none", segs)
	}
	e, err := r.Record(Feedback("after", true, comment))
	if err != nil {
		t.Fatalf("Record once the spool is delivered: %v, want room again", err)
	}
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.received(), e.ID) {
		t.Errorf("the event recorded after the disk had room again was not delivered")
	}
	if !strings.Contains(logBuf.String(), "usage spool has room again") {
		t.Errorf("no line saying the spool takes events again; log:\n%s", logBuf.String())
	}
}

// TestRetrySoonAfterFailedDelivery: a server restarted during an outage
// records nothing new; its first delivery fails. Once the endpoint is back,
// the spool left by the previous run arrives within seconds, not at the
// next FlushInterval (an hour here; 30 s by default): a failed delivery is
// retried after 1 s, then 2, 4, … up to FlushInterval.
func TestRetrySoonAfterFailedDelivery(t *testing.T) {
	c := newCollector(t)
	c.set("fail")
	dir := t.TempDir()
	r := openTest(t, dir, c.url(), nil)
	want := recordN(t, r, 5)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	openTest(t, dir, c.url(), nil) // its delivery at start fails
	c.set("ok")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(c.received(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("received %d of the %d spooled events 10 s after the endpoint came back, want all", len(c.received()), len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

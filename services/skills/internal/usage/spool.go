package usage

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The spool is a folder of segment files, one JSON event per line. A process
// appends to its own active segment, which it holds locked (flock) for as
// long as it writes to it; the publisher (of any process sharing the folder)
// seals its own active segment, then delivers and removes every segment it
// can lock: sealed ones, and those left by a process that died. A segment is
// removed only once every sink took its events, so a crash, kill -9 or a
// dead endpoint loses nothing; events can be delivered twice (at-least-once),
// which their ids make harmless.
//
// Durability: Append writes the line with one write(2) on an O_APPEND file
// before it returns, so the event survives the process being killed at any
// point after that. fsync runs on Sync (the recorder calls it at most every
// second when something was appended) and when a segment is sealed, so a
// power loss can lose at most the last second of events.
//
// Bound: when the segments add up to MaxBytes, or the file system holding
// them is full, Append refuses new events (ErrSpoolFull): what the spool
// holds is never dropped to make room, and a refused event leaves nothing
// behind (the part of its line the disk took is truncated away).

// Segment limits: the active segment is sealed when it reaches either, so a
// segment is one reasonable POST.
const (
	segmentMaxBytes  = 1 << 20
	segmentMaxEvents = 1000
	segmentExt       = ".jsonl"
	pendingExt       = ".new"
)

// ErrSpoolFull is returned by Append when the spool reached its size cap,
// or its file system has no space left (the error then wraps the system's).
var ErrSpoolFull = errors.New("usage spool is full")

// noSpace reports whether err says the file system is full (or the user's
// quota spent).
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// spool is the folder of segments.
type spool struct {
	dir      string
	maxBytes int64

	mu      sync.Mutex
	active  *os.File // nil until the first append after a seal
	name    string   // active segment's path
	size    int64    // active segment's bytes
	events  int      // active segment's events
	dirty   bool     // appended since the last fsync
	newDir  bool     // a segment was created since the folder's last fsync
	total   int64    // bytes of every segment, as last counted plus appended since
	counted time.Time
}

// openSpool opens (creating) the spool folder.
func openSpool(dir string, maxBytes int64) (*spool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the usage spool %s: %w", dir, err)
	}
	s := &spool{dir: dir, maxBytes: maxBytes}
	if err := s.recount(); err != nil {
		return nil, err
	}
	return s, nil
}

// recount adds up the sizes of the segments in the folder (other processes
// write there too).
func (s *spool) recount() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("reading the usage spool: %w", err)
	}
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), segmentExt) {
			continue
		}
		if info, err := e.Info(); err == nil {
			total += info.Size()
		}
	}
	s.mu.Lock()
	s.total = total
	s.counted = time.Now()
	s.mu.Unlock()
	return nil
}

// append writes one event line (without its newline) to the active segment.
func (s *spool) append(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := int64(len(line)) + 1
	if s.maxBytes > 0 && s.total+n > s.maxBytes {
		return ErrSpoolFull
	}
	if s.active == nil {
		if err := s.openSegment(); err != nil {
			if noSpace(err) {
				return fmt.Errorf("%w: %w", ErrSpoolFull, err)
			}
			return err
		}
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	if _, err := s.active.Write(buf); err != nil {
		// The disk is full: take back the part of the line that was
		// written, so that the segment stays whole, and keep it for the
		// next event (a new segment per refused event would pile up empty
		// files).
		if noSpace(err) && s.active.Truncate(s.size) == nil {
			return fmt.Errorf("%w: %w", ErrSpoolFull, err)
		}
		// Otherwise a partial line may be left, which the reader skips;
		// start a fresh segment.
		s.closeActive()
		return fmt.Errorf("appending to the usage spool: %w", err)
	}
	s.size += n
	s.total += n
	s.events++
	s.dirty = true
	if s.size >= segmentMaxBytes || s.events >= segmentMaxEvents {
		return s.sealLocked()
	}
	return nil
}

// openSegment creates a new active segment: created under a pending name
// that publishers ignore, locked, then renamed, so that no publisher can
// take it before its writer holds the lock.
func (s *spool) openSegment() error {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	base := fmt.Sprintf("%020d-%d-%s", time.Now().UnixNano(), os.Getpid(), hex.EncodeToString(rnd[:]))
	pending := filepath.Join(s.dir, base+pendingExt)
	f, err := os.OpenFile(pending, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("creating a usage spool segment: %w", err)
	}
	if ok, err := tryLock(f); err != nil || !ok {
		_ = f.Close()
		_ = os.Remove(pending)
		return fmt.Errorf("locking a usage spool segment: %v", cmpErr(err, "held by another process"))
	}
	name := filepath.Join(s.dir, base+segmentExt)
	if err := os.Rename(pending, name); err != nil {
		_ = f.Close()
		_ = os.Remove(pending)
		return fmt.Errorf("naming a usage spool segment: %w", err)
	}
	s.active, s.name, s.size, s.events, s.newDir = f, name, 0, 0, true
	return nil
}

func cmpErr(err error, otherwise string) string {
	if err != nil {
		return err.Error()
	}
	return otherwise
}

// locked runs f holding the spool's lock.
func (s *spool) locked(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// sync flushes the active segment (and the folder, when a segment was
// created) to stable storage.
func (s *spool) sync() error { return s.locked(s.syncLocked) }

func (s *spool) syncLocked() error {
	var err error
	if s.active != nil && s.dirty {
		if err = s.active.Sync(); err == nil {
			s.dirty = false
		}
	}
	if s.newDir {
		if d, derr := os.Open(s.dir); derr == nil {
			_ = d.Sync() // not supported everywhere (Windows); best effort
			_ = d.Close()
		}
		s.newDir = false
	}
	return err
}

// seal closes the active segment (after an fsync) so that it can be
// published; the next append starts a new one.
func (s *spool) seal() error { return s.locked(s.sealLocked) }

func (s *spool) sealLocked() error {
	if s.active == nil {
		return nil
	}
	err := s.syncLocked()
	s.closeActive()
	return err
}

func (s *spool) closeActive() {
	if s.active != nil {
		_ = s.active.Close() // releases the lock
	}
	s.active, s.name, s.size, s.events, s.dirty = nil, "", 0, 0, false
}

// activeName is the active segment's path ("" when none).
func (s *spool) activeName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.name
}

// segments lists the segment files, oldest first (names start with the
// creation time in nanoseconds).
func (s *spool) segments() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("reading the usage spool: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), segmentExt) {
			out = append(out, filepath.Join(s.dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}

// cleanPending removes pending segment files (created, never named: their
// process died in between) older than a minute that no one holds.
func (s *spool) cleanPending(now time.Time) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), pendingExt) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < time.Minute {
			continue
		}
		path := filepath.Join(s.dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if ok, err := tryLock(f); err != nil || !ok {
			_ = f.Close()
			continue
		}
		_ = removeLocked(f, path)
	}
}

// claimed is a segment this process holds locked for delivery.
type claimed struct {
	path string
	f    *os.File
}

// claim locks the segment at path for delivery. It reports nil when the
// segment is someone's active segment, is being delivered by another
// process, or is gone.
func (s *spool) claim(path string) (*claimed, error) {
	if path == s.activeName() {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		_ = f.Close()
		return nil, err
	}
	// Another publisher may have removed the file after we opened it.
	held, err1 := f.Stat()
	named, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		_ = f.Close()
		return nil, nil
	}
	return &claimed{path: path, f: f}, nil
}

// release gives a claimed segment back (delivery failed: it stays).
func (c *claimed) release() { _ = c.f.Close() }

// remove deletes a delivered segment.
func (s *spool) remove(c *claimed) error {
	info, _ := c.f.Stat()
	err := removeLocked(c.f, c.path)
	if err == nil && info != nil {
		s.mu.Lock()
		s.total = max(0, s.total-info.Size())
		s.mu.Unlock()
	}
	return err
}

// readSegment reads a segment's events. Lines that are not a valid event (a
// torn write after a power loss, a line longer than MaxEventBytes, garbage)
// are counted in bad and skipped; the rest is never lost because of them.
func readSegment(r io.Reader) (events []Event, bad int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, rerr := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var e Event
			if tooLong || json.Unmarshal(line, &e) != nil || e.Validate() != nil {
				bad++
			} else {
				events = append(events, e)
			}
		}
		if rerr == io.EOF {
			return events, bad, nil
		}
		if rerr != nil {
			return events, bad, rerr
		}
	}
}

// readLine reads one line without its newline; a line longer than
// MaxEventBytes is consumed and reported as tooLong.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > MaxEventBytes {
				tooLong, line = true, nil
			}
		}
		if err != nil || !isPrefix {
			if err == io.EOF && (len(line) > 0 || tooLong) {
				return line, tooLong, io.EOF
			}
			return line, tooLong, err
		}
	}
}

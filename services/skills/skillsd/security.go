package skillsd

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// newScanner makes the security scanner of cfg: the built-in rules and
// security.rules, the quarantine and allow policy, and a cache of scans in
// the state folder so that a restart does not scan unchanged skills again.
// A rule file that cannot be read or a rule that does not hold is an error
// naming the key.
func newScanner(cfg config.Config, cwd, home string, getenv func(string) string) (*scan.Scanner, error) {
	sec := cfg.Security
	policy := scan.Policy{}
	threshold, err := scan.ParseSeverity(sec.Quarantine)
	if err != nil {
		return nil, fmt.Errorf("security.quarantine: %w", err)
	}
	policy.Quarantine = threshold
	for _, a := range sec.Allow {
		policy.Allow = append(policy.Allow, scan.Allow{Rule: a.Rule, Skill: a.Skill, Digest: a.Digest, Reason: a.Reason})
	}
	var rules []string
	for _, r := range sec.Rules {
		rules = append(rules, userpath.Abs(r, cwd, home, getenv))
	}
	opts := scan.Options{RuleFiles: rules, Policy: policy}
	if state := config.StateDir(cfg, getenv, home); state != "" {
		opts.CacheFile = filepath.Join(state, scan.CacheFileName())
	}
	return scan.New(opts)
}

// flushScans keeps the scans of the last build for the next start.
func (s *Server) flushScans() {
	if s.scanner == nil {
		return
	}
	if err := s.scanner.Flush(); err != nil {
		s.log.Warn("could not keep the security scans for the next start", "error", err)
	}
}

// scanFlushEvery is the least time between two writes of the scan cache
// after builds (flushScansLater): a burst of edits writes the file once,
// not once each.
const scanFlushEvery = 5 * time.Second

// scanFlush schedules the writes of the scan cache that follow builds.
type scanFlush struct {
	mu     sync.Mutex
	timer  *time.Timer // the write scheduled, if any
	last   time.Time   // when the last one started
	closed bool
	wg     sync.WaitGroup // counts the writes scheduled or running
}

// flushScansLater keeps the scans of the last build for the next start, in
// the background and at most every scanFlushEvery (off the path of the
// change a build serves: the file holds every skill's scan); Close writes
// what is left (closeScanFlush).
func (s *Server) flushScansLater() {
	if s.scanner == nil {
		return
	}
	f := &s.scanFlush
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.timer != nil {
		return // a write is due: it will write this build's scans
	}
	f.wg.Add(1)
	f.timer = time.AfterFunc(max(scanFlushEvery-time.Since(f.last), 0), func() {
		defer f.wg.Done()
		f.mu.Lock()
		f.timer, f.last = nil, time.Now()
		f.mu.Unlock()
		s.flushScans()
	})
}

// closeScanFlush writes the scan cache now, in place of a scheduled write
// or after the one running, once the builds have stopped.
func (s *Server) closeScanFlush() {
	f := &s.scanFlush
	f.mu.Lock()
	f.closed = true
	if f.timer != nil && f.timer.Stop() {
		f.timer = nil
		f.wg.Done()
	}
	f.mu.Unlock()
	f.wg.Wait()
	s.flushScans() // nothing to write when nothing changed since the last
}

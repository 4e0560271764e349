package skillsd

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// The first security scan of skills the scanner never saw costs about ten
// times a catalog build, so it is kept off the build (catalog.Options.
// DeferScan): a build answers the skills whose scan is cached and leaves the
// others pending — not served on any surface, as if quarantined, with a
// scan-pending diagnostic — and the server scans them in the background,
// then rebuilds so that the verdicts are swapped in (the swap notifies the
// change streams). Readiness (gRPC health, /readyz) waits for the first such
// scan; liveness does not, and catalog reads answer at once with the skills
// already scanned.

// scanWorkers is how many skills the background scan scans at once. The
// first scan runs on all cores: readiness waits for it, and so does an MCP
// host's first request for the catalog (skills-mcp), so a core kept from it
// would serve nothing sooner (a cold start of 3,000 skills answered its
// first search in 5.1 s instead of 8.8 on two cores). Later scans run on all
// cores but one, so that serving keeps a core while they run.
func scanWorkers(first bool) int {
	if first {
		return runtime.GOMAXPROCS(0)
	}
	return max(1, runtime.GOMAXPROCS(0)-1)
}

// buildOptions are the options of every catalog build of the server: the
// files that did not change taken from the catalog served (before the first,
// from the catalog cache of the last start), the paths that changed (nil:
// any), a large first scan deferred, and the commit of each git source (its
// identity, catalog.Source.ContentID).
func (s *Server) buildOptions(dirty []string) catalog.Options {
	return catalog.Options{Logger: s.log, Previous: s.store.Current(), Cache: s.held, Dirty: dirty, Scan: s.scanner, DeferScan: true,
		Revision: s.fresh.Revision}
}

// scanJob is the state of the background scan.
type scanJob struct {
	mu sync.Mutex
	// running says the background security scan runs; again that a
	// catalog with skills pending was swapped in meanwhile.
	running, again bool
}

// scanLater starts the background scan when the catalog served leaves skills
// pending. Only one runs at a time: while it runs, a new catalog with pending
// skills makes it go round once more. It does nothing before the background
// work started (load calls it then) or after it stopped.
func (s *Server) scanLater() {
	snap := s.store.Current()
	pending := snap != nil && snap.Stats().ScanPending > 0
	j := &s.scans
	j.mu.Lock()
	defer j.mu.Unlock()
	if !s.fresh.Running() {
		return
	}
	if j.running {
		j.again = j.again || pending
		return
	}
	if !pending {
		s.firstScanDone()
		return
	}
	j.running = s.fresh.Go(s.scanLoop)
}

// scanLoop scans the pending skills until none is left to scan, or ctx ends
// (the server stops).
func (s *Server) scanLoop(ctx context.Context) {
	j := &s.scans
	for {
		if err := s.scanRound(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("the background security scan failed; the skills it did not scan stay unserved until the next rebuild", "error", err)
		}
		j.mu.Lock()
		if j.again && ctx.Err() == nil {
			j.again = false
			j.mu.Unlock()
			continue
		}
		j.running, j.again = false, false
		j.mu.Unlock()
		if ctx.Err() == nil {
			s.firstScanDone()
		}
		return
	}
}

// scanRound scans the skills the catalog served leaves pending, then
// rebuilds it so that their verdicts are served, until nothing is pending or
// a round scans nothing new (what then stays pending does not wait for a
// scan: a rebuild the shrink guard refused, say; the next rebuild retries).
func (s *Server) scanRound(ctx context.Context) error {
	for i := 0; ; i++ {
		snap := s.store.Current()
		if snap == nil || snap.Stats().ScanPending == 0 {
			return nil
		}
		if g := s.opts.scanGate; g != nil {
			select {
			case <-g:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		start, pending := time.Now(), snap.Stats().ScanPending
		n, err := catalog.ScanPending(ctx, snap, s.scanner, scanWorkers(!s.firstScanned()))
		if err != nil {
			return err
		}
		if n == 0 && i > 0 {
			return nil
		}
		s.flushScans()
		if err := s.fresh.Build(ctx); err != nil {
			return err
		}
		s.flushScans() // what the build scanned too
		after := s.store.Current()
		s.log.Info("security scan done in the background", "scanned", n, "pending_before", pending,
			"pending_now", after.Stats().ScanPending, "quarantined", after.Stats().Quarantined,
			"generation", after.Generation(), "took", time.Since(start).Round(time.Millisecond))
	}
}

// firstScanDone records that the first catalog's skills are all scanned (or
// that the first background scan ended): readiness may now report SERVING,
// and WaitReady returns.
func (s *Server) firstScanDone() {
	s.scannedOnce.Do(func() {
		// Readiness first, then WaitReady's channel: a caller that
		// WaitReady let through finds the health service already saying so.
		s.readyMu.Lock()
		s.isScanned = true
		s.setReady(s.isLoaded && s.isScanned)
		s.readyMu.Unlock()
		close(s.scanned)
	})
}

// firstScanned reports whether the first catalog's skills are all scanned
// (firstScanDone).
func (s *Server) firstScanned() bool {
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	return s.isScanned
}

// setLoaded records that the first catalog is loaded: readiness reports
// SERVING once its first scan is done too.
func (s *Server) setLoaded() {
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	s.isLoaded = true
	s.setReady(s.isLoaded && s.isScanned)
}

// WaitLoaded waits until a first catalog New left to load in the
// background (LoadInBackground) is loaded, or its load failed; at once
// otherwise. It returns ctx's error when ctx ends first, and an error when
// the server is closed.
func (s *Server) WaitLoaded(ctx context.Context) error {
	if s.loadDone == nil {
		return nil
	}
	select {
	case <-s.loadDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closeCh:
		return errors.New("skillsd: server is closed")
	}
}

// WaitScanned waits until the first background security scan is done (at
// once when there is none), ctx ends (its error), or the server is closed.
// It returns at once while the first catalog still loads after a first
// clone: calls are then refused as loading, which is the better answer. A
// first catalog New left to load in the background (LoadInBackground) it
// waits for, then for its scan. An embedded gateway whose host reads the
// catalog once and trusts it (an MCP host over stdio) holds its calls with
// it rather than answer without the skills that are still loading or wait
// for their scan.
func (s *Server) WaitScanned(ctx context.Context) error {
	if err := s.WaitLoaded(ctx); err != nil {
		return err
	}
	select {
	case <-s.ready:
	default:
		return nil // loading after a first clone, or the load failed: refused as loading
	}
	select {
	case <-s.scanned:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.closeCh:
		return errors.New("skillsd: server is closed")
	}
}

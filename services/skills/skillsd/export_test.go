package skillsd

import (
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// HoldRefresh marks a refresh as running on s, as a refresh that takes long
// would, until release is called: tests use it to check what waits for a
// running refresh. It fails the test (false) when a refresh already runs.
func HoldRefresh(s *Server) (release func(), ok bool) {
	return s.fresh.Hold()
}

// RefreshInterval is the interval of s's periodic refresh of git sources
// (refresh.enabled, refresh.interval_minutes); 0 is off.
func RefreshInterval(s *Server) time.Duration { return s.fresh.Interval() }

// GateScans makes each round of the background security scan of the server
// made with opts wait until gate receives or is closed: tests use it to look
// at the catalog while skills wait for their first scan.
func GateScans(opts *Options, gate <-chan struct{}) { opts.scanGate = gate }

// Catalog is the catalog s serves.
func Catalog(s *Server) *catalog.Snapshot { return s.store.Current() }

// ScanWorkers is how many skills the background scan scans at once, in the
// first scan (first) and after it.
func ScanWorkers(first bool) int { return scanWorkers(first) }

package main

import (
	"fmt"
	"io"
	"time"
)

// progressEvery is how often a long command says how far it is.
const progressEvery = 2 * time.Second

// progress tells, on stderr, how far a long command is: at most one line per
// interval, and a last line when the work is done if any line was written
// or the work took longer than one interval. Results stay on stdout.
type progress struct {
	w        io.Writer
	what     string // "eval"
	unit     string // "queries"
	total    int    // 0 when unknown
	every    time.Duration
	start    time.Time
	last     time.Time
	done     int
	reported bool
}

func newProgress(w io.Writer, what, unit string, total int, every time.Duration) *progress {
	now := time.Now()
	return &progress{w: w, what: what, unit: unit, total: total, every: every, start: now, last: now}
}

// step counts one more unit done, and reports when the interval passed.
func (p *progress) step() {
	p.done++
	if time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	p.reported = true
	elapsed := time.Since(p.start).Round(100 * time.Millisecond)
	if p.total > 0 {
		_, _ = fmt.Fprintf(p.w, "%s: %d of %d %s (%d%%), %s\n", p.what, p.done, p.total, p.unit, p.done*100/p.total, elapsed)
		return
	}
	_, _ = fmt.Fprintf(p.w, "%s: %d %s, %s\n", p.what, p.done, p.unit, elapsed)
}

// finish writes the last line, when the work was long enough to report.
func (p *progress) finish() {
	if !p.reported && time.Since(p.start) < p.every {
		return
	}
	_, _ = fmt.Fprintf(p.w, "%s: %d %s in %s\n", p.what, p.done, p.unit, time.Since(p.start).Round(100*time.Millisecond))
}

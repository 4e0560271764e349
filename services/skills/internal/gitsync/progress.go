package gitsync

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// progress says, while a synchronisation runs longer than the progress
// interval, what it does (cloning, fetching, checking out), for how long,
// and the remote's last progress message ("Receiving objects:  45% …"),
// once per interval at info level: a first clone of a large repository
// otherwise looks like a hung start. It is the io.Writer of the fetch's
// side-band progress.
type progress struct {
	s     *Syncer
	start time.Time
	done  chan struct{}
	once  sync.Once

	mu   sync.Mutex
	verb string
	last string // the remote's last message
	part []byte // an unfinished message
}

// progress starts reporting the synchronisation s runs.
func (s *Syncer) progress(verb string) *progress {
	p := &progress{s: s, start: time.Now(), done: make(chan struct{}), verb: verb}
	go p.report(s.opts.ProgressInterval)
	return p
}

func (p *progress) report(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			verb, last := p.verb, p.last
			p.mu.Unlock()
			attrs := []any{"source", p.s.repo.Name, "url", Redact(p.s.repo.URL), "elapsed", time.Since(p.start).Round(time.Second)}
			if last != "" {
				attrs = append(attrs, "remote", last)
			}
			p.s.log.Info("git source: still "+verb, attrs...)
		}
	}
}

// phase names what the synchronisation does now.
func (p *progress) phase(verb string) {
	p.mu.Lock()
	p.verb, p.last = verb, ""
	p.mu.Unlock()
}

// stop ends the reports.
func (p *progress) stop() { p.once.Do(func() { close(p.done) }) }

// Write takes the remote's progress text: messages end with \r (an update
// of the same line) or \n.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part = append(p.part, b...)
	for {
		i := bytes.IndexAny(p.part, "\r\n")
		if i < 0 {
			break
		}
		if msg := strings.TrimSpace(string(p.part[:i])); msg != "" {
			p.last = clipMessage(msg)
		}
		p.part = p.part[i+1:]
	}
	if len(p.part) > 4096 {
		p.part = p.part[len(p.part)-4096:]
	}
	return len(b), nil
}

// clipMessage bounds a message from the remote in the log.
func clipMessage(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

package sandbox

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// command is one process to run.
type command struct {
	// path is the program's absolute path; args its arguments (argv[1:]).
	path string
	args []string
	dir  string
	env  []string
	// timeout is the time limit; grace the time between SIGTERM and SIGKILL.
	timeout, grace time.Duration
	// maxOutput caps stdout and stderr each.
	maxOutput int64
	// cloneflags are the namespaces to start the process in.
	cloneflags uintptr
	// policy, when set, starts the process as the sandbox helper, which
	// applies it and then executes policy.Program (path and args are then
	// only for messages).
	policy *policy
}

// outcome is what happened to a process.
type outcome struct {
	// exitCode is the exit status, or 128+n after signal n.
	exitCode int
	stdout   *capped
	stderr   *capped
	timedOut bool
	// cancelled says the caller's context ended the run.
	cancelled bool
	duration  time.Duration
	pgid      int
}

// result turns an outcome into a Result.
func (o *outcome) result(script string, limit int64) *Result {
	r := &Result{
		ExitCode:        o.exitCode,
		Duration:        o.duration,
		Script:          script,
		TimedOut:        o.timedOut,
		Stdout:          o.stdout.text(limit),
		Stderr:          o.stderr.text(limit),
		StdoutTruncated: o.stdout.dropped > 0,
		StderrTruncated: o.stderr.dropped > 0,
		pgid:            o.pgid,
	}
	if o.timedOut {
		r.ExitCode = 137
		if r.Stderr != "" && !strings.HasSuffix(r.Stderr, "\n") {
			r.Stderr += "\n"
		}
		r.Stderr += TimeoutLine
	}
	r.Success = !o.timedOut && !o.cancelled && r.ExitCode == 0
	return r
}

// capped keeps the first limit bytes written to it and counts the rest,
// which it drops: the writer is never blocked.
type capped struct {
	limit   int64
	buf     []byte
	dropped int64
}

func newCapped(limit int64) *capped { return &capped{limit: limit} }

func (c *capped) Write(p []byte) (int, error) {
	take := 0
	if room := c.limit - int64(len(c.buf)); room > 0 {
		take = int(min(room, int64(len(p))))
		c.buf = append(c.buf, p[:take]...)
	}
	c.dropped += int64(len(p) - take)
	return len(p), nil
}

// text is the kept output as UTF-8, followed, when output was dropped, by a
// marker line saying how much.
func (c *capped) text(limit int64) string {
	b := c.buf
	if c.dropped > 0 {
		// Do not end inside a character that the cap cut.
		for back := 1; back < utf8.UTFMax && back <= len(b); back++ {
			if utf8.RuneStart(b[len(b)-back]) {
				if !utf8.FullRune(b[len(b)-back:]) {
					c.dropped += int64(back)
					b = b[:len(b)-back]
				}
				break
			}
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if c.dropped > 0 {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += fmt.Sprintf("[skillsd] Output truncated: %d more bytes not shown (limit %d bytes, scripts.max_output_bytes).", c.dropped, limit)
	}
	return s
}

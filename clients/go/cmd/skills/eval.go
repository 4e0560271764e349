package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

// evalQuery is one line of a queries file (the routing benchmark's format;
// other fields, such as expected, are ignored). Restated, optional, is the
// query restated by a host model: a string or a list of strings, passed to
// the search as its restatements.
type evalQuery struct {
	ID       json.RawMessage `json:"id"`
	Query    string          `json:"query"`
	Restated json.RawMessage `json:"restated"`
}

// restated decodes the restated field: absent, null, a string or a list
// of strings; blank ones are dropped.
func (q evalQuery) restated() ([]string, error) {
	var list []string
	switch t := bytes.TrimSpace(q.Restated); {
	case len(t) == 0 || string(t) == "null":
		return nil, nil
	case t[0] == '"':
		var one string
		if err := json.Unmarshal(t, &one); err != nil {
			return nil, err
		}
		list = []string{one}
	default:
		if err := json.Unmarshal(t, &list); err != nil {
			return nil, errors.New(`"restated" must be a string or a list of strings`)
		}
	}
	out := list[:0]
	for _, r := range list {
		if strings.TrimSpace(r) != "" {
			out = append(out, r)
		}
	}
	return out, nil
}

// evalResult is one line of eval's output, the format ../bench/eval.py reads:
// skill names best first, empty when the server abstains.
type evalResult struct {
	ID     json.RawMessage `json:"id"`
	Ranked []string        `json:"ranked"`
	Scores []float64       `json:"scores"`
}

// maxQueryLine bounds one line of a queries file.
const maxQueryLine = 1 << 20

func evalCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	queries := fs.String("queries", "", "the JSON lines `file` of {\"id\", \"query\", \"restated\"?} objects to rank (- reads stdin); restated, a string or a list, is passed as the query's restatements")
	noRestated := fs.Bool("no-restated", false, "ignore the restated field: rank each query alone")
	limit := fs.Int("limit", 10, "rank at most `n` skills per query (1 to 50)")
	wait := fs.Duration("wait", 10*time.Minute, "with semantic search on, wait at most `d` for every skill to be embedded before ranking (0: rank at once)")
	return func(ctx context.Context, e *env, args []string) error {
		switch {
		case *queries == "":
			return usagef("eval: --queries FILE is required")
		case len(args) > 0:
			return usagef("eval: unexpected argument %q", args[0])
		case *limit < 1 || *limit > 50:
			return usagef("eval: --limit must be 1 to 50 (got %d)", *limit)
		case *wait < 0:
			return usagef("eval: --wait must not be negative (got %s)", *wait)
		}
		in, closeIn, err := openQueries(*queries)
		if err != nil {
			return err
		}
		defer closeIn()
		c, done, err := e.connect(ctx, nil)
		if err != nil {
			return err
		}
		defer done()
		if err := waitSemantic(ctx, c, e.stderr, *wait); err != nil {
			return err
		}
		prog := newProgress(e.stderr, "eval", "queries ranked", countLines(in), progressEvery)
		if err := evalQueries(ctx, c, in, e.stdout, *limit, !*noRestated, prog); err != nil {
			return err
		}
		prog.finish()
		return nil
	}
}

// waitSemantic waits, at most wait, until the server's semantic search (when
// it has one) has a vector for every skill, so that the rankings measure
// it rather than a half-embedded catalog. It fails at once when the
// embedding endpoint failed, and at the deadline; progress goes to stderr.
func waitSemantic(ctx context.Context, c *skillsclient.Client, stderr io.Writer, wait time.Duration) error {
	if wait <= 0 {
		return nil
	}
	deadline := time.Now().Add(wait)
	var told time.Time
	return poll(ctx, 200*time.Millisecond, func() (bool, error) {
		st, err := c.Status(ctx)
		if err != nil {
			return false, fmt.Errorf("eval: %w", describe(err))
		}
		sem := st.GetSemantic()
		if sem == nil || sem.GetPendingCount() == 0 {
			if !told.IsZero() {
				_, _ = fmt.Fprintf(stderr, "eval: semantic search ready: %d skills embedded with %s\n", sem.GetEmbeddedCount(), sem.GetModel())
			}
			return true, nil
		}
		total := sem.GetEmbeddedCount() + sem.GetPendingCount()
		switch {
		case sem.GetLastError() != "":
			return false, fmt.Errorf("eval: semantic search is not ready (%d of %d skills have no vector): the embedding endpoint failed: %s; fix it, or pass --wait 0 to rank with the vectors there are",
				sem.GetPendingCount(), total, sem.GetLastError())
		case time.Now().After(deadline):
			return false, fmt.Errorf("eval: semantic search is not ready after %s: %d of %d skills have no vector; pass a longer --wait, or --wait 0 to rank with the vectors there are",
				wait, sem.GetPendingCount(), total)
		}
		if time.Since(told) >= 5*time.Second {
			_, _ = fmt.Fprintf(stderr, "eval: waiting for semantic search: %d of %d skills embedded with %s\n", sem.GetEmbeddedCount(), total, sem.GetModel())
			told = time.Now()
		}
		return false, nil
	})
}

// openQueries opens the queries file, or stdin for "-".
func openQueries(name string) (io.Reader, func(), error) {
	if name == "-" {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	return f, func() { _ = f.Close() }, nil
}

// countLines counts the non-blank lines of a queries file, for the
// progress's total, and rewinds it; 0 (unknown) for stdin or a file that
// cannot be read twice.
func countLines(in io.Reader) int {
	f, ok := in.(*os.File)
	if !ok || f == os.Stdin {
		return 0
	}
	defer func() { _, _ = f.Seek(0, io.SeekStart) }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxQueryLine)
	n := 0
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	if sc.Err() != nil {
		return 0
	}
	return n
}

// evalQueries ranks each query of in (with its restatements when
// useRestated) and writes one result line per query to out, in input order.
// Blank lines are skipped; a line that is not a query object stops the run
// with its line number. A blank query gets an empty ranking without asking
// the server.
func evalQueries(ctx context.Context, c *skillsclient.Client, in io.Reader, out io.Writer, limit int, useRestated bool, prog *progress) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxQueryLine)
	w := bufio.NewWriter(out)
	defer func() { _ = w.Flush() }() // what was ranked before a failure
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var q evalQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return fmt.Errorf("eval: line %d: not a {\"id\", \"query\", \"restated\"?} object: %v", n, err)
		}
		if len(q.ID) == 0 {
			return fmt.Errorf("eval: line %d: no id", n)
		}
		restated, err := q.restated()
		if err != nil {
			return fmt.Errorf("eval: line %d (id %s): %v", n, q.ID, err)
		}
		if !useRestated {
			restated = nil
		}
		res := evalResult{ID: q.ID, Ranked: []string{}, Scores: []float64{}}
		if strings.TrimSpace(q.Query) != "" {
			hits, err := c.Search(ctx, q.Query, skillsclient.SearchOptions{Limit: limit, Restated: restated})
			if err != nil {
				return fmt.Errorf("eval: line %d (id %s): %w", n, q.ID, describe(err))
			}
			for _, h := range hits {
				res.Ranked = append(res.Ranked, h.GetName())
				res.Scores = append(res.Scores, h.GetScore())
			}
		}
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
		prog.step()
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("eval: a line is longer than %d bytes", maxQueryLine)
		}
		return fmt.Errorf("eval: reading the queries: %w", err)
	}
	return w.Flush()
}

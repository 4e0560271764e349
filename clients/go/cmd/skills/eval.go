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

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

// evalQuery is one line of a queries file (the routing benchmark's format;
// other fields, such as expected, are ignored).
type evalQuery struct {
	ID    json.RawMessage `json:"id"`
	Query string          `json:"query"`
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
	queries := fs.String("queries", "", "the JSON lines `file` of {\"id\", \"query\"} objects to rank (- reads stdin)")
	limit := fs.Int("limit", 10, "rank at most `n` skills per query (1 to 50)")
	return func(ctx context.Context, e *env, args []string) error {
		switch {
		case *queries == "":
			return usagef("eval: --queries FILE is required")
		case len(args) > 0:
			return usagef("eval: unexpected argument %q", args[0])
		case *limit < 1 || *limit > 50:
			return usagef("eval: --limit must be 1 to 50 (got %d)", *limit)
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
		return evalQueries(ctx, c, in, e.stdout, *limit)
	}
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

// evalQueries ranks each query of in and writes one result line per query to
// out, in input order. Blank lines are skipped; a line that is not a query
// object stops the run with its line number. A blank query gets an empty
// ranking without asking the server.
func evalQueries(ctx context.Context, c *skillsclient.Client, in io.Reader, out io.Writer, limit int) error {
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
			return fmt.Errorf("eval: line %d: not a {\"id\", \"query\"} object: %v", n, err)
		}
		if len(q.ID) == 0 {
			return fmt.Errorf("eval: line %d: no id", n)
		}
		res := evalResult{ID: q.ID, Ranked: []string{}, Scores: []float64{}}
		if strings.TrimSpace(q.Query) != "" {
			hits, err := c.Search(ctx, q.Query, skillsclient.SearchOptions{Limit: limit})
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
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("eval: a line is longer than %d bytes", maxQueryLine)
		}
		return fmt.Errorf("eval: reading the queries: %w", err)
	}
	return w.Flush()
}

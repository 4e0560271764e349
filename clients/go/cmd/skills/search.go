package main

import (
	"context"
	"flag"
	"io"
	"strconv"
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

func searchCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	limit := fs.Int("limit", 0, "return at most `n` results (1 to 50; default: the server's, 10)")
	allTerms := fs.Bool("all-terms", false, "keep only skills containing every word of the query")
	category := fs.String("category", "", "keep skills of this `category`")
	var tags, restated stringsFlag
	fs.Var(&tags, "tag", "keep skills carrying this `tag` (repeatable: all must match)")
	fs.Var(&restated, "restated", "the same need restated in plain technical terms, naming the technologies it implies; fused with the query (up to 3)")
	return func(ctx context.Context, e *env, args []string) error {
		query := strings.TrimSpace(strings.Join(args, " "))
		switch {
		case query == "":
			return usagef("search: give a query (the task or skill you need, in a few words)")
		case *limit < 0 || *limit > 50:
			return usagef("search: --limit must be 1 to 50 (got %d)", *limit)
		}
		opts := skillsclient.SearchOptions{Limit: *limit, Category: *category, Tags: tags, Restated: restated}
		if *allTerms {
			opts.Mode = skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS
		}
		hits, err := ask(ctx, e, "search", func(c *skillsclient.Client) ([]*skillsv1.SearchHit, error) { return c.Search(ctx, query, opts) })
		if err != nil {
			return err
		}
		return writeList(e, hits, "skills: no skill applies", writeHits)
	}
}

// writeHits writes SCORE, PATH and DESCRIPTION columns, best first, the
// description cut to fit width.
func writeHits(w io.Writer, hits []*skillsv1.SearchHit, width int) {
	rows := [][3]string{{"SCORE", "PATH", "DESCRIPTION"}}
	for _, h := range hits {
		rows = append(rows, [3]string{formatScore(h.GetScore()), h.GetSkillPath(), h.GetDescription()})
	}
	writeDescribed(w, rows, width)
}

// formatScore writes a score with at most three decimals ("0.875", "2").
func formatScore(f float64) string {
	return strconv.FormatFloat(f, 'f', 3, 64)
}

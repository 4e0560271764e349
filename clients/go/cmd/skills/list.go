package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

func listCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	query := fs.String("query", "", "keep skills whose path, name or description contains `text` (case-insensitive)")
	category := fs.String("category", "", "keep skills of this `category`")
	tree := fs.Bool("tree", false, "print the inheritance tree (of the sub-tree PATH when given)")
	body := fs.Bool("body", false, "include each skill's markdown body")
	return func(ctx context.Context, e *env, args []string) error {
		if *tree {
			if *query != "" || *category != "" || *body {
				return usagef("list: --tree does not combine with --query, --category or --body")
			}
			if len(args) > 1 {
				return usagef("list: --tree takes at most one PATH")
			}
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			return e.listTree(ctx, path)
		}
		if len(args) > 0 {
			return usagef("list: unexpected argument %q (use --query to filter)", args[0])
		}
		return e.list(ctx, skillsclient.ListOptions{Query: *query, Category: *category, IncludeBody: *body})
	}
}

func (e *env) list(ctx context.Context, opts skillsclient.ListOptions) error {
	c, done, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer done()
	skills := []*skillsv1.Skill{}
	for s, err := range c.Skills(ctx, opts) {
		if err != nil {
			return fmt.Errorf("list: %w", describe(err))
		}
		skills = append(skills, s)
	}
	if e.global.json {
		return writeMessages(e.stdout, skills)
	}
	if len(skills) == 0 {
		e.noSkills(ctx, c, opts)
		return nil
	}
	if opts.IncludeBody {
		writeBodies(e.stdout, skills)
		return nil
	}
	writeTable(e.stdout, skills, e.width())
	return nil
}

// noSkills explains an empty listing on stderr: which sources were read.
func (e *env) noSkills(ctx context.Context, c *skillsclient.Client, opts skillsclient.ListOptions) {
	if opts.Query != "" || opts.Category != "" {
		fmt.Fprintln(e.stderr, "skills: no skill matches")
		return
	}
	st, err := c.Status(ctx)
	if err != nil || len(st.GetSources()) == 0 {
		fmt.Fprintln(e.stderr, "skills: no skills found (give folders with --skills-dir or SKILLS_DIR)")
		return
	}
	var locs []string
	for _, s := range st.GetSources() {
		locs = append(locs, s.GetLocation())
	}
	fmt.Fprintf(e.stderr, "skills: no skills found in %s\n", strings.Join(locs, ", "))
}

// writeTable writes PATH, NAME and DESCRIPTION columns, the description cut
// to fit width.
func writeTable(w io.Writer, skills []*skillsv1.Skill, width int) {
	rows := [][3]string{{"PATH", "NAME", "DESCRIPTION"}}
	for _, s := range skills {
		rows = append(rows, [3]string{s.GetSkillPath(), s.GetName(), s.GetDescription()})
	}
	writeDescribed(w, rows, width)
}

// writeBodies writes each skill's heading and markdown body.
func writeBodies(w io.Writer, skills []*skillsv1.Skill) {
	for i, s := range skills {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "=== %s (%s) ===\n", s.GetSkillPath(), s.GetName())
		body := strings.TrimRight(s.GetBody(), "\n")
		if body != "" {
			fmt.Fprintln(w, body)
		}
	}
}

func (e *env) listTree(ctx context.Context, path string) error {
	nodes, err := ask(ctx, e, "list", func(c *skillsclient.Client) ([]*skillsv1.SkillNode, error) { return c.Tree(ctx, path) })
	if err != nil {
		return err
	}
	return writeList(e, nodes, "skills: the tree is empty", writeTree)
}

// writeTree draws nodes and their children with box-drawing branches, each
// line holding the path and the description cut to fit width.
func writeTree(w io.Writer, nodes []*skillsv1.SkillNode, width int) {
	var walk func(nodes []*skillsv1.SkillNode, prefix string, top bool)
	walk = func(nodes []*skillsv1.SkillNode, prefix string, top bool) {
		for i, n := range nodes {
			last := i == len(nodes)-1
			branch, next := "├── ", "│   "
			if last {
				branch, next = "└── ", "    "
			}
			if top {
				branch, next = "", ""
			}
			head := prefix + branch + n.GetPath()
			if n.GetName() != "" && n.GetName() != n.GetPath() {
				head += " (" + n.GetName() + ")"
			}
			if d := oneLine(n.GetDescription()); d != "" {
				room := width - utf8.RuneCountInString(head) - 3
				if room >= 10 {
					head += " — " + trim(d, room)
				}
			}
			fmt.Fprintln(w, head)
			walk(n.GetChildren(), prefix+next, false)
		}
	}
	walk(nodes, "", true)
}

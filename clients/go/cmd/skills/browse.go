package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// The commands that read the catalog: list, show, search and match.

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

func showCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	files := fs.Bool("files", false, "list the skill's files with size and digest instead of its content")
	raw := fs.Bool("raw", false, "print only the skill's instructions (the body, without inheritance)")
	return func(ctx context.Context, e *env, args []string) error {
		switch {
		case len(args) == 0:
			return usagef("show: name a skill (its path or name)")
		case len(args) > 1:
			return usagef("show: one skill at a time (got %d arguments)", len(args))
		case *files && *raw:
			return usagef("show: choose --files or --raw, not both")
		case *raw && e.global.json:
			return usagef("show: --raw prints plain text; drop --json")
		}
		resp, err := ask(ctx, e, "show", func(c *skillsclient.Client) (*skillsv1.GetSkillResponse, error) { return c.Skill(ctx, args[0]) })
		if err != nil {
			return err
		}
		switch {
		case *raw:
			_, err := io.WriteString(e.stdout, withNewline(resp.GetInstructions()))
			return err
		case e.global.json && *files:
			return writeMessages(e.stdout, resp.GetFiles())
		case e.global.json:
			return writeMessage(e.stdout, resp)
		}
		writeHeader(e.stdout, resp)
		fmt.Fprintln(e.stdout)
		if *files {
			writeFiles(e.stdout, resp.GetFiles())
			return nil
		}
		_, err = io.WriteString(e.stdout, withNewline(resp.GetContent()))
		return err
	}
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// writeHeader writes the skill's fields, one "Label: value" line each,
// leaving out the empty ones.
func writeHeader(w io.Writer, r *skillsv1.GetSkillResponse) {
	s := r.GetSkill()
	field := func(label, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-12s %s\n", label+":", value)
		}
	}
	field("Name", s.GetName())
	field("Path", s.GetSkillPath())
	field("Description", oneLine(s.GetDescription()))
	field("Layout", layoutName(s.GetLayout()))
	field("Source", s.GetSource())
	field("Category", s.GetCategory())
	field("Tags", strings.Join(s.GetTags(), ", "))
	field("Keywords", strings.Join(s.GetKeywords(), ", "))
	field("File", r.GetFile())
	field("Directory", r.GetDirectory())
	if chain := r.GetInheritanceChain(); len(chain) > 1 {
		field("Inherits", strings.Join(chain, " > "))
	}
	field("Files", counted(len(r.GetFiles()), 0))
	field("Assets", counted(len(r.GetAssets()), len(r.GetInheritedAssets())))
	field("Scripts", counted(len(r.GetScripts()), len(r.GetInheritedScripts())))
	if !s.GetRoutable() {
		field("Routable", "no (search and match never return it)")
	}
	for _, d := range r.GetDiagnostics() {
		field("Diagnostic", fmt.Sprintf("%s: %s [%s]", severityName(d.GetSeverity()), d.GetMessage(), d.GetCode()))
	}
}

// counted renders own and inherited counts: "", "2", "2 (+1 inherited)".
func counted(own, inherited int) string {
	switch {
	case own == 0 && inherited == 0:
		return ""
	case inherited == 0:
		return strconv.Itoa(own)
	default:
		return fmt.Sprintf("%d (+%d inherited)", own, inherited)
	}
}

// writeFiles writes the file table: path, size in bytes, digest, MIME type.
func writeFiles(w io.Writer, files []*skillsv1.SkillFile) {
	if len(files) == 0 {
		fmt.Fprintln(w, "(no files)")
		return
	}
	pathW, sizeW := len("PATH"), len("SIZE")
	for _, f := range files {
		pathW = max(pathW, utf8.RuneCountInString(f.GetPath()))
		sizeW = max(sizeW, len(strconv.FormatInt(f.GetSizeBytes(), 10)))
	}
	line := func(path, size, digest, mime string) {
		fmt.Fprintln(w, strings.TrimRight(pad(path, pathW+2)+strings.Repeat(" ", sizeW-len(size))+size+"  "+pad(digest, 71+2)+mime, " "))
	}
	line("PATH", "SIZE", "DIGEST", "TYPE")
	for _, f := range files {
		line(f.GetPath(), strconv.FormatInt(f.GetSizeBytes(), 10), f.GetDigest(), f.GetMimeType())
	}
}

// layoutNames and severityNames are how the layouts and the severities of
// diagnostics read in the output.
var (
	layoutNames = map[skillsv1.Layout]string{
		skillsv1.Layout_LAYOUT_FOLDER: "folder (SKILL.md)",
		skillsv1.Layout_LAYOUT_TREE:   "tree (markdown file)",
	}
	severityNames = map[skillsv1.Severity]string{
		skillsv1.Severity_SEVERITY_INFO:    "info",
		skillsv1.Severity_SEVERITY_WARNING: "warning",
		skillsv1.Severity_SEVERITY_ERROR:   "error",
	}
)

// layoutName is "" for a layout the server did not say.
func layoutName(l skillsv1.Layout) string { return layoutNames[l] }

// severityName is "note" for a severity the server did not say.
func severityName(s skillsv1.Severity) string {
	if name, ok := severityNames[s]; ok {
		return name
	}
	return "note"
}

func searchCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	limit := fs.Int("limit", 0, "return at most `n` results (1 to 50; default: the server's, 10)")
	allTerms := fs.Bool("all-terms", false, "keep only skills containing every word of the query")
	category := fs.String("category", "", "keep skills of this `category`")
	var tags, restated skillsd.Strings
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

func matchCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	var restated skillsd.Strings
	fs.Var(&restated, "restated", "the task restated in plain technical terms, naming the technologies it implies; fused with it (up to 3)")
	return func(ctx context.Context, e *env, args []string) error {
		task := strings.TrimSpace(strings.Join(args, " "))
		if task == "" {
			return usagef("match: describe the task (quote it or give it as several words)")
		}
		resp, err := ask(ctx, e, "match", func(c *skillsclient.Client) (*skillsv1.MatchSkillResponse, error) {
			return c.Match(ctx, task, restated...)
		})
		if err != nil {
			return err
		}
		if e.global.json {
			return writeMessage(e.stdout, resp)
		}
		writeMatch(e.stdout, resp, e.width())
		return nil
	}
}

// writeMatch writes a match decision for people: the matched skill's header
// and content, the candidates of an ambiguous answer, or the no-match sentence.
func writeMatch(w io.Writer, r *skillsv1.MatchSkillResponse, width int) {
	switch r.GetOutcome() {
	case skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH:
		field := func(label, value string) {
			if value != "" {
				fmt.Fprintf(w, "%-12s %s\n", label+":", value)
			}
		}
		field("Match", r.GetSkillPath())
		field("Score", formatScore(r.GetScore())+" ("+r.GetStrategy()+")")
		field("Matched", strings.Join(r.GetMatchedKeywords(), ", "))
		field("Assets", declared(declaredFiles(r.GetAssets()), declaredFiles(r.GetInheritedAssets())))
		field("Scripts", declared(declaredFiles(r.GetScripts()), declaredFiles(r.GetInheritedScripts())))
		fmt.Fprintln(w)
		_, _ = io.WriteString(w, withNewline(r.GetContent()))
	case skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS:
		fmt.Fprintf(w, "%s (%s)\n\n", r.GetMessage(), r.GetStrategy())
		const gap = 2
		scoreW, pathW := len("SCORE"), len("PATH")
		for _, c := range r.GetCandidates() {
			scoreW = max(scoreW, len(formatScore(c.GetScore())))
			pathW = max(pathW, utf8.RuneCountInString(c.GetSkillPath()))
		}
		descW := max(width-scoreW-pathW-2*gap, 20)
		line := func(score, path, desc string) {
			fmt.Fprintln(w, strings.TrimRight(pad(score, scoreW+gap)+pad(path, pathW+gap)+trim(oneLine(desc), descW), " "))
		}
		line("SCORE", "PATH", "DESCRIPTION")
		for _, c := range r.GetCandidates() {
			line(formatScore(c.GetScore()), c.GetSkillPath(), c.GetDescription())
		}
	default:
		fmt.Fprintf(w, "%s (%s)\n", r.GetMessage(), r.GetStrategy())
	}
}

// declared renders own and inherited files: "a, b (inherited: c)".
func declared(own, inherited []string) string {
	s := strings.Join(own, ", ")
	if len(inherited) > 0 {
		if s != "" {
			s += " "
		}
		s += "(inherited: " + strings.Join(inherited, ", ") + ")"
	}
	return s
}

// declaredFiles lists the files of declared assets or scripts.
func declaredFiles[D interface{ GetFile() string }](decls []D) []string {
	out := make([]string, 0, len(decls))
	for _, d := range decls {
		out = append(out, d.GetFile())
	}
	return out
}

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
)

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

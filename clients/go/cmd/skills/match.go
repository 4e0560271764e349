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

func matchCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	var restated stringsFlag
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
		field("Assets", declared(assetFiles(r.GetAssets()), assetFiles(r.GetInheritedAssets())))
		field("Scripts", declared(scriptFiles(r.GetScripts()), scriptFiles(r.GetInheritedScripts())))
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

func assetFiles(as []*skillsv1.Asset) []string {
	out := make([]string, 0, len(as))
	for _, a := range as {
		out = append(out, a.GetFile())
	}
	return out
}

func scriptFiles(ss []*skillsv1.Script) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.GetFile())
	}
	return out
}

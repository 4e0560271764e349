package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

func lintCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	strict := fs.Bool("strict", false, "fail on warnings too")
	return func(ctx context.Context, e *env, dirs []string) error {
		if len(dirs) > 0 && e.global.server != "" {
			return usagef("lint: DIR arguments load folders here; they cannot be used with --server")
		}
		st, diags, err := e.scannedReport(ctx, "lint", dirs, nil)
		if err != nil {
			return err
		}
		skills, routed, unserved := int(st.GetSkillCount()), int(st.GetRoutableCount()), int(st.GetUnservedCount())
		errs, warns := int(diags.GetErrorCount()), int(diags.GetWarningCount())
		if e.global.json {
			list, err := messagesJSON(diags.GetDiagnostics())
			if err != nil {
				return err
			}
			if err := writeJSONValue(e.stdout, struct {
				Skills      int             `json:"skills"`
				Routed      int             `json:"routed"`
				NotRouted   int             `json:"not_routed"`
				NotServed   int             `json:"not_served"`
				Errors      int             `json:"errors"`
				Warnings    int             `json:"warnings"`
				Diagnostics json.RawMessage `json:"diagnostics"`
			}{skills, routed, skills - routed, unserved, errs, warns, list}); err != nil {
				return err
			}
		} else {
			writeDiagnostics(e.stdout, diags.GetDiagnostics(), st.GetSources(), workingDir())
			fmt.Fprintln(e.stdout, lintSummary(skills, routed, unserved, errs, warns))
		}
		switch {
		case errs > 0:
			return errors.New("lint: " + plural(errs, "error"))
		case *strict && warns > 0:
			return errors.New("lint: " + plural(warns, "warning") + " (--strict)")
		}
		return nil
	}
}

// checkDirs checks that the folders named on a command line exist: loading a
// typo would otherwise pass with a mere warning.
func checkDirs(cmd string, dirs []string) error {
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		} else if !fi.IsDir() {
			return fmt.Errorf("%s: %s is not a folder", cmd, d)
		}
	}
	return nil
}

// lintSummary is lint's last line: what the agent will get (skills served,
// of which routed), what it will not (served but never routed, skill files
// not served), and the diagnostics:
//
//	12 skills served (10 routed): 2 not routed, 1 skill file not served; 3 errors, 1 warning
func lintSummary(skills, routed, unserved, errs, warns int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s served (%d routed)", plural(skills, "skill"), routed)
	var lost []string
	if n := skills - routed; n > 0 {
		lost = append(lost, fmt.Sprintf("%d not routed", n))
	}
	if unserved > 0 {
		lost = append(lost, plural(unserved, "skill file")+" not served")
	}
	if len(lost) > 0 {
		b.WriteString(": " + strings.Join(lost, ", "))
	}
	fmt.Fprintf(&b, "; %s, %s", plural(errs, "error"), plural(warns, "warning"))
	return b.String()
}

func workingDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// writeDiagnostics writes "file:line: severity: message [code]" lines, grouped
// under a heading per source. A file of a local source is shown as a path an
// editor can open: relative to cwd when it lies under it, else absolute.
func writeDiagnostics(w io.Writer, diags []*skillsv1.Diagnostic, sources []*skillsv1.SourceStatus, cwd string) {
	locations := map[string]string{}
	for _, s := range sources {
		if s.GetKind() == "local" || s.GetKind() == "" {
			locations[s.GetName()] = s.GetLocation()
		}
	}
	current := "\x00"
	for _, d := range diags {
		if d.GetSource() != current {
			if current != "\x00" {
				fmt.Fprintln(w)
			}
			current = d.GetSource()
			name := current
			if name == "" {
				name = "(no source)"
			}
			fmt.Fprintf(w, "== %s ==\n", name)
		}
		file := displayPath(locations[d.GetSource()], d.GetFile(), cwd)
		if file == "" {
			file = d.GetSource()
		}
		if d.GetLine() > 0 {
			file = fmt.Sprintf("%s:%d", file, d.GetLine())
		}
		msg := oneLine(d.GetMessage())
		if d.GetCode() != "" {
			msg += " [" + d.GetCode() + "]"
		}
		fmt.Fprintf(w, "%s: %s: %s\n", file, severityName(d.GetSeverity()), msg)
	}
	if len(diags) > 0 {
		fmt.Fprintln(w)
	}
}

// displayPath joins a source location and a file relative to it, and makes
// the result relative to cwd when it lies under cwd.
func displayPath(location, file, cwd string) string {
	if location == "" || file == "" {
		if file == "" {
			return location
		}
		return file
	}
	full := filepath.Join(location, filepath.FromSlash(file))
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, full); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(full)
}

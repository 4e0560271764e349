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
	"sort"
	"strings"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

// The commands that report on skill folders: lint (what loading them says)
// and scan (what the security scan finds). Both read them through
// scannedReport.

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

// The scan command. Its findings come from the server's security scan, the
// same one that decides what is served: in-process over the DIR folders (or
// --skills-dir, SKILLS_DIR, discovery) with the rules and policy of
// --config, or, with --server and no DIR, the findings of a running skillsd.

// findingSeverities are the severity names of findings, lowest first.
var findingSeverities = []string{"info", "low", "medium", "high", "critical"}

// parseFailOn reads --fail-on: a severity, or "off" (never fail).
func parseFailOn(s string) (skillsv1.FindingSeverity, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "off" {
		return skillsv1.FindingSeverity_FINDING_SEVERITY_UNSPECIFIED, nil
	}
	for i, name := range findingSeverities {
		if v == name {
			return skillsv1.FindingSeverity(i + 1), nil
		}
	}
	return 0, usagef("scan: --fail-on %q: want %s or off", s, strings.Join(findingSeverities, ", "))
}

func findingSeverityName(s skillsv1.FindingSeverity) string {
	if i := int(s) - 1; i >= 0 && i < len(findingSeverities) {
		return findingSeverities[i]
	}
	return "unknown"
}

// findingJSON is one line of scan --json.
type findingJSON struct {
	Skill    string `json:"skill"`
	File     string `json:"file"`
	Line     int32  `json:"line"`
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	// Accepted marks a finding a reviewer accepted (security.allow); it
	// never fails the command.
	Accepted bool   `json:"accepted,omitempty"`
	Reason   string `json:"accepted_reason,omitempty"`
	// Quarantined marks the findings that keep their skill from being
	// served.
	Quarantined bool `json:"quarantined,omitempty"`
}

func scanCmd(fs *flag.FlagSet) func(context.Context, *env, []string) error {
	failOn := fs.String("fail-on", "high", "fail (exit 1) when a finding no reviewer accepted is at or above this `severity`: info, low, medium, high, critical, or off")
	return func(ctx context.Context, e *env, dirs []string) error {
		threshold, err := parseFailOn(*failOn)
		if err != nil {
			return err
		}
		if len(dirs) > 0 && e.global.server != "" {
			return usagef("scan: DIR arguments are scanned here; with --server, scan reports the server's own findings (give no DIR)")
		}
		st, diags, err := e.scannedReport(ctx, "scan", dirs, func(st *skillsv1.GetCatalogStatusResponse) error {
			if sec := st.GetSecurity(); sec == nil || !sec.GetEnabled() {
				return errors.New("scan: the server does not scan skills (it is older than this client)")
			}
			return nil
		})
		if err != nil {
			return err
		}
		findings := diags.GetFindings()
		sort.SliceStable(findings, func(i, j int) bool {
			a, b := findings[i], findings[j]
			if a.GetSource() != b.GetSource() {
				return sourceRank(st, a.GetSource()) < sourceRank(st, b.GetSource())
			}
			if a.GetFile() != b.GetFile() {
				return a.GetFile() < b.GetFile()
			}
			return a.GetLine() < b.GetLine()
		})
		locations := localLocations(st.GetSources())
		cwd := workingDir()
		failing := 0
		for _, f := range findings {
			if !f.GetAccepted() && threshold != skillsv1.FindingSeverity_FINDING_SEVERITY_UNSPECIFIED && f.GetSeverity() >= threshold {
				failing++
			}
		}
		if e.global.json {
			if err := writeFindingsJSON(e.stdout, findings, locations, cwd); err != nil {
				return err
			}
		} else {
			writeFindings(e.stdout, findings, diags.GetQuarantined(), locations, cwd)
			fmt.Fprintf(e.stdout, "%s scanned, %s%s, %s (security.quarantine: %s)\n",
				plural(int(st.GetSkillCount()+st.GetSecurity().GetQuarantinedCount()), "skill"),
				plural(len(findings), "finding"), severityCounts(findings),
				plural(len(diags.GetQuarantined()), "skill")+" quarantined", st.GetSecurity().GetQuarantine())
		}
		if failing > 0 {
			return fmt.Errorf("scan: %s at or above %s", plural(failing, "finding"), findingSeverityName(threshold))
		}
		return nil
	}
}

// codeScanPending is the diagnostic of skills that wait for their first
// security scan on the server (it scans a large catalog it never saw in the
// background, and serves them only then).
const codeScanPending = "scan-pending"

// scanPendingWait bounds how long scan waits for the server's first scan.
const scanPendingWait = 2 * time.Minute

// scannedReport is what lint and scan read: the catalog of the folders
// given (else of --server), its status and its diagnostics, once the
// server's first security scan is done (a server still scanning skills it
// never saw would pass them unchecked). check, when given, vets the status
// before the wait. The connection is closed on return.
func (e *env) scannedReport(ctx context.Context, cmd string, dirs []string, check func(*skillsv1.GetCatalogStatusResponse) error) (*skillsv1.GetCatalogStatusResponse, *skillsv1.ListDiagnosticsResponse, error) {
	if err := checkDirs(cmd, dirs); err != nil {
		return nil, nil, err
	}
	c, done, err := e.connect(ctx, dirs)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	st, err := c.Status(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cmd, describe(err))
	}
	if check != nil {
		if err := check(st); err != nil {
			return nil, nil, err
		}
	}
	diags, waited, err := scannedDiagnostics(ctx, c, e.stderr, cmd)
	if err != nil {
		return nil, nil, err
	}
	if waited { // the counts of the status changed with the scan
		if st, err = c.Status(ctx); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", cmd, describe(err))
		}
	}
	return st, diags, nil
}

// scannedDiagnostics returns the server's diagnostics once no skill waits for
// its first scan: findings read before would be incomplete, and a gate
// (--fail-on) would pass skills nobody scanned. It says on w that it waits
// (and returns waited true), and fails when the scan does not end within
// scanPendingWait; cmd names the command in errors.
func scannedDiagnostics(ctx context.Context, c *skillsclient.Client, w io.Writer, cmd string) (*skillsv1.ListDiagnosticsResponse, bool, error) {
	deadline := time.Now().Add(scanPendingWait)
	told := false
	var diags *skillsv1.ListDiagnosticsResponse
	err := poll(ctx, 500*time.Millisecond, func() (bool, error) {
		var err error
		if diags, err = c.Diagnostics(ctx, skillsclient.DiagnosticsOptions{}); err != nil {
			return false, fmt.Errorf("%s: %w", cmd, describe(err))
		}
		var pending []string
		for _, d := range diags.GetDiagnostics() {
			if d.GetCode() == codeScanPending {
				pending = append(pending, d.GetMessage())
			}
		}
		if len(pending) == 0 {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("%s: the server has not finished its first security scan after %v: %s", cmd, scanPendingWait, strings.Join(pending, "; "))
		}
		if !told {
			fmt.Fprintf(w, "waiting for the server's first security scan: %s\n", strings.Join(pending, "; "))
			told = true
		}
		return false, nil
	})
	if err != nil {
		return nil, told, err
	}
	return diags, told, nil
}

// sourceRank orders sources as the status lists them (precedence).
func sourceRank(st *skillsv1.GetCatalogStatusResponse, name string) int {
	for i, s := range st.GetSources() {
		if s.GetName() == name {
			return i
		}
	}
	return len(st.GetSources())
}

// localLocations maps local source names to their folders, to show files as
// paths an editor can open.
func localLocations(sources []*skillsv1.SourceStatus) map[string]string {
	out := map[string]string{}
	for _, s := range sources {
		if s.GetKind() == "local" || s.GetKind() == "" {
			out[s.GetName()] = s.GetLocation()
		}
	}
	return out
}

func severityCounts(findings []*skillsv1.Finding) string {
	counts := map[skillsv1.FindingSeverity]int{}
	for _, f := range findings {
		counts[f.GetSeverity()]++
	}
	var parts []string
	for i := len(findingSeverities); i >= 1; i-- {
		if n := counts[skillsv1.FindingSeverity(i)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, findingSeverities[i-1]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// writeFindingsJSON writes one JSON object per finding.
func writeFindingsJSON(w io.Writer, findings []*skillsv1.Finding, locations map[string]string, cwd string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, f := range findings {
		file := f.GetFile()
		if loc, ok := locations[f.GetSource()]; ok {
			file = displayPath(loc, file, cwd)
		}
		if err := enc.Encode(findingJSON{
			Skill: f.GetSkillPath(), File: file, Line: f.GetLine(), Rule: f.GetRule(),
			Severity: findingSeverityName(f.GetSeverity()), Message: f.GetMessage(),
			Accepted: f.GetAccepted(), Reason: f.GetAcceptedReason(), Quarantined: f.GetBlocking(),
		}); err != nil {
			return err
		}
	}
	return nil
}

// writeFindings writes "file:line: severity: rule: message" lines grouped
// under a heading per skill, then the quarantined skills.
func writeFindings(w io.Writer, findings []*skillsv1.Finding, quarantined []*skillsv1.QuarantinedSkill, locations map[string]string, cwd string) {
	current := "\x00"
	for _, f := range findings {
		if key := f.GetSource() + "\x00" + f.GetSkillPath(); key != current {
			if current != "\x00" {
				fmt.Fprintln(w)
			}
			current = key
			fmt.Fprintf(w, "== %s (%s) ==\n", f.GetSkillPath(), f.GetSource())
		}
		file := f.GetFile()
		if loc, ok := locations[f.GetSource()]; ok {
			file = displayPath(loc, file, cwd)
		}
		if f.GetLine() > 0 {
			file = fmt.Sprintf("%s:%d", file, f.GetLine())
		}
		msg := oneLine(f.GetMessage())
		switch {
		case f.GetAccepted():
			msg += " [accepted: " + oneLine(f.GetAcceptedReason()) + "]"
		case f.GetBlocking():
			msg += " [quarantines the skill]"
		}
		fmt.Fprintf(w, "%s: %s: %s: %s\n", file, findingSeverityName(f.GetSeverity()), f.GetRule(), msg)
	}
	if len(findings) > 0 {
		fmt.Fprintln(w)
	}
	for _, q := range quarantined {
		fmt.Fprintf(w, "quarantined: %s (%s): %s\n", q.GetSkillPath(), q.GetSource(), oneLine(q.GetReason()))
	}
	if len(quarantined) > 0 {
		fmt.Fprintln(w)
	}
}

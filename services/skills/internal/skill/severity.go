package skill

import (
	"maps"
	"slices"
)

// severities is the one table of diagnostic severities: every code the
// loader produces (this package's parser, package source's walk, package
// catalog's build), decided as a skill author would. A skill that cannot be
// served, routed or loaded as its author meant is an error, which fails
// skills lint; what still works, but is off, is a warning (skills lint
// --strict fails on it too); what only informs is info. docs/diagnostics.md
// lists the same table with what each code means and what to do; a test
// keeps the two equal.
var severities = map[string]Severity{
	// The skill file itself.
	"binary":                    SeverityError,   // not text: the skill is not loaded
	"invalid-utf8":              SeverityWarning, // read, with U+FFFD for the bad bytes
	"frontmatter-missing":       SeverityError,   // no frontmatter: never routed
	"frontmatter-unterminated":  SeverityError,   // the whole file is read as the body: never routed
	"frontmatter-too-large":     SeverityError,   // ignored: never routed
	"frontmatter-invalid":       SeverityError,   // not YAML: read as if it had none, never routed
	"frontmatter-repaired":      SeverityWarning,
	"frontmatter-duplicate-key": SeverityWarning,
	"skill-file-name":           SeverityError,   // skill.md, Skill.md: not read as a skill
	"skill-file-too-large":      SeverityError,   // not loaded
	"skill-unreadable":          SeverityError,   // not loaded
	"tree-skill-invalid":        SeverityError,   // looks like a tree skill, not loaded
	"file-unreadable":           SeverityError,   // a file of the skill is left out
	"dir-unreadable":            SeverityError,   // the skills below it are left out
	"kept-last-good":            SeverityWarning, // served as before the edit; the edit's own errors are listed too

	// Names and routing.
	"name-type":                     SeverityWarning, // ignored: the folder's name is used
	"name-missing":                  SeverityWarning, // the folder's name is used
	"name-mismatch":                 SeverityWarning, // served under its name; the Agent Skills spec asks for the folder's
	"name-invalid":                  SeverityError,   // breaks the Agent Skills naming rules: hosts that check refuse the skill
	"name-duplicate":                SeverityWarning, // the name refers to the first; the other is reached by path
	"path-duplicate":                SeverityError,   // one of two skills is not loaded
	"shadowed":                      SeverityWarning, // an earlier source wins, as precedence says
	"not-routable":                  SeverityError,   // listed and loadable, never offered by search or match
	"description-type":              SeverityError,   // ignored: no description, never routed
	"description-long":              SeverityWarning,
	"keywords-type":                 SeverityError, // ignored: the keyword matcher cannot find the skill
	"always-apply-type":             SeverityError, // ignored: the skill does not apply as its author meant
	"disable-model-invocation-type": SeverityError, // ignored: a skill meant to be hidden is routed
	"category-type":                 SeverityWarning,
	"tags-type":                     SeverityWarning,
	"priority-type":                 SeverityWarning,
	"user-invocable-type":           SeverityWarning,
	"argument-hint-type":            SeverityWarning,
	"allowed-tools-type":            SeverityWarning,
	"license-type":                  SeverityWarning,
	"compatibility-type":            SeverityWarning,
	"metadata-type":                 SeverityWarning,

	// Content, assets and scripts.
	"inherit-type":          SeverityError, // ignored: the skill inherits rules it meant not to, or the reverse
	"assets-type":           SeverityError, // declared assets are dropped
	"asset-path":            SeverityError,
	"scripts-type":          SeverityError, // declared scripts are dropped
	"script-path":           SeverityError,
	"script-execution":      SeverityError, // runs as "claude", not on the server as declared
	"script-arg":            SeverityError, // an argument is dropped
	"network-type":          SeverityError, // ignored: a script that needs the network gets none
	"resource-dir-missing":  SeverityError, // the declared assets and scripts are ignored
	"declared-path-invalid": SeverityError,
	"declared-file-missing": SeverityError, // fails when read or run

	// The configuration file, changed while serving (package server).
	"config-invalid":        SeverityError,   // refused: the running configuration stays, a restart would fail
	"config-restart-needed": SeverityWarning, // valid, applied at the next start

	// Sources and the walk.
	"source-missing":    SeverityWarning, // an empty catalog is also reported on its own
	"source-unreadable": SeverityError,
	"source-duplicate":  SeverityInfo,
	"duplicate-folder":  SeverityInfo, // one skill reached twice through a symlink: listed once
	"symlink-escape":    SeverityWarning,
	"symlink-loop":      SeverityWarning,
	"symlink-broken":    SeverityWarning,
	"symlink-stub":      SeverityWarning,
	"limit-files":       SeverityError,   // files past the limit are not read
	"limit-depth":       SeverityError,   // folders past the limit are not read
	"limit-skill-files": SeverityError,   // a skill folder past the per-skill limit is not loaded
	"special-file":      SeverityWarning, // a FIFO, device or socket: never read or served
	// A rebuild that would lose many skills whose files are still there is
	// refused: the last good catalog keeps serving, without the changes.
	"catalog-shrink-refused": SeverityError,

	// The security scan (package catalog's security.go): a finding's own code
	// is its rule, with the severity the scan policy gives it (not listed here).
	"quarantined": SeverityError,   // not served: its findings reach the quarantine threshold
	"allow-stale": SeverityWarning, // a reviewer's acceptance no longer matches the skill's content
	// Skills not scanned yet wait for the scan in the background: served
	// once it is done (or quarantined, if it finds so).
	"scan-pending": SeverityInfo,
}

// SeverityFor returns the severity of code in the table, and false for a
// code the table does not know (the caller keeps its own).
func SeverityFor(code string) (Severity, bool) {
	s, ok := severities[code]
	return s, ok
}

// Severities returns a copy of the table: code → severity.
func Severities() map[string]Severity { return maps.Clone(severities) }

// Codes returns every code of the table, sorted.
func Codes() []string { return slices.Sorted(maps.Keys(severities)) }

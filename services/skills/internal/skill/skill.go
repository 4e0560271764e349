// Package skill parses one skill file: the YAML frontmatter (leniently, as the
// Agent Skills client guide asks) and the markdown body, and reports what is wrong
// with it as diagnostics. It is pure: it never touches the disk, and it knows
// nothing about folders, sources or inheritance (package source and package
// catalog own those).
package skill

import "encoding/json"

// Layout says which of the two supported catalog layouts a skill file belongs to.
type Layout int

const (
	// LayoutFolder is an Agent Skills folder: a SKILL.md and its companion files.
	LayoutFolder Layout = iota + 1
	// LayoutTree is a seed-000 hierarchical markdown file (_root.md, _index.md,
	// or any .md with keywords and description).
	LayoutTree
)

// String returns "folder" or "tree".
func (l Layout) String() string {
	switch l {
	case LayoutFolder:
		return "folder"
	case LayoutTree:
		return "tree"
	}
	return "unknown"
}

// Severity ranks a diagnostic.
type Severity int

// The severities, as a skill author reads them (the table of every code is
// Severities; docs/diagnostics.md explains each).
const (
	// SeverityInfo is worth knowing; nothing is wrong.
	SeverityInfo Severity = iota + 1
	// SeverityWarning means the skill is served, routed and loaded as its
	// author meant, but something in it is off or will surprise some hosts.
	SeverityWarning
	// SeverityError means a skill will not be served, routed or loaded as
	// its author meant: the skill is left out, never offered by search and
	// match, or loaded without part of what it declares (a script, an asset,
	// its rules). skills lint fails on it.
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "unknown"
}

// Diagnostic is one problem found while loading a catalog.
type Diagnostic struct {
	// Source names the source (root folder or repository) the file belongs to;
	// empty when the parser produced it (the caller fills it in).
	Source string
	// File is the file's path relative to its source root, with '/' separators.
	File string
	// Line is the 1-based line the problem was found on; 0 when unknown.
	Line int
	// Severity is the code's severity in Severities (the catalog sets it
	// from the table; see SeverityFor).
	Severity Severity
	// Code is a short stable identifier such as "frontmatter-missing".
	Code string
	// Message says what is wrong, in words a skill author can act on.
	Message string
}

// Arg is one declared script argument (seed 000 §4.2).
type Arg struct {
	Name        string
	Description string
	// Required defaults to true.
	Required bool
	// Default is used when the caller omits the argument; nil when none.
	Default *string
}

// Asset is one declared asset (seed 000 §4.2).
type Asset struct {
	// File is relative to the skill's resource folder, with '/' separators.
	File        string
	Description string
	// Type defaults to "other".
	Type string
}

// Script is one declared script (seed 000 §4.2).
type Script struct {
	File        string
	Description string
	// Execution is "claude" (default: the agent runs it) or "server".
	Execution string
	Args      []Arg
	// Network says the script needs the network (`network: true`): the
	// server lets it connect only when its configuration allows it
	// (scripts.allow_network). Default false: no network at all.
	Network bool
}

// Frontmatter holds the typed known fields of a skill's frontmatter, plus the
// whole frontmatter verbatim.
type Frontmatter struct {
	// Raw is the whole frontmatter as parsed YAML, converted to JSON-compatible
	// values (map[string]any, []any, string, float64/int, bool, nil).
	Raw map[string]any
	// KeyLines maps each top-level key of the frontmatter to the 1-based file
	// line it is written on, for diagnostics about a field (a name that does
	// not match its folder, …). Nil when there is no frontmatter.
	KeyLines map[string]int

	Name          string
	Description   string
	License       string
	Compatibility string
	// AllowedTools accepts a space- or comma-separated string or a list.
	AllowedTools []string
	// Metadata is the frontmatter's metadata mapping, verbatim.
	Metadata map[string]any

	// Seed 000 fields, with the defaults of seed 000 §4.2.
	Keywords []string
	Priority int
	Inherit  bool
	Assets   []Asset
	Scripts  []Script

	// Category and Tags come from metadata.skillhub.*, metadata.skillport.*, or
	// the top level; both lower-cased.
	Category string
	Tags     []string

	// DisableModelInvocation hides the skill from search, match and model-facing
	// listings.
	DisableModelInvocation bool
	// UserInvocable is false when `user-invocable: false` (no prompt); default true.
	UserInvocable bool
	// ArgumentHint is the `argument-hint` field.
	ArgumentHint string
	// AlwaysApply marks a core skill (metadata.skillhub.alwaysApply or
	// metadata.alwaysApply).
	AlwaysApply bool
	// Network says the skill's commands and scripts need the network
	// (metadata.network: true); like Script.Network, it takes effect only
	// where the server's configuration allows it (scripts.allow_network).
	Network bool
}

// RawJSON returns the verbatim frontmatter as a JSON object ("{}" when empty).
func (f *Frontmatter) RawJSON() []byte {
	if len(f.Raw) == 0 {
		return []byte("{}")
	}
	b, err := json.Marshal(f.Raw)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// Document is one parsed skill file.
type Document struct {
	// HasFrontmatter is false when the file has no parseable frontmatter block.
	HasFrontmatter bool
	Frontmatter    Frontmatter
	// Body is the markdown after the frontmatter, line endings normalised to \n.
	Body string
	// BodyLine is the 1-based line of the file where Body starts.
	BodyLine int
}

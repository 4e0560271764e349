// Package source walks one skills root on disk and finds the skill files in it:
// Agent Skills folders (a SKILL.md and its companion files, layout A) and seed-000
// markdown trees (a .md file with keywords and description, and its resource
// folder, layout B). It applies the symlink policy (followed only inside the
// root, loops detected, Windows symlink stubs reported), the walk limits, and the
// default discovery of skills folders (project before user).
//
// It does not parse skills beyond deciding what is one (package skill parses),
// hash files, resolve inheritance, or merge several roots into one catalog
// (package catalog does); it never reads a companion file's content except to
// detect a symlink stub.
package source

import (
	"slices"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// KindLocal is the Kind of a root that is a folder on the local disk.
const KindLocal = "local"

// Root is one folder that holds skills.
type Root struct {
	// Name is what users see, e.g. the folder as given or "./.claude/skills".
	Name string
	// Dir is the folder's absolute, cleaned path.
	Dir string
	// Kind says where the folder comes from: KindLocal (git later).
	Kind string
	// Trusted says whether the root's scripts may run.
	Trusted bool
	// Follow are absolute folders outside Dir into which symbolic links
	// below Dir may lead (the explicit opt-in of follow_external_symlinks);
	// empty: links are followed only inside Dir (confine.Rule).
	Follow []string
}

// Tree is the root as package confine reads it: its folder and the
// folders its links may lead into.
func (r *Root) Tree() confine.Tree { return confine.Tree{Dir: r.Dir, Follow: r.Follow} }

// Same reports whether r and o are the same source, read the same way.
func (r *Root) Same(o *Root) bool {
	return r.Name == o.Name && r.Dir == o.Dir && r.Kind == o.Kind && r.Trusted == o.Trusted && slices.Equal(r.Follow, o.Follow)
}

// Default limits; see Limits.
const (
	DefaultMaxFiles          = 100_000
	DefaultMaxSkillFiles     = 10_000
	DefaultMaxDepth          = 32
	DefaultMaxSkillFileBytes = 1 << 20
)

// Limits bound one walk. A zero (or negative) field means its default.
type Limits struct {
	// MaxFiles bounds the files and folders visited in one root (default
	// DefaultMaxFiles): a last resort, since each skill is bounded by
	// MaxSkillFiles and files outside skills that are not .md files are not
	// counted. When reached, the walk stops with an error diagnostic and
	// returns what it found so far (the catalog's shrink guard then keeps
	// the last good catalog).
	MaxFiles int
	// MaxSkillFiles bounds the files and folders in one skill's folder
	// (default DefaultMaxSkillFiles). A skill over it is left out, with an
	// error diagnostic on its skill file; its neighbours are not affected,
	// and its folder is not read further.
	MaxSkillFiles int
	// MaxDepth bounds how many folders deep below the root the walk goes (default
	// DefaultMaxDepth); deeper folders are skipped with an error diagnostic.
	MaxDepth int
	// MaxSkillFileBytes bounds the size of a skill file (SKILL.md, or a .md file
	// with frontmatter outside skill folders), default DefaultMaxSkillFileBytes;
	// a larger one is skipped with an error diagnostic.
	MaxSkillFileBytes int64
}

func (l Limits) withDefaults() Limits {
	defaults.Set(&l.MaxFiles, DefaultMaxFiles)
	defaults.Set(&l.MaxSkillFiles, DefaultMaxSkillFiles)
	defaults.Set(&l.MaxDepth, DefaultMaxDepth)
	defaults.Set(&l.MaxSkillFileBytes, DefaultMaxSkillFileBytes)
	return l
}

// Entry is one skill file found by Walk.
type Entry struct {
	// Root is the root the entry was found in.
	Root *Root
	// Layout is skill.LayoutFolder for a SKILL.md, skill.LayoutTree for a
	// seed-000 markdown file.
	Layout skill.Layout
	// RelFile is the skill file's path relative to the root, '/' separated.
	RelFile string
	// AbsFile is the skill file's absolute path (through the root, not resolved).
	AbsFile string
	// Dir is the skill's folder: the folder holding SKILL.md (layout A), or the
	// resource folder, the sibling folder named like the file without .md
	// (layout B; "" when there is none).
	Dir string
	// Files are the companion files, sorted by Path: for layout A every file
	// under Dir except its SKILL.md, recursively (a nested skill's files
	// included); for layout B every file under the resource folder.
	Files []File
	// Data is the skill file's content; nil for a layout-A file that
	// WalkKnown's known reported as held already.
	Data []byte
	// Size and ModTime are the skill file's.
	Size    int64
	ModTime time.Time
	// Doc is the parsed skill file for layout B (Walk must parse it to know it
	// is a skill); nil for layout A, whose SKILL.md the caller parses (in
	// parallel, or not at all when its cache is still good).
	Doc *skill.Document
	// Diagnostics are the parser's diagnostics for Doc, with Source and File
	// filled in.
	Diagnostics []skill.Diagnostic
}

// File is one companion file of a skill.
type File struct {
	// Path is relative to the skill's folder (Entry.Dir), '/' separated.
	Path string
	// Abs is the file's absolute path (through the root, not resolved).
	Abs string
	// Real is the path the walk reached it by, from the root's real path
	// (symbolic links resolved): read it there to see the tree the walk
	// saw, even if the root is a link switched since.
	Real    string
	Size    int64
	ModTime time.Time
}

// Diagnostic codes produced by Walk.
const (
	CodeDirUnreadable     = "dir-unreadable"
	CodeFileUnreadable    = "file-unreadable"
	CodeSymlinkEscape     = "symlink-escape"
	CodeSymlinkLoop       = "symlink-loop"
	CodeSymlinkBroken     = "symlink-broken"
	CodeSymlinkStub       = "symlink-stub"
	CodeSpecialFile       = "special-file"
	CodeSkillFileName     = "skill-file-name"
	CodeSkillFileTooLarge = "skill-file-too-large"
	CodeTreeSkillInvalid  = "tree-skill-invalid"
	CodeDuplicateFolder   = "duplicate-folder"
	CodeLimitFiles        = "limit-files"
	CodeLimitSkillFiles   = "limit-skill-files"
	CodeLimitDepth        = "limit-depth"
)

package content

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Doc page extensions, in the order a get tries them (REQ-BUILD-004).
var docExts = []string{".md", ".mdx"}

// indexKey is the key, inside a section of the hierarchy, of the section's
// own page (its index.md): get_doc resolves [section, "index"] to the same
// file as [section].
const indexKey = "index"

// maxDocFiles bounds the pages one tree may index.
const maxDocFiles = 20000

// DocPage is one documentation page as listed.
type DocPage struct {
	// Path is the page's path segments joined by "/", without extension or
	// "/index" ("" for the root index.md).
	Path string
	// Title is the frontmatter title, else the first "# " heading, else the
	// last segment of the page's path ("index" for the root page).
	Title string
	// Description is the frontmatter description; "" when none.
	Description string
	// File is the file the page is read from, relative to the docs folder.
	File string
}

// DocTree is the docs hierarchy (REQ-DOC-001): section names map to
// sub-sections (map[string]any), leaves are page descriptions (string; the
// title when the page has no description). A section's own page is its
// "index" entry.
type DocTree = map[string]any

// DocFile is one page, read (REQ-DOC-003).
type DocFile struct {
	// Path is the requested segments joined by "/".
	Path    string
	Content string
	// FilePath is the file read, as answers show it (Folder.Prefix + "/" + file).
	FilePath string
	// SHA is git's blob id of the file.
	SHA string
}

// DocCandidates applies the index.md convention (REQ-DOC-002) to path
// segments: it checks each segment (CheckSegment; a segment may hold "/",
// which separates further segments) and returns the files to try, in order,
// relative to the docs folder: <p>/index.md, <p>/index.mdx, <p>.md, <p>.mdx.
// No segments means the root page (index.md, index.mdx). joined is the
// segments joined by "/".
func DocCandidates(segments []string) (candidates []string, joined string, err error) {
	if len(segments) > 64 {
		return nil, "", failure.New(failure.InvalidArgument, "INVALID_PATH", "path has %d segments; at most 64 are accepted", len(segments))
	}
	parts := make([]string, 0, len(segments))
	for i, s := range segments {
		if err := CheckSegment(fmt.Sprintf("path[%d]", i), s); err != nil {
			return nil, "", err
		}
		for p := range strings.SplitSeq(s, "/") {
			if p == "" || p == "." {
				return nil, "", failure.New(failure.InvalidArgument, "INVALID_PATH",
					"path[%d] %q has an empty or \".\" part: give each section name once, without empty parts", i, clip(s)).With("path", clip(s))
			}
			parts = append(parts, p)
		}
	}
	joined = strings.Join(parts, "/")
	for _, ext := range docExts {
		candidates = append(candidates, path.Join(joined, "index"+ext))
	}
	if joined != "" {
		for _, ext := range docExts {
			candidates = append(candidates, joined+ext)
		}
	}
	return candidates, joined, nil
}

// pageOf returns the page path a docs file serves and its rank among the
// files that could serve that path (the order of DocCandidates), or ok false
// when the file is not a page.
func pageOf(rel string) (page string, rank int, ok bool) {
	ext := path.Ext(rel)
	i := slices.Index(docExts, strings.ToLower(ext))
	if i < 0 || ext != docExts[i] {
		return "", 0, false
	}
	stem := strings.TrimSuffix(rel, ext)
	if stem == "index" || strings.HasSuffix(stem, "/index") {
		return strings.TrimSuffix(strings.TrimSuffix(stem, "index"), "/"), i, true
	}
	return stem, len(docExts) + i, true
}

// maxDocDepth bounds how many folders deep below the docs folder pages are
// looked for.
const maxDocDepth = 32

// scanDocs walks the docs folder (hidden files and folders left out, symbolic
// links followed under the confine rule: inside the folder, never in a loop)
// and returns its pages sorted by path, one per page path (the file
// DocCandidates tries first wins), and the tree. A missing folder is an empty
// index. Files that look like pages but cannot be read (a FIFO, a link
// leading outside, …) are left out with a Diagnostic.
func scanDocs(folder Folder) (pages []DocPage, tree DocTree, diags []Diagnostic, err error) {
	pages, tree = []DocPage{}, DocTree{}
	rule, err := folder.rule()
	if err != nil {
		return nil, nil, nil, err
	}
	if rule == nil {
		return pages, tree, nil, nil
	}
	type cand struct {
		file string
		rank int
	}
	best := map[string]cand{}
	count := 0
	err = rule.Walk(func(p string, info fs.FileInfo, err error) error {
		isDir := info != nil && info.IsDir()
		if strings.HasPrefix(path.Base(p), ".") {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			if strings.Count(p, "/")+1 >= maxDocDepth {
				return fs.SkipDir
			}
			return nil
		}
		page, rank, ok := pageOf(p)
		if !ok {
			return nil
		}
		if err != nil {
			diags = append(diags, diagnose(folder, p, info, err))
			return nil
		}
		if count++; count > maxDocFiles {
			return fs.SkipAll
		}
		if b, seen := best[page]; !seen || rank < b.rank {
			best[page] = cand{p, rank}
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	for page, c := range best {
		data, err := readHead(rule, c.file)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // not gone meanwhile
				diags = append(diags, diagnose(folder, c.file, nil, err))
			}
			continue
		}
		fm, body, _ := frontmatter(normalize(data))
		dp := DocPage{Path: page, Title: str(fm, "title"), Description: str(fm, "description"), File: c.file}
		if dp.Title == "" {
			dp.Title = firstHeading(body)
		}
		if dp.Title == "" && page != "" {
			dp.Title = path.Base(page) // a section's index.md: the section's name
		}
		if dp.Title == "" {
			dp.Title = "index"
		}
		pages = append(pages, dp)
	}
	slices.SortFunc(pages, func(a, b DocPage) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(diags, func(a, b Diagnostic) int { return strings.Compare(a.Path, b.Path) })
	return pages, buildTree(pages), diags, nil
}

// buildTree nests pages (sorted by path) into the hierarchy. A page whose
// path is also a section goes in as the section's "index" entry.
func buildTree(pages []DocPage) DocTree {
	sections := map[string]bool{}
	for _, p := range pages {
		for dir := path.Dir(p.Path); dir != "." && dir != ""; dir = path.Dir(dir) {
			sections[dir] = true
		}
	}
	tree := DocTree{}
	for _, p := range pages {
		leaf := p.Description
		if leaf == "" {
			leaf = p.Title
		}
		var segs []string
		if p.Path != "" {
			segs = strings.Split(p.Path, "/")
		}
		if p.Path == "" || sections[p.Path] {
			segs = append(segs, indexKey)
		}
		node := tree
		ok := true
		for _, s := range segs[:len(segs)-1] {
			child, exists := node[s]
			if !exists {
				m := DocTree{}
				node[s] = m
				node = m
				continue
			}
			m, isMap := child.(DocTree)
			if !isMap {
				ok = false // a page named like a section's "index" key: left out of the tree
				break
			}
			node = m
		}
		if last := segs[len(segs)-1]; ok {
			if _, taken := node[last]; !taken {
				node[last] = leaf
			}
		}
	}
	return tree
}

package catalog

import (
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

const (
	rootPath     = "_root"
	indexSegment = "_index"
)

// deriveParent is seed 000 §4.3's deriveParentPath: the path the parent of
// skill path p would have. "_root" has none (""); "<dir>/_index" has
// "<parent of dir>/_index", or "_root" at the top; any other path has
// "<its dir>/_index", or "_root" at the top. Empty segments are ignored, so
// the result is never p itself, and repeating it always reaches "".
//
// A path without empty segments (every catalog path) is cut where it is,
// without splitting it: one allocation at most, for a build that derives
// the parents of every skill.
func deriveParent(p string) string {
	if p == "" || p[0] == '/' || p[len(p)-1] == '/' || strings.Contains(p, "//") {
		return deriveParentSplit(p)
	}
	slash := strings.LastIndexByte(p, '/')
	if slash < 0 { // one segment
		if p == rootPath {
			return ""
		}
		return rootPath
	}
	dir := p[:slash]
	if p[slash+1:] == indexSegment {
		up := strings.LastIndexByte(dir, '/')
		if up < 0 {
			return rootPath
		}
		return dir[:up] + "/" + indexSegment
	}
	return dir + "/" + indexSegment
}

// deriveParentSplit is deriveParent for any p, empty segments included.
func deriveParentSplit(p string) string {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
	if len(segs) == 0 {
		return ""
	}
	if len(segs) == 1 && segs[0] == rootPath {
		return ""
	}
	dir := segs[:len(segs)-1]
	if segs[len(segs)-1] == indexSegment {
		if len(dir) <= 1 {
			return rootPath
		}
		return strings.Join(dir[:len(dir)-1], "/") + "/" + indexSegment
	}
	if len(dir) == 0 {
		return rootPath
	}
	return strings.Join(dir, "/") + "/" + indexSegment
}

// header is a section title of seed 000 §6.2: "GLOBAL RULES" for _root;
// otherwise the path upper-cased, "/" shown as " > ", "_index" segments left
// out, white space collapsed.
func header(p string) string {
	if p == rootPath {
		return "GLOBAL RULES"
	}
	var parts []string
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == indexSegment {
			continue
		}
		parts = append(parts, strings.ToUpper(strings.Join(strings.Fields(seg), " ")))
	}
	if len(parts) == 0 { // a top-level "_index"
		return strings.ToUpper(p)
	}
	return strings.Join(parts, " > ")
}

// trimBody drops the blank lines before a body and the white space after it,
// keeping the first line's indentation.
func trimBody(body string) string {
	body = strings.TrimRight(body, " \t\n\r")
	for {
		line, rest, ok := strings.Cut(body, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			if !ok && strings.TrimSpace(line) == "" {
				return ""
			}
			return body
		}
		body = rest
	}
}

// Content returns what an agent reads for sk (seed 000 §6.2). With inherit
// (the default) it is one section per skill of Chain(sk), root first, each
//
//	=== <HEADER> (from <file relative to the source root>) ===
//
//	<body>
//
// joined by a blank line ("\n\n"); a body is trimmed of its leading blank lines
// and trailing white space, and an empty body leaves the banner alone. Without
// inherit, or for a layout-A skill with no ancestor, it is the skill's own
// body, trimmed the same way, with no banner.
func (s *Snapshot) Content(sk *Skill) string {
	if !sk.Inherits() || (sk.Parent == nil && sk.Layout != skill.LayoutTree) {
		return trimBody(sk.Doc.Body)
	}
	var b strings.Builder
	for i, c := range s.Chain(sk) {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("=== ")
		b.WriteString(header(c.Path))
		b.WriteString(" (from ")
		b.WriteString(c.RelFile)
		b.WriteString(") ===")
		if body := trimBody(c.Doc.Body); body != "" {
			b.WriteString("\n\n")
			b.WriteString(body)
		}
	}
	return b.String()
}

// Assets returns the assets sk declares (own, From "") and, with inherit, those
// its ancestors declare that it does not override (inherited, From set), per
// seed 000 §7.3: the chain is read root → leaf into a table keyed by file, a
// more specific skill replacing an entry in place. Both lists keep declaration
// order and are never nil. Declarations of a layout-B skill without a resource
// folder, and paths that leave the folder, were dropped at build time (§7.1).
func (s *Snapshot) Assets(sk *Skill) (own, inherited []AssetRef) {
	return layered(s, sk, func(k *Skill) []skill.Asset { return k.assets }, func(a skill.Asset) string { return a.File },
		func(a skill.Asset, from string, owner *Skill) AssetRef {
			return AssetRef{Asset: a, From: from, Owner: owner}
		})
}

// Scripts is Assets for scripts.
func (s *Snapshot) Scripts(sk *Skill) (own, inherited []ScriptRef) {
	return layered(s, sk, func(k *Skill) []skill.Script { return k.scripts }, func(sc skill.Script) string { return sc.File },
		func(sc skill.Script, from string, owner *Skill) ScriptRef {
			return ScriptRef{Script: sc, From: from, Owner: owner}
		})
}

// layered is Assets and Scripts over the declarations decls reads from a
// skill: sk's own, then those of its ancestors (root → leaf) that sk does not
// override, a more specific skill replacing an entry in place. file keys a
// declaration; ref makes its reference (from "" for sk's own).
func layered[D, R any](s *Snapshot, sk *Skill, decls func(*Skill) []D, file func(D) string, ref func(d D, from string, owner *Skill) R) (own, inherited []R) {
	mineDecls := decls(sk)
	own = make([]R, 0, len(mineDecls))
	mine := make(map[string]bool, len(mineDecls))
	for _, d := range mineDecls {
		own = append(own, ref(d, "", sk))
		mine[file(d)] = true
	}
	inherited = []R{}
	if !sk.Inherits() {
		return own, inherited
	}
	idx := map[string]int{}
	for _, c := range s.Chain(sk.Parent) {
		for _, d := range decls(c) {
			f := file(d)
			if mine[f] {
				continue
			}
			r := ref(d, c.Path, c)
			if i, ok := idx[f]; ok {
				inherited[i] = r
				continue
			}
			idx[f] = len(inherited)
			inherited = append(inherited, r)
		}
	}
	return own, inherited
}

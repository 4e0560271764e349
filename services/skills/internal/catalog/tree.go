package catalog

import (
	"slices"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Node is one skill in the tree of seed 000 §8.2 (SkillNode).
type Node struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Description string   `json:"description"`
	Keywords    []string `json:"keywords"`
	// AssetCount and ScriptCount count the skill's own declared assets and
	// scripts (those kept at build time).
	AssetCount  int     `json:"assetCount"`
	ScriptCount int     `json:"scriptCount"`
	Children    []*Node `json:"children"`
	// Skill is the skill the node shows.
	Skill *Skill `json:"-"`
}

// Tree returns the skills as a forest along the parent relation: each skill
// under its resolved parent, the skills without one at the top, children
// sorted by path. Keywords and Children are never nil.
//
// sub selects sub-trees: the nodes whose path is sub or starts with sub+"/",
// each with its whole sub-tree, taking the highest such node on each branch
// ("ui" selects ui/_index's sub-tree, and any other ui/... node outside it).
// Surrounding blanks and slashes of sub are ignored; "" selects everything; a
// sub no node matches gives an empty list. A sub holding "\", NUL or a ".."
// segment is an error.
func (s *Snapshot) Tree(sub string) ([]*Node, error) {
	sub = strings.Trim(strings.TrimSpace(sub), "/")
	if strings.ContainsAny(sub, "\\\x00") || hasDotDot(sub) {
		return nil, failure.New(failure.InvalidArgument, "INVALID_PATH", "%q is not a skill path (no \"..\" segments, backslashes or NUL)", sub)
	}
	out := []*Node{}
	var visit func(sk *Skill)
	visit = func(sk *Skill) {
		if sub == "" || sk.Path == sub || strings.HasPrefix(sk.Path, sub+"/") {
			out = append(out, node(sk))
			return
		}
		for _, c := range sk.children {
			visit(c)
		}
	}
	for _, r := range s.roots {
		visit(r)
	}
	if sub != "" {
		sortNodes(out)
	}
	return out, nil
}

func node(sk *Skill) *Node {
	n := &Node{
		Name:        sk.Name,
		Path:        sk.Path,
		Description: sk.Description,
		Keywords:    append([]string{}, sk.Doc.Frontmatter.Keywords...),
		AssetCount:  len(sk.assets),
		ScriptCount: len(sk.scripts),
		Children:    make([]*Node, 0, len(sk.children)),
		Skill:       sk,
	}
	for _, c := range sk.children {
		n.Children = append(n.Children, node(c))
	}
	return n
}

func sortNodes(ns []*Node) {
	slices.SortFunc(ns, func(a, b *Node) int { return strings.Compare(a.Path, b.Path) })
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

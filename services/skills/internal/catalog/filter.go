package catalog

import (
	"slices"
	"strings"
)

// Filter is the enabled subset of seed 004 §8.3, the skills a server exposes
// at all: when EnabledSkills is set only the skills it names (by name or
// path, case-insensitive) exist for callers; else when EnabledCategories is
// set only skills of those categories do; else all. The zero Filter exposes
// every skill.
type Filter struct {
	EnabledSkills     []string
	EnabledCategories []string
}

// Enabled reports whether sk is inside the enabled subset.
func (f Filter) Enabled(sk *Skill) bool {
	if len(f.EnabledSkills) > 0 {
		return slices.ContainsFunc(f.EnabledSkills, func(n string) bool {
			return strings.EqualFold(n, sk.Name) || strings.EqualFold(n, sk.Path)
		})
	}
	if len(f.EnabledCategories) > 0 {
		cat := sk.Category()
		return cat != "" && slices.ContainsFunc(f.EnabledCategories, func(c string) bool { return strings.EqualFold(c, cat) })
	}
	return true
}

// Serves reports whether sk is served to callers: enabled, and not kept back
// by the security scan (Skill.Quarantined).
func (f Filter) Serves(sk *Skill) bool { return f.Enabled(sk) && !sk.Quarantined() }

// Selection is what a caller narrows a list of skills to. Its zero value
// selects every skill.
type Selection struct {
	// Text, when set, keeps the skills whose path, name or description
	// contains it (case-insensitive).
	Text string
	// Category, when set, keeps the skills of this category
	// (case-insensitive).
	Category string
	// Tags, when set, keeps the skills that have every one of these tags
	// (case-insensitive).
	Tags []string
	// RoutableOnly keeps the routable skills only.
	RoutableOnly bool
}

// Selects reports whether sk is in the selection.
func (sel Selection) Selects(sk *Skill) bool {
	switch {
	case sel.RoutableOnly && !sk.Routable,
		sel.Text != "" && !containsFold(sel.Text, sk.Path, sk.Name, sk.Description),
		sel.Category != "" && !strings.EqualFold(sel.Category, sk.Category()):
		return false
	}
	for _, t := range sel.Tags {
		if !slices.ContainsFunc(sk.Tags(), func(have string) bool { return strings.EqualFold(have, t) }) {
			return false
		}
	}
	return true
}

// containsFold reports whether one of fields contains text, ignoring case.
func containsFold(text string, fields ...string) bool {
	text = strings.ToLower(text)
	return slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(strings.ToLower(f), text) })
}

// Category is the skill's category as its frontmatter declares it, in lower
// case; "" when it declares none.
func (s *Skill) Category() string {
	if s.Doc == nil {
		return ""
	}
	return strings.ToLower(s.Doc.Frontmatter.Category)
}

// Tags are the skill's tags as its frontmatter declares them.
func (s *Skill) Tags() []string {
	if s.Doc == nil {
		return nil
	}
	return s.Doc.Frontmatter.Tags
}

package catalog

import (
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

func TestFilterEnabled(t *testing.T) {
	mk := func(path, name, cat string) *Skill {
		return &Skill{Path: path, Name: name, Doc: &skill.Document{Frontmatter: skill.Frontmatter{Category: cat}}}
	}
	pdf, react, bare := mk("docs/pdf", "pdf", "documents"), mk("ui/react/auth", "ui/react/auth", "frontend"), mk("x", "x", "")
	for _, tc := range []struct {
		name   string
		filter Filter
		want   map[*Skill]bool
	}{
		{"empty filter enables all", Filter{}, map[*Skill]bool{pdf: true, react: true, bare: true}},
		{"skills by name or path, any case", Filter{EnabledSkills: []string{"PDF", "ui/react/AUTH"}}, map[*Skill]bool{pdf: true, react: true, bare: false}},
		{"categories", Filter{EnabledCategories: []string{"Frontend"}}, map[*Skill]bool{pdf: false, react: true, bare: false}},
		{"skills win over categories", Filter{EnabledSkills: []string{"pdf"}, EnabledCategories: []string{"frontend"}}, map[*Skill]bool{pdf: true, react: false, bare: false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for sk, want := range tc.want {
				if got := tc.filter.Enabled(sk); got != want {
					t.Errorf("%s: got %v, want %v", sk.Path, got, want)
				}
			}
		})
	}
}

func TestSelection(t *testing.T) {
	sk := &Skill{Path: "ui/react/auth", Name: "React Auth", Description: "Login forms with OAuth", Routable: true,
		Doc: &skill.Document{Frontmatter: skill.Frontmatter{Category: "Frontend", Tags: []string{"React", "auth"}}}}
	unroutable := &Skill{Path: "notes", Name: "notes", Doc: &skill.Document{}}
	for _, tc := range []struct {
		name string
		sel  Selection
		sk   *Skill
		want bool
	}{
		{"zero selects all", Selection{}, unroutable, true},
		{"text in the path", Selection{Text: "REACT/"}, sk, true},
		{"text in the name", Selection{Text: "react auth"}, sk, true},
		{"text in the description", Selection{Text: "oauth"}, sk, true},
		{"text nowhere", Selection{Text: "vue"}, sk, false},
		{"category, any case", Selection{Category: "frontend"}, sk, true},
		{"other category", Selection{Category: "backend"}, sk, false},
		{"category of a skill with none", Selection{Category: "frontend"}, unroutable, false},
		{"every tag, any case", Selection{Tags: []string{"react", "AUTH"}}, sk, true},
		{"a tag missing", Selection{Tags: []string{"react", "vue"}}, sk, false},
		{"routable only", Selection{RoutableOnly: true}, unroutable, false},
		{"routable only, routable", Selection{RoutableOnly: true}, sk, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sel.Selects(tc.sk); got != tc.want {
				t.Errorf("Selects(%s): got %v, want %v", tc.sk.Path, got, tc.want)
			}
		})
	}
}

func TestFilterServes(t *testing.T) {
	held := &Skill{Path: "x", Name: "x", Doc: &skill.Document{}}
	held.Security.Quarantined = true
	free := &Skill{Path: "y", Name: "y", Doc: &skill.Document{}}
	if (Filter{}).Serves(held) {
		t.Error("a quarantined skill is served")
	}
	if !(Filter{}).Serves(free) {
		t.Error("an enabled skill that is not quarantined is not served")
	}
	if (Filter{EnabledSkills: []string{"x"}}).Serves(free) {
		t.Error("a skill outside the enabled subset is served")
	}
}

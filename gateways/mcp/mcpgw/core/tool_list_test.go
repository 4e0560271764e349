package core

import (
	"fmt"
	"strings"
	"testing"
)

func TestListSkillsIsBounded(t *testing.T) {
	long := strings.Repeat("word ", 60)
	var tree []SkillNode
	for i := range 300 {
		tree = append(tree, SkillNode{Name: fmt.Sprintf("skill-%03d", i), Path: fmt.Sprintf("skill-%03d", i), Description: long, Keywords: []string{}, Children: []SkillNode{}})
	}
	for _, tc := range []struct {
		name          string
		limit         int
		wantTruncated bool
		wantAll       bool
	}{
		{"fits", 1 << 30, false, true},
		{"fits once descriptions are shortened", size(tree) * 2 / 3, true, true},
		{"skills left out", 8 << 10, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]SkillNode(nil), tree...)
			got := bound(in, tc.limit, func(string) bool { return true })
			if got.Truncated != tc.wantTruncated {
				t.Errorf("truncated: got %v, want %v", got.Truncated, tc.wantTruncated)
			}
			if n := countNodes(got.Skills); (n == len(tree)) != tc.wantAll {
				t.Errorf("kept %d of %d skills; want all: %v", n, len(tree), tc.wantAll)
			}
			if s := size(got); s > tc.limit {
				t.Errorf("answer is %d bytes, over the %d limit", s, tc.limit)
			}
			if tc.wantTruncated && got.Message == "" {
				t.Error("a truncated answer needs a message")
			}
			// The skills-mcp profile has get_skill and list_skills, no
			// load_skill: the message names only those.
			seed := bound(append([]SkillNode(nil), tree...), tc.limit, func(name string) bool { return name == ToolGetSkill || name == ToolListSkills })
			if strings.Contains(seed.Message, "load_skill") {
				t.Errorf("message of the skills-mcp profile names load_skill: %s", seed.Message)
			}
		})
	}
}

package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

func testMask() *pathMask {
	return &pathMask{
		from:   []string{"/home/ann/.agents/skills", "/srv/skills", "/home/ann"},
		to:     []string{"skills", "team", "~"},
		labels: map[string]string{"/home/ann/.agents/skills": "skills", "team": "team"},
	}
}

func TestMaskText(t *testing.T) {
	m := testMask()
	for in, want := range map[string]string{
		"/home/ann/.agents/skills/pdf/SKILL.md":              "skills/pdf/SKILL.md",
		"/home/ann/.agents/skills":                           "skills",
		"reading /srv/skills/x.md: permission denied":        "reading team/x.md: permission denied",
		"/srv/skills-old/x.md":                               "/srv/skills-old/x.md", // another folder
		"/data/srv/skills/x":                                 "/data/srv/skills/x",   // inside a longer path
		"cd /home/ann/work && /home/ann/.agents/skills/a.sh": "cd ~/work && skills/a.sh",
		"no path here":                                       "no path here",
		"":                                                   "",
	} {
		if got := m.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := m.label("/home/ann/.agents/skills"); got != "skills" {
		t.Errorf("label = %q", got)
	}
}

func TestMaskMessage(t *testing.T) {
	fm, _ := structpb.NewStruct(map[string]any{"path": "/srv/skills/a", "n": 1.0})
	resp := &skillsv1.GetSkillResponse{
		Skill:        &skillsv1.Skill{SkillPath: "pdf", Source: "/home/ann/.agents/skills"},
		Directory:    "/home/ann/.agents/skills/pdf",
		File:         "/home/ann/.agents/skills/pdf/SKILL.md",
		Instructions: "Run /home/ann/.agents/skills/pdf/x.sh", // the skill's own text: kept
		Frontmatter:  fm,
		Diagnostics:  []*skillsv1.Diagnostic{{Source: "/home/ann/.agents/skills", Message: "cannot read /srv/skills/b"}},
	}
	testMask().message(resp.ProtoReflect())
	if resp.GetDirectory() != "skills/pdf" || resp.GetFile() != "skills/pdf/SKILL.md" || resp.GetSkill().GetSource() != "skills" {
		t.Errorf("paths: %q %q %q", resp.GetDirectory(), resp.GetFile(), resp.GetSkill().GetSource())
	}
	if !strings.Contains(resp.GetInstructions(), "/home/ann/") {
		t.Errorf("instructions were rewritten: %q", resp.GetInstructions())
	}
	if d := resp.GetDiagnostics()[0]; d.GetSource() != "skills" || d.GetMessage() != "cannot read team/b" {
		t.Errorf("diagnostic: %v", d)
	}
	if v := resp.GetFrontmatter().GetFields()["path"].GetStringValue(); v != "team/a" {
		t.Errorf("frontmatter value %q", v)
	}
}

// FuzzMaskText: rewriting never panics, never leaves a masked folder at a
// path boundary, and leaves text without one unchanged.
func FuzzMaskText(f *testing.F) {
	for _, s := range []string{"/home/ann/.agents/skills/x", "a /srv/skills b", "/srv/skills/srv/skills", "/home/annx", "é/home/ann/é"} {
		f.Add(s)
	}
	m := testMask()
	f.Fuzz(func(t *testing.T, s string) {
		got := m.text(s)
		if !strings.Contains(s, "/home/ann") && !strings.Contains(s, "/srv/skills") && got != s {
			t.Fatalf("text(%q) = %q: changed text without a masked folder", s, got)
		}
		for _, from := range m.from {
			for i := strings.Index(got, from); i >= 0; {
				end := i + len(from)
				if (end == len(got) || !pathByte(got[end])) && (i == 0 || !pathByte(got[i-1])) {
					t.Fatalf("text(%q) = %q still holds %s", s, got, from)
				}
				j := strings.Index(got[i+1:], from)
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
	})
}

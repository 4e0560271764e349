package profiles

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": Native, " SkillHub ": SkillHub, "github-worker": GitHubWorker, "sk": Sk} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := Parse("skill-hub")
	if err == nil || !strings.Contains(err.Error(), "skillhub") || !strings.Contains(err.Error(), "universal-skills") {
		t.Errorf("Parse(skill-hub) error %v, want one listing the profiles", err)
	}
	for _, p := range Names()[1:] {
		if len(ToolNames(p, false)) == 0 || Instructions(p) == "" {
			t.Errorf("profile %s: no tools or no instructions", p)
		}
	}
}

func TestCheckPathValue(t *testing.T) {
	for _, ok := range []string{"git", "pdf-tools", "templates/a.sql", "a.b", "x_y"} {
		if err := checkPathValue("name", ok); err != nil {
			t.Errorf("checkPathValue(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "..", "../x", "a/../b", "x..y", "/etc/passwd", `a\b`, `\x`} {
		err := checkPathValue("name", bad)
		ge, ok := err.(*ghError)
		if !ok || ge.Code != ghInvalidPath || ge.Message == "" {
			t.Errorf("checkPathValue(%q) = %v, want INVALID_PATH", bad, err)
		}
	}
}

// FuzzCheckPathValue: whatever passes holds no "..", no leading "/" and no "\".
func FuzzCheckPathValue(f *testing.F) {
	for _, s := range []string{"git", "../x", "/a", `a\b`, "a/b.md", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if checkPathValue("name", s) == nil && (s == "" || strings.Contains(s, "..") || strings.HasPrefix(s, "/") || strings.Contains(s, `\`)) {
			t.Errorf("checkPathValue(%q) accepted it", s)
		}
	})
}

func TestTTLCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTTLCache(10*time.Minute, 2, func() time.Time { return now })
	c.put("a", 1)
	now = now.Add(9 * time.Minute)
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Errorf("get(a) after 9 minutes = %v, %v; want 1", v, ok)
	}
	now = now.Add(time.Minute)
	if _, ok := c.get("a"); ok {
		t.Errorf("get(a) after 10 minutes: still cached")
	}
	c.put("b", 2)
	now = now.Add(time.Second)
	c.put("c", 3)
	c.put("d", 4) // full: b, the closest to expiry, goes
	if _, ok := c.get("b"); ok {
		t.Errorf("get(b): kept past the bound")
	}
	for _, k := range []string{"c", "d"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("get(%s): dropped", k)
		}
	}
}

func TestGitBlobSHA(t *testing.T) {
	// git hash-object of "hello\n".
	if got := gitBlobSHA([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("gitBlobSHA = %s", got)
	}
}

func TestSkMatch(t *testing.T) {
	s := &skillsv1.Skill{SkillPath: "tools/git", Name: "git", Description: "Git deployment workflow", Body: "Run `bd ready` before shipping. " + strings.Repeat("filler words ", 40) + "Tag the RELEASE."}
	h, ok := skMatch(s, []string{"bd", "release"})
	if !ok || h.Score != 2 || h.InstallName != "git" || h.SkillFile != "tools/git/SKILL.md" || !strings.Contains(h.Excerpt, "bd ready") {
		t.Errorf("skMatch(bd release) = %+v, %v", h, ok)
	}
	if n := utf8.RuneCountInString(h.Excerpt); n > skExcerptChars+2 {
		t.Errorf("excerpt is %d characters, want about %d", n, skExcerptChars)
	}
	if _, ok := skMatch(s, []string{"bd", "zzz"}); ok {
		t.Errorf("skMatch(bd zzz) matched: every token must")
	}
	if ex := skExcerpt(strings.Repeat("x", 300)+" needle "+strings.Repeat("y", 300), "needle"); !strings.Contains(ex, "needle") || !strings.HasPrefix(ex, "…") || !strings.HasSuffix(ex, "…") {
		t.Errorf("skExcerpt around the middle = %q", ex)
	}
}

func TestUniversalDescriptionBounded(t *testing.T) {
	var skills []*skillsv1.Skill
	for i := range 3000 {
		skills = append(skills, &skillsv1.Skill{Name: fmt.Sprintf("skill-%04d", i), Description: strings.Repeat("does a thing well ", 30)})
	}
	d := universalDescription(skills, len(skills))
	if len(d) > universalListBudget+2048 || !strings.Contains(d, "<name>skill-0000</name>") || !strings.Contains(d, "more skills are not listed here") {
		t.Errorf("description of 3000 skills: %d bytes, ends %q", len(d), d[max(0, len(d)-200):])
	}
	small := universalDescription(skills[:2], 2)
	if strings.Contains(small, "not listed") || !strings.Contains(small, "<name>skill-0001</name>") {
		t.Errorf("description of 2 skills: %q", small)
	}
}

func TestIsAbsolute(t *testing.T) {
	for p, want := range map[string]bool{"/etc/passwd": true, `C:\x`: true, "c:/x": true, `\\srv\x`: true, "templates/a.txt": false, "a:b": false} {
		if got := isAbsolute(p); got != want {
			t.Errorf("isAbsolute(%q) = %v, want %v", p, got, want)
		}
	}
}

// FuzzSkExcerpt: the excerpt never panics, stays about skExcerptChars long and
// holds the token when the text does (for tokens short enough to fit).
func FuzzSkExcerpt(f *testing.F) {
	f.Add(strings.Repeat("word ", 100)+"needle "+strings.Repeat("tail ", 100), "needle")
	f.Add("short text", "zz")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, text, token string) {
		token = strings.ToLower(strings.TrimSpace(token))
		ex := skExcerpt(text, token)
		if n := utf8.RuneCountInString(ex); n > skExcerptChars+2 {
			t.Errorf("excerpt of %d characters", n)
		}
		norm := strings.Join(strings.Fields(text), " ")
		if token != "" && !strings.ContainsAny(token, " \t\n\r\v\f\u0085\u00a0") && utf8.RuneCountInString(token) < 40 &&
			strings.Contains(norm, token) && norm == strings.ToLower(norm) && utf8.ValidString(norm) && !strings.Contains(strings.ToLower(ex), token) {
			t.Errorf("excerpt %q of %q lacks %q", ex, norm, token)
		}
	})
}

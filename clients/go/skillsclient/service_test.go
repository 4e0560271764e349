package skillsclient_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// startService serves a catalog of the named SKILL.md skills with the real
// service, in memory, and returns a client on it.
func startService(t *testing.T, names ...string) *skillsclient.Client {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		p := filepath.Join(dir, n, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\nBody of " + n + ".\n"
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return skillsclient.New(skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}}))
}

func TestServicePaging(t *testing.T) {
	five := []string{"alpha", "bravo", "charlie", "delta", "echo"}
	c := startService(t, five...)
	for _, size := range []int{0, 1, 2, 3, 5, 6} {
		var got []string
		for s, err := range c.Skills(t.Context(), skillsclient.ListOptions{PageSize: size}) {
			if err != nil {
				t.Fatalf("page size %d: %v", size, err)
			}
			got = append(got, s.GetSkillPath())
		}
		if diff := cmp.Diff(five, got); diff != "" {
			t.Errorf("page size %d (-want +got):\n%s", size, diff)
		}
	}

	// Page by hand: 2 + 2 + 1, the total on every page.
	var sizes []int
	token := ""
	for range 10 {
		page, err := c.SkillsPage(t.Context(), skillsclient.ListOptions{PageSize: 2}, token)
		if err != nil {
			t.Fatal(err)
		}
		if page.GetTotalSize() != 5 {
			t.Errorf("total_size = %d, want 5", page.GetTotalSize())
		}
		sizes = append(sizes, len(page.GetSkills()))
		if token = page.GetNextPageToken(); token == "" {
			break
		}
	}
	if diff := cmp.Diff([]int{2, 2, 1}, sizes); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
}

func TestServiceErrors(t *testing.T) {
	c := startService(t, "pdf", "docx")

	_, err := c.Skill(t.Context(), "pdff")
	var e *skillsclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want *skillsclient.Error", err, err)
	}
	if e.Code != codes.NotFound || e.Reason != "SKILL_NOT_FOUND" || !errors.Is(err, skillsclient.ErrSkillNotFound) {
		t.Errorf("got code %v reason %q, want NotFound SKILL_NOT_FOUND", e.Code, e.Reason)
	}
	if diff := cmp.Diff([]string{"pdf"}, e.Suggestions()); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}

	_, err = c.SkillsPage(t.Context(), skillsclient.ListOptions{}, "not-a-token")
	if !errors.As(err, &e) || e.Code != codes.InvalidArgument {
		t.Errorf("bad page token: got %v, want InvalidArgument", err)
	}
}

package skillsd_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/testing/protocmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// copyDir copies the files of src into a new folder at another depth, with
// other modification times.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "replica", "skills")
	old := time.Now().Add(-48 * time.Hour)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		writeFile(t, out, string(data))
		return os.Chtimes(out, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func catalogStatus(t *testing.T, conn grpc.ClientConnInterface) *skillsv1.GetCatalogStatusResponse {
	t.Helper()
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatalf("GetCatalogStatus: %v", err)
	}
	return st
}

// TestReplicasAgreeOnCatalogID: two servers over copies of the same folder,
// at different places on disk, report the same catalog_id and content_id
// and answer the same searches the same way; an edit of one byte in one
// copy's companion file sets its catalog_id apart.
func TestReplicasAgreeOnCatalogID(t *testing.T) {
	dirA, dirB := copyDir(t, examples(t)), copyDir(t, examples(t))
	a := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dirA}, NoWatch: true})
	b := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dirB}, NoWatch: true})
	stA, stB := catalogStatus(t, a), catalogStatus(t, b)
	if stA.GetSkillCount() == 0 {
		t.Fatalf("no skills served from %s", dirA)
	}
	id := stA.GetCatalogId()
	if !strings.HasPrefix(id, "sha256:") || len(id) != len("sha256:")+64 {
		t.Fatalf("catalog_id %q: want sha256: and 64 hex digits", id)
	}
	if stB.GetCatalogId() != id {
		t.Errorf("replicas over copies at %s and %s: catalog_id %s and %s, want equal", dirA, dirB, id, stB.GetCatalogId())
	}
	if ca, cb := stA.GetSources()[0].GetContentId(), stB.GetSources()[0].GetContentId(); !strings.HasPrefix(ca, "sha256:") || ca != cb {
		t.Errorf("content_id %q and %q: want equal folder digests", ca, cb)
	}
	if stA.GetSources()[0].GetLocation() == stB.GetSources()[0].GetLocation() {
		t.Fatalf("both replicas serve %s: the test needs two folders", stA.GetSources()[0].GetLocation())
	}

	rA, rB := skillsv1.NewRoutingServiceClient(a), skillsv1.NewRoutingServiceClient(b)
	hits := 0
	for _, q := range []string{"pdf report", "database migration", "docker", "write a changelog", "incident"} {
		req := &skillsv1.SearchSkillsRequest{Query: q, Limit: 50}
		ansA, err := rA.SearchSkills(t.Context(), req)
		if err != nil {
			t.Fatalf("SearchSkills(%q): %v", q, err)
		}
		ansB, err := rB.SearchSkills(t.Context(), req)
		if err != nil {
			t.Fatalf("SearchSkills(%q): %v", q, err)
		}
		hits += len(ansA.GetResults())
		if diff := cmp.Diff(ansA, ansB, protocmp.Transform()); diff != "" {
			t.Errorf("SearchSkills(%q) differs between replicas with catalog_id %s (-a +b):\n%s", q, id, diff)
		}
	}
	if hits == 0 {
		t.Errorf("no search found anything: the comparison proves nothing")
	}

	// One byte of a companion file, in a third copy.
	dirC := copyDir(t, examples(t))
	var companion string
	_ = filepath.WalkDir(dirC, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && companion == "" && filepath.Base(p) != "SKILL.md" && filepath.Dir(p) != dirC &&
			strings.Contains(p, string(filepath.Separator)+"pdf-report"+string(filepath.Separator)) {
			companion = p
		}
		return nil
	})
	if companion == "" {
		t.Fatalf("no companion file under %s/pdf-report", dirC)
	}
	data, err := os.ReadFile(companion)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	writeFile(t, companion, string(data))
	c := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dirC}, NoWatch: true})
	if stC := catalogStatus(t, c); stC.GetCatalogId() == id || stC.GetSources()[0].GetContentId() == stA.GetSources()[0].GetContentId() {
		t.Errorf("after editing %s: catalog_id %s, content_id %s; want both to differ from the replicas'",
			companion, stC.GetCatalogId(), stC.GetSources()[0].GetContentId())
	}
}

// TestGitCatalogIDFollowsCommit: a git source's content_id is the commit
// it serves, the same on two servers with separate caches; a refresh to a
// new commit changes it and the catalog_id.
func TestGitCatalogIDFollowsCommit(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	c1 := repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF"), "README.md": "not a skill"})
	vars := map[string]string{"SKILLS_REPO": repo.URL(), "SKILLS_BRANCH": "main"}
	a := skillstest.Start(t, skillsd.Options{Getenv: gitEnv(t.TempDir(), vars)})
	b := skillstest.Start(t, skillsd.Options{Getenv: gitEnv(t.TempDir(), vars)})
	stA, stB := catalogStatus(t, a), catalogStatus(t, b)
	if got := stA.GetSources()[0].GetContentId(); got != c1 {
		t.Errorf("content_id %q, want the commit %s", got, c1)
	}
	if stA.GetCatalogId() == "" || stA.GetCatalogId() != stB.GetCatalogId() {
		t.Errorf("two servers at commit %s: catalog_id %q and %q, want equal", c1, stA.GetCatalogId(), stB.GetCatalogId())
	}

	c2 := repo.Commit("two", map[string]string{"skills/docx/SKILL.md": skillstest.SkillMD("docx", "Word")})
	if resp, err := skillsv1.NewCatalogServiceClient(a).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil || !resp.GetSuccess() {
		t.Fatalf("RefreshSkills: %v, %v", resp, err)
	}
	after := catalogStatus(t, a)
	if got := after.GetSources()[0].GetContentId(); got != c2 {
		t.Errorf("after the refresh: content_id %q, want the commit %s", got, c2)
	}
	if after.GetCatalogId() == stA.GetCatalogId() {
		t.Errorf("after the refresh to %s: catalog_id unchanged (%s)", c2, after.GetCatalogId())
	}

	// A commit that changes no file of the skills still moves the identity.
	c3 := repo.Commit("three", map[string]string{"README.md": "still not a skill"})
	if _, err := skillsv1.NewCatalogServiceClient(a).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
		t.Fatal(err)
	}
	if st := catalogStatus(t, a); st.GetSources()[0].GetContentId() != c3 || st.GetCatalogId() == after.GetCatalogId() {
		t.Errorf("after a commit outside the skills: content_id %q (want %s), catalog_id %s (was %s)",
			st.GetSources()[0].GetContentId(), c3, st.GetCatalogId(), after.GetCatalogId())
	}
}

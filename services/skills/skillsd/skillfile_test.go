package skillsd_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// GetSkill's skill_file describes the skill file as ReadSkillFile does (the
// same size and digest), so that a client need not read it to know whether
// it changed.
func TestGetSkillSkillFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pdf", "SKILL.md")
	writeFile(t, file, skillstest.SkillMD("pdf", "Fill PDF forms."))
	writeFile(t, filepath.Join(dir, "pdf", "reference.md"), "# Reference\n")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}, NoWatch: true})
	ctx := t.Context()
	got, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "pdf"})
	if err != nil {
		t.Fatal(err)
	}
	read, err := skillsv1.NewFileServiceClient(conn).ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "pdf", File: "SKILL.md", MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := &skillsv1.SkillFile{Path: "SKILL.md", SizeBytes: int64(len(data)), Digest: read.GetDigest(), MimeType: "text/markdown", Text: true}
	if diff := cmp.Diff(want, got.GetSkillFile(), protocmp.Transform()); diff != "" {
		t.Errorf("skill_file (-want +got):\n%s", diff)
	}
	if read.GetSizeBytes() != int64(len(data)) || read.GetDigest() == "" {
		t.Errorf("ReadSkillFile: size %d, digest %q; want %d and a digest", read.GetSizeBytes(), read.GetDigest(), len(data))
	}
}

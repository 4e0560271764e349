package skillsd_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// BenchmarkHidePaths measures what hiding paths costs a caller: a page of
// 100 skills with their bodies and one skill's details, shown and hidden,
// on a catalog of 500 skills.
func BenchmarkHidePaths(b *testing.B) {
	dir := b.TempDir()
	for i := range 500 {
		name := fmt.Sprintf("skill-%03d", i)
		writeFile(b, filepath.Join(dir, name, "SKILL.md"), skillstest.SkillMD(name, "does task number "+name+" with care"))
	}
	srv, err := skillsd.New(b.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: b.TempDir(), Home: b.TempDir(), NoWatch: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	for _, mode := range []struct {
		name string
		opts []grpc.DialOption
	}{{"shown", nil}, {"hidden", edge.HidePathsDialOptions()}} {
		conn, err := srv.DialTrusted(b.Context(), mode.opts...)
		if err != nil {
			b.Fatal(err)
		}
		cat := skillsv1.NewCatalogServiceClient(conn)
		b.Run("ListSkills/"+mode.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := cat.ListSkills(b.Context(), &skillsv1.ListSkillsRequest{PageSize: 100, IncludeBody: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("GetSkill/"+mode.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := cat.GetSkill(b.Context(), &skillsv1.GetSkillRequest{SkillPath: "skill-250"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

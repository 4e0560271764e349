package mcpgw

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// countingConn counts the unary calls made through it, by method.
type countingConn struct {
	grpc.ClientConnInterface
	// older drops skill_file from GetSkill's answers, as a skillsd older
	// than the field would.
	older bool
	mu    sync.Mutex
	calls map[string]int
	// errs, when not nil, keeps the last error of each method.
	errs map[string]error
}

func (c *countingConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
	err := c.ClientConnInterface.Invoke(ctx, method, args, reply, opts...)
	if c.errs != nil {
		c.mu.Lock()
		c.errs[method] = err
		c.mu.Unlock()
	}
	if r, ok := reply.(*skillsv1.GetSkillResponse); ok && c.older {
		r.SkillFile = nil
	}
	return err
}

// count returns the calls of the catalog copy's three methods.
func (c *countingConn) count() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for _, m := range []string{
		skillsv1.CatalogService_ListSkills_FullMethodName,
		skillsv1.CatalogService_GetSkill_FullMethodName,
		skillsv1.FileService_ReadSkillFile_FullMethodName,
	} {
		out[m] = c.calls[m]
	}
	return out
}

// TestCatalogCopyRPCs counts the calls that build the extension's copy of
// the catalog: one list, and one GetSkill per skill, whose answer carries
// the SKILL.md's size and digest (skill_file). It used to cost one more
// ReadSkillFile per SKILL.md skill, to learn that digest; a skillsd older
// than the field still gets those reads.
func TestCatalogCopyRPCs(t *testing.T) {
	for _, tt := range []struct {
		name  string
		older bool
		reads int
	}{
		{name: "skill_file", reads: 0},
		{name: "older skillsd", older: true, reads: 3},
	} {
		t.Run(tt.name, func(t *testing.T) { testCatalogCopyRPCs(t, tt.older, tt.reads) })
	}
}

func testCatalogCopyRPCs(t *testing.T, older bool, reads int) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := &countingConn{
		ClientConnInterface: skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}}),
		older:               older,
		calls:               map[string]int{},
	}
	ec := connectExtClient(t, conn)
	all := ec.listAll(t)
	if len(all) != 3 {
		t.Fatalf("skills/list: got %d skills, want 3", len(all))
	}
	// The catalog has 5 skills: pdf, pdf/forms and manual (SKILL.md
	// folders), and the tree's _root and ui/react/auth.
	want := map[string]int{
		skillsv1.CatalogService_ListSkills_FullMethodName: 1,
		skillsv1.CatalogService_GetSkill_FullMethodName:   5,
		skillsv1.FileService_ReadSkillFile_FullMethodName: reads,
	}
	if diff := cmp.Diff(want, conn.count()); diff != "" {
		t.Errorf("calls to build the catalog copy (-want +got):\n%s", diff)
	}
	// The SKILL.md resources have the files' sizes and digests.
	for _, s := range all {
		res := s.Resources[0]
		rel := strings.TrimPrefix(res.URI, "skill://")
		data, err := os.ReadFile(filepath.Join(skillsDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Digest != sha(data) || res.Size != int64(len(data)) {
			t.Errorf("%s: got digest %s, size %d; want %s, %d", res.URI, res.Digest, res.Size, sha(data), len(data))
		}
	}
}

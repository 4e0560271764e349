//go:build unix

package skillsd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// mkfifo makes a named pipe at p and, when the test ends, opens it for
// writing (without blocking) so that a reader stuck on it, if any, is
// released.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	t.Cleanup(func() {
		for range 50 { // release every reader a broken build left blocked
			fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return // ENXIO: nobody is reading
			}
			_ = syscall.Close(fd)
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TestFIFOsNeverBlock puts a FIFO in each kind of folder the service reads
// (a skill's SKILL.md, a skill's companion file and declared asset, a
// seed-000 page, an agent profile, a documentation page): every listing and
// read answers, at once, with a diagnostic naming the FIFO. A read that
// blocks on one is caught by the 1 s deadline of each call (a FIFO named
// x.md in the agents folder used to block ListAgents forever while holding
// the store's lock).
func TestFIFOsNeverBlock(t *testing.T) {
	base := t.TempDir()
	skills, agents, docs := filepath.Join(base, "skills"), filepath.Join(base, "agents"), filepath.Join(base, "docs")
	writeFile(t, filepath.Join(skills, "pdf", "SKILL.md"),
		"---\nname: pdf\ndescription: Fill PDF forms.\nassets:\n  - file: template.md\n    type: template\n---\n# PDF\n")
	writeFile(t, filepath.Join(skills, "pdf", "ok.txt"), "fine")
	mkfifo(t, filepath.Join(skills, "pdf", "template.md")) // declared asset
	mkfifo(t, filepath.Join(skills, "pdf", "forms.txt"))   // companion file
	mkfifo(t, filepath.Join(skills, "broken", "SKILL.md"))
	mkfifo(t, filepath.Join(skills, "notes.md")) // a seed-000 page candidate
	writeFile(t, filepath.Join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews.\n---\nYou review.\n")
	mkfifo(t, filepath.Join(agents, "x.md"))
	writeFile(t, filepath.Join(docs, "index.md"), "# Home\n")
	mkfifo(t, filepath.Join(docs, "page.md"))

	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skills}, AgentsDir: agents, DocsDir: docs, NoWatch: true})
	cat := skillsv1.NewCatalogServiceClient(conn)
	files := skillsv1.NewFileServiceClient(conn)
	cont := skillsv1.NewContentServiceClient(conn)
	// call runs one RPC with a 1 s deadline: a hang fails it with
	// DeadlineExceeded, which the assertions below report as a hang.
	call := func(what string, rpc func(ctx context.Context) error) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		err := rpc(ctx)
		if status.Code(err) == codes.DeadlineExceeded {
			t.Fatalf("%s hung on a FIFO (no answer within 1 s)", what)
		}
		return err
	}
	hasDiag := func(what string, ds []*skillsv1.Diagnostic, file string) {
		t.Helper()
		for _, d := range ds {
			if d.GetFile() == file && d.GetCode() == "special-file" && strings.Contains(d.GetMessage(), "named pipe") {
				return
			}
		}
		t.Errorf("%s: no special-file diagnostic for %s in %v", what, file, ds)
	}

	// Skills: the catalog lists pdf only, and says why the others are not there.
	var list *skillsv1.ListSkillsResponse
	if err := call("ListSkills", func(ctx context.Context) (err error) {
		list, err = cat.ListSkills(ctx, &skillsv1.ListSkillsRequest{})
		return err
	}); err != nil {
		t.Fatalf("ListSkills: %v", err)
	}
	if len(list.GetSkills()) != 1 || list.GetSkills()[0].GetSkillPath() != "pdf" {
		t.Errorf("ListSkills: %v; want pdf alone", list.GetSkills())
	}
	var diags *skillsv1.ListDiagnosticsResponse
	if err := call("ListDiagnostics", func(ctx context.Context) (err error) {
		diags, err = cat.ListDiagnostics(ctx, &skillsv1.ListDiagnosticsRequest{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"broken/SKILL.md", "notes.md", "pdf/forms.txt", "pdf/template.md"} {
		hasDiag("ListDiagnostics", diags.GetDiagnostics(), f)
	}
	var sk *skillsv1.GetSkillResponse
	if err := call("GetSkill", func(ctx context.Context) (err error) {
		sk, err = cat.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "pdf"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range sk.GetFiles() {
		if f.GetPath() != "ok.txt" {
			t.Errorf("GetSkill(pdf) lists %s, which is not a regular file", f.GetPath())
		}
	}
	// Assets: reading the FIFOs is refused, saying what they are.
	for _, f := range []string{"forms.txt", "template.md"} {
		err := call("ReadSkillFile "+f, func(ctx context.Context) error {
			_, err := files.ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "pdf", File: f})
			return err
		})
		if status.Code(err) != codes.PermissionDenied || !strings.Contains(status.Convert(err).Message(), "named pipe") {
			t.Errorf("ReadSkillFile(%s): %v; want PermissionDenied naming the named pipe", f, err)
		}
	}

	// Agents: listed twice (the second from the index), and read.
	for range 2 {
		var la *skillsv1.ListAgentsResponse
		if err := call("ListAgents", func(ctx context.Context) (err error) {
			la, err = cont.ListAgents(ctx, &skillsv1.ListAgentsRequest{})
			return err
		}); err != nil {
			t.Fatalf("ListAgents: %v", err)
		}
		if len(la.GetAgents()) != 1 || la.GetAgents()[0].GetName() != "reviewer" {
			t.Errorf("ListAgents: %v; want reviewer alone", la.GetAgents())
		}
		hasDiag("ListAgents", la.GetDiagnostics(), "agents/x.md")
	}
	err := call("GetAgent x", func(ctx context.Context) error {
		_, err := cont.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "x"})
		return err
	})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "named pipe") {
		t.Errorf("GetAgent(x): %v; want InvalidArgument naming the named pipe", err)
	}
	if err := call("GetAgent reviewer", func(ctx context.Context) error {
		_, err := cont.GetAgent(ctx, &skillsv1.GetAgentRequest{Name: "reviewer", SkipCache: true})
		return err
	}); err != nil {
		t.Errorf("GetAgent(reviewer) beside a FIFO: %v", err)
	}

	// Docs: listed and read.
	var ld *skillsv1.ListDocsResponse
	if err := call("ListDocs", func(ctx context.Context) (err error) {
		ld, err = cont.ListDocs(ctx, &skillsv1.ListDocsRequest{})
		return err
	}); err != nil {
		t.Fatalf("ListDocs: %v", err)
	}
	if len(ld.GetPages()) != 1 || ld.GetPages()[0].GetPath() != "" {
		t.Errorf("ListDocs: %v; want the index page alone", ld.GetPages())
	}
	hasDiag("ListDocs", ld.GetDiagnostics(), "docs/page.md")
	err = call("GetDoc page", func(ctx context.Context) error {
		_, err := cont.GetDoc(ctx, &skillsv1.GetDocRequest{Path: []string{"page"}})
		return err
	})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "named pipe") {
		t.Errorf("GetDoc(page): %v; want InvalidArgument naming the named pipe", err)
	}
}

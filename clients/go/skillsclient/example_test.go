package skillsclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// addr is the address of the skillsd the examples talk to. TestMain starts
// it on loopback over a catalog written to a temporary folder (examples have
// no testing.TB, so skillstest.Start is for the tests, not for them).
var addr string

// exampleCatalog is the examples' catalog: four document skills, one skill
// without a description, and a _root.md whose rules they all inherit.
var exampleCatalog = map[string]string{
	"_root.md":       "---\nkeywords: [documents]\ndescription: House rules for every document.\n---\nUse the company template.\n",
	"docx/SKILL.md":  "---\nname: docx\ndescription: Create and edit Word documents.\n---\nUse python-docx.\n",
	"pdf/SKILL.md":   "---\nname: pdf\ndescription: Extract text and tables from PDF files.\n---\nUse pdftotext.\n",
	"pdf/forms.md":   "# Filling forms\n",
	"pptx/SKILL.md":  "---\nname: pptx\ndescription: Build slide decks.\n---\nUse python-pptx.\n",
	"xlsx/SKILL.md":  "---\nname: xlsx\ndescription: Build spreadsheets with formulas.\n---\nUse openpyxl.\n",
	"notes/SKILL.md": "# Notes\n\nNo frontmatter at all.\n",
}

func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "skillsclient-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, content := range exampleCatalog {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := skillsd.New(ctx, skillsd.Options{SkillsDirs: []string{dir}, Cwd: dir, Home: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	addr = lis.Addr().String()
	go func() { _ = srv.Serve(ctx, lis) }()
	return m.Run()
}

// dial connects to the examples' server, as a program would connect to its
// skillsd.
func dial() *grpc.ClientConn {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	return conn
}

func Example() {
	ctx := context.Background()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	c := skillsclient.New(conn)

	skill, err := c.Skill(ctx, "PDF") // by path or case-insensitive name
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(skill.GetSkill().GetSkillPath(), "-", skill.GetSkill().GetDescription())
	fmt.Println("inherits:", strings.Join(skill.GetInheritanceChain(), " > "))
	fmt.Print(skill.GetContent())
	// Output:
	// pdf - Extract text and tables from PDF files.
	// inherits: _root > pdf
	// === GLOBAL RULES (from _root.md) ===
	//
	// Use the company template.
	//
	// === PDF (from pdf/SKILL.md) ===
	//
	// Use pdftotext.
}

func ExampleClient_Skills() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	// Pages of two skills are fetched as the loop needs them.
	for s, err := range c.Skills(context.Background(), skillsclient.ListOptions{PageSize: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-6s routable=%v\n", s.GetSkillPath(), s.GetRoutable())
	}
	// Output:
	// _root  routable=true
	// docx   routable=true
	// notes  routable=false
	// pdf    routable=true
	// pptx   routable=true
	// xlsx   routable=true
}

func ExampleClient_Skills_query() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	opts := skillsclient.ListOptions{Query: "build", RoutableOnly: true}
	for s, err := range c.Skills(context.Background(), opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.GetName())
	}
	// Output:
	// pptx
	// xlsx
}

func ExampleClient_Skill_files() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	skill, err := c.Skill(context.Background(), "pdf")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range skill.GetFiles() {
		fmt.Println(f.GetPath(), f.GetSizeBytes(), f.GetText(), strings.HasPrefix(f.GetDigest(), "sha256:"))
	}
	// Output:
	// forms.md 16 true true
}

func ExampleErrSkillNotFound() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	_, err := c.Skill(context.Background(), "pfd")
	if errors.Is(err, skillsclient.ErrSkillNotFound) {
		var e *skillsclient.Error
		errors.As(err, &e)
		fmt.Println("not found:", e.Metadata["skill_path"])
		fmt.Println("did you mean:", strings.Join(e.Suggestions(), ", "))
		fmt.Println("code:", e.Code, "reason:", e.Reason, "IsNotFound:", skillsclient.IsNotFound(err))
	}
	// Output:
	// not found: pfd
	// did you mean: pdf
	// code: NotFound reason: SKILL_NOT_FOUND IsNotFound: true
}

func ExampleClient_Tree() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	nodes, err := c.Tree(context.Background(), "")
	if err != nil {
		log.Fatal(err)
	}
	var print func(nodes []*skillsv1.SkillNode, depth int)
	print = func(nodes []*skillsv1.SkillNode, depth int) {
		for _, n := range nodes {
			fmt.Printf("%s%s\n", strings.Repeat("  ", depth), n.GetPath())
			print(n.GetChildren(), depth+1)
		}
	}
	print(nodes, 0)
	// Output:
	// _root
	//   docx
	//   notes
	//   pdf
	//   pptx
	//   xlsx
}

func ExampleClient_Diagnostics() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	resp, err := c.Diagnostics(context.Background(), skillsclient.DiagnosticsOptions{MinSeverity: skillsv1.Severity_SEVERITY_WARNING})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range resp.GetDiagnostics() {
		fmt.Printf("%s: %s [%s]\n", d.GetFile(), d.GetSeverity(), d.GetCode())
	}
	fmt.Println("errors:", resp.GetErrorCount(), "warnings:", resp.GetWarningCount())
	// Output:
	// notes/SKILL.md: SEVERITY_ERROR [not-routable]
	// notes/SKILL.md: SEVERITY_ERROR [frontmatter-missing]
	// errors: 2 warnings: 0
}

func ExampleClient_Status() {
	conn := dial()
	defer conn.Close()
	c := skillsclient.New(conn)

	st, err := c.Status(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("skills:", st.GetSkillCount(), "routable:", st.GetRoutableCount(), "sources:", len(st.GetSources()))
	// Output:
	// skills: 6 routable: 5 sources: 1
}

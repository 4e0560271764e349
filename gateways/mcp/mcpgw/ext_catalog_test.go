package mcpgw

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// pngBytes is a file the catalog takes as binary.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01\x02\x03")

// surfaceCatalog writes SKILL.md folders (one hidden from the model, one
// nested in another) and a seed-000 tree; it returns the two source folders.
func surfaceCatalog(t *testing.T) (skillsDir, treeDir string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"skills/pdf/SKILL.md":           "---\nname: pdf\ndescription: Fill, merge and split PDF files.\nlicense: MIT\nmetadata:\n  version: \"2\"\n---\n\n# PDF\n\nMerge the files the user names: $ARGUMENTS\n",
		"skills/pdf/reference.md":       "# pypdf reference\n",
		"skills/pdf/scripts/merge.py":   "print('merge')\n",
		"skills/pdf/assets/logo.png":    string(pngBytes),
		"skills/pdf/forms/SKILL.md":     "---\nname: forms\ndescription: Fill PDF forms field by field.\n---\n\n# Forms\n",
		"skills/pdf/forms/fields.txt":   "name\ndate\n",
		"skills/manual/SKILL.md":        "---\nname: manual\ndescription: Deploy to production, only when the user asks.\ndisable-model-invocation: true\n---\n\n# Manual\n",
		"tree/_root.md":                 "---\nkeywords: [global]\ndescription: Global project rules\n---\n\n# Global Rules\n\n- Test everything\n",
		"tree/ui/react/auth.md":         "---\nkeywords: [react, auth]\ndescription: React authentication\n---\n\n# React Auth\n\nWrap the root.\n",
		"tree/ui/react/auth/notes.txt":  "notes\n",
		"skills/.hidden-dir/ignore.txt": "x\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), content)
	}
	return filepath.Join(root, "skills"), filepath.Join(root, "tree")
}

// extClient connects an MCP client able to call the skills extension's
// methods, and counts the list-changed notifications it receives.
type extClient struct {
	cs              *mcp.ClientSession
	promptsChanged  chan struct{}
	resourceChanged chan struct{}
}

func connectExtClient(t *testing.T, conn grpc.ClientConnInterface) *extClient {
	t.Helper()
	return connectExtClientVersion(t, conn, "")
}

// connectExtClientVersion is connectExtClient asking for protocol version
// (empty: the SDK's latest). The server follows the catalog with a watch, as
// skills-mcp's does.
func connectExtClientVersion(t *testing.T, conn grpc.ClientConnInterface, version string) *extClient {
	t.Helper()
	server, _ := watchedServer(t, conn, Options{Version: "1.2.3"})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	ec := &extClient{promptsChanged: make(chan struct{}, 16), resourceChanged: make(chan struct{}, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "ext-test", Version: "0"}, &mcp.ClientOptions{
		PromptListChangedHandler: func(_ context.Context, _ *mcp.PromptListChangedRequest) {
			ec.promptsChanged <- struct{}{}
		},
		ResourceListChangedHandler: func(_ context.Context, _ *mcp.ResourceListChangedRequest) {
			ec.resourceChanged <- struct{}{}
		},
	})
	for _, err := range []error{
		mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](client, MethodSkillsList),
		mcp.AddSendingCustomMethod[*GetSkillParams, *GetSkillResult](client, MethodSkillsGet),
		mcp.AddSendingCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](client, MethodDirectoryRead),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	ec.cs, err = client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ec.cs.Close() })
	return ec
}

func (ec *extClient) listAll(t *testing.T) []*SkillEntry {
	t.Helper()
	var all []*SkillEntry
	cursor := ""
	for range 1000 {
		res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](t.Context(), ec.cs, MethodSkillsList, &ListSkillsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		all = append(all, res.Skills...)
		if cursor = res.NextCursor; cursor == "" {
			return all
		}
	}
	t.Fatal("skills/list: no end to the pages")
	return nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func rpcCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func TestSkillsExtension(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}})
	ec := connectExtClient(t, conn)
	ctx := t.Context()

	caps := ec.cs.InitializeResult().Capabilities
	if diff := cmp.Diff(map[string]any{"directoryRead": true}, caps.Extensions[SkillsExtension]); diff != "" {
		t.Errorf("capability %s (-want +got):\n%s", SkillsExtension, diff)
	}
	if caps.Prompts == nil || !caps.Prompts.ListChanged || caps.Resources == nil || !caps.Resources.ListChanged || caps.Completions == nil {
		t.Errorf("capabilities: got prompts %+v, resources %+v, completions %+v; want all, with listChanged", caps.Prompts, caps.Resources, caps.Completions)
	}

	// skills/list: the SKILL.md folders only, every file with its digest.
	all := ec.listAll(t)
	var uris []string
	for _, s := range all {
		uris = append(uris, s.URI)
	}
	wantURIs := []string{"skill://manual/SKILL.md", "skill://pdf/SKILL.md", "skill://pdf/forms/SKILL.md"}
	if diff := cmp.Diff(wantURIs, uris); diff != "" {
		t.Fatalf("skills/list URIs (-want +got):\n%s", diff)
	}
	pdf := all[1]
	if diff := cmp.Diff(map[string]any{"name": "pdf", "description": "Fill, merge and split PDF files.", "license": "MIT", "metadata": map[string]any{"version": "2"}}, pdf.Frontmatter); diff != "" {
		t.Errorf("pdf frontmatter (-want +got):\n%s", diff)
	}
	var wantRes []*SkillResource
	for _, f := range []string{"SKILL.md", "assets/logo.png", "forms/SKILL.md", "forms/fields.txt", "reference.md", "scripts/merge.py"} {
		data, err := os.ReadFile(filepath.Join(skillsDir, "pdf", filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		wantRes = append(wantRes, &SkillResource{URI: "skill://pdf/" + f, Digest: sha(data), Size: int64(len(data))})
	}
	slices.SortFunc(pdf.Resources, func(a, b *SkillResource) int { return strings.Compare(a.URI, b.URI) })
	if diff := cmp.Diff(wantRes, pdf.Resources); diff != "" {
		t.Errorf("pdf resources (-want +got):\n%s", diff)
	}

	// skills/get: the same entry; an unknown URI is invalid params.
	got, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](ctx, ec.cs, MethodSkillsGet, &GetSkillParams{URI: "skill://pdf/SKILL.md"})
	if err != nil {
		t.Fatalf("skills/get: %v", err)
	}
	slices.SortFunc(got.Skill.Resources, func(a, b *SkillResource) int { return strings.Compare(a.URI, b.URI) })
	if diff := cmp.Diff(pdf, got.Skill); diff != "" {
		t.Errorf("skills/get differs from skills/list (-list +get):\n%s", diff)
	}
	for _, uri := range []string{"skill://nope/SKILL.md", "", "https://pdf/SKILL.md"} {
		_, err := mcp.CallCustomMethod[*GetSkillParams, *GetSkillResult](ctx, ec.cs, MethodSkillsGet, &GetSkillParams{URI: uri})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/get %q: got %v, want invalid params (-32602)", uri, err)
		}
	}

	// resources/directory/read: direct children, folders as inode/directory.
	dir, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](ctx, ec.cs, MethodDirectoryRead, &ReadDirectoryParams{URI: "skill://pdf"})
	if err != nil {
		t.Fatalf("resources/directory/read: %v", err)
	}
	var children []string
	for _, r := range dir.Resources {
		children = append(children, r.URI+" "+r.MIMEType)
	}
	wantChildren := []string{"skill://pdf/SKILL.md text/markdown", "skill://pdf/assets " + directoryMIME,
		"skill://pdf/forms " + directoryMIME, "skill://pdf/reference.md text/markdown", "skill://pdf/scripts " + directoryMIME}
	if diff := cmp.Diff(wantChildren, children); diff != "" {
		t.Errorf("resources/directory/read skill://pdf (-want +got):\n%s", diff)
	}
	for _, uri := range []string{"skill://pdf/", "skill://nothing", "skill://pdf/../x"} {
		_, err := mcp.CallCustomMethod[*ReadDirectoryParams, *ReadDirectoryResult](ctx, ec.cs, MethodDirectoryRead, &ReadDirectoryParams{URI: uri})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("resources/directory/read %q: got %v, want invalid params", uri, err)
		}
	}

	// resources: every file listed; text and binary read whole.
	var listed []string
	for r, err := range ec.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, r.URI)
	}
	for _, w := range append(wantURIs, "skill://pdf/assets/logo.png", "skill://pdf/scripts/merge.py", "skill://pdf/forms/fields.txt") {
		if !slices.Contains(listed, w) {
			t.Errorf("resources/list lacks %s (got %v)", w, listed)
		}
	}
	if slices.ContainsFunc(listed, func(u string) bool { return strings.Contains(u, "ui/react") || strings.Contains(u, "hidden") }) {
		t.Errorf("resources/list: got %v, want no tree skill files and no hidden files", listed)
	}
	rr, err := ec.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/scripts/merge.py"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "print('merge')\n" {
		t.Errorf("resources/read merge.py: got %+v, %v", rr, err)
	}
	rr, err = ec.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/assets/logo.png"})
	if err != nil || len(rr.Contents) != 1 || string(rr.Contents[0].Blob) != string(pngBytes) || rr.Contents[0].MIMEType != "image/png" {
		t.Errorf("resources/read logo.png: got %+v, %v", rr, err)
	}
	for _, uri := range []string{"skill://pdf/nope.md", "skill://pdf/../manual/SKILL.md", "skill://zzz/SKILL.md"} {
		if _, err := ec.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("resources/read %s: succeeded, want not found", uri)
		}
	}
	tmpls, err := ec.cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 || tmpls.ResourceTemplates[0].URITemplate != skillTemplate {
		t.Errorf("resources/templates/list: got %+v, %v", tmpls, err)
	}

	// completion of the template's path.
	comp, err := ec.cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: skillTemplate},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "pdf/s"},
	})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"pdf/scripts/merge.py"}) {
		t.Errorf("completion/complete pdf/s: got %+v, %v", comp, err)
	}
}

func TestPrompts(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}})
	ec := connectExtClient(t, conn)
	ctx := t.Context()

	var names []string
	for p, err := range ec.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	// manual has disable-model-invocation: no prompt.
	if diff := cmp.Diff([]string{"_root", "forms", "pdf", "ui/react/auth"}, names); diff != "" {
		t.Errorf("prompts/list (-want +got):\n%s", diff)
	}
	res, err := ec.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "pdf", Arguments: map[string]string{"arguments": "a.pdf b.pdf"}})
	if err != nil {
		t.Fatalf("prompts/get pdf: %v", err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompts/get pdf: got %+v, want one user message", res)
	}
	if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "Merge the files the user names: a.pdf b.pdf") {
		t.Errorf("prompts/get pdf: $ARGUMENTS not replaced: %q", text)
	}
	res, err = ec.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ui/react/auth", Arguments: map[string]string{"arguments": "login page"}})
	if err != nil {
		t.Fatalf("prompts/get ui/react/auth: %v", err)
	}
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "Global Rules") || !strings.Contains(text, "Wrap the root.") || !strings.HasSuffix(text, "ARGUMENTS: login page\n") {
		t.Errorf("prompts/get ui/react/auth: want inherited content then the arguments, got %q", text)
	}
	if _, err := ec.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "manual"}); err == nil {
		t.Error("prompts/get manual: succeeded, want an error (disable-model-invocation)")
	}
}

// TestSurfacesFollowTheCatalog changes the catalog under a connected client:
// prompts, resources and skills/list follow, and the client hears of it.
func TestSurfacesFollowTheCatalog(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}})
	ec := connectExtClient(t, conn)
	ctx := t.Context()
	if n := len(ec.listAll(t)); n != 3 {
		t.Fatalf("skills/list before: got %d skills, want 3", n)
	}
	writeFile(t, filepath.Join(skillsDir, "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint the code.\n---\n\n# Lint\n")
	if err := os.RemoveAll(filepath.Join(skillsDir, "manual")); err != nil {
		t.Fatal(err)
	}
	// A reload of the catalog (what refresh and file watching do).
	if _, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "pdf", SkipCache: true}); err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, s := range ec.listAll(t) {
		uris = append(uris, s.URI)
	}
	if diff := cmp.Diff([]string{"skill://lint/SKILL.md", "skill://pdf/SKILL.md", "skill://pdf/forms/SKILL.md"}, uris); diff != "" {
		t.Errorf("skills/list after the change (-want +got):\n%s", diff)
	}
	for _, ch := range []struct {
		name string
		c    chan struct{}
	}{{"prompts", ec.promptsChanged}, {"resources", ec.resourceChanged}} {
		select {
		case <-ch.c:
		case <-time.After(10 * time.Second):
			t.Errorf("no notifications/%s/list_changed after the catalog changed", ch.name)
		}
	}
	if _, err := ec.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "lint"}); err != nil {
		t.Errorf("prompts/get lint after it appeared: %v", err)
	}
	if _, err := ec.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://manual/SKILL.md"}); err == nil {
		t.Error("resources/read of a removed skill: succeeded, want not found")
	}
}

func TestSkillsListPages(t *testing.T) {
	dir := t.TempDir()
	const n = 2*skillsPageSize + 17
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		writeFile(t, filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: Skill number "+name+".\n---\n\nBody.\n")
	}
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}})
	ec := connectExtClient(t, conn)
	first, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](t.Context(), ec.cs, MethodSkillsList, &ListSkillsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Skills) != skillsPageSize || first.NextCursor == "" {
		t.Errorf("first page: got %d skills, cursor %q; want %d and a cursor", len(first.Skills), first.NextCursor, skillsPageSize)
	}
	all := ec.listAll(t)
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.URI] = true
	}
	if len(all) != n || len(seen) != n {
		t.Errorf("all pages: got %d skills (%d distinct), want %d", len(all), len(seen), n)
	}
	for _, c := range []string{"garbage", encodeCursor(n + 1)} {
		_, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](t.Context(), ec.cs, MethodSkillsList, &ListSkillsParams{Cursor: c})
		if rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("cursor %q: got %v, want invalid params", c, err)
		}
	}
}

func TestParseSkillURI(t *testing.T) {
	tests := []struct {
		uri, want string
		ok        bool
	}{
		{"skill://pdf/SKILL.md", "pdf/SKILL.md", true},
		{"skill://a/b/c.txt", "a/b/c.txt", true},
		{"skill://pdf", "pdf", true},
		{"skill://pdf/my%20file.md", "pdf/my file.md", true},
		// The authority is a host name: a top-level folder that cannot be one
		// leaves its skills out of the extension.
		{"skill://my%20skill/SKILL.md", "", false},
		{"skill://pdf/", "", false},
		{"skill://pdf/../x", "", false},
		{"skill://pdf/./x", "", false},
		{"skill://pdf//x", "", false},
		{"skill://pdf/x?y=1", "", false},
		{"skill://pdf/x#f", "", false},
		{"skill://u@pdf/x", "", false},
		{"skill://pdf:80/x", "", false},
		{"file:///etc/passwd", "", false},
		{"skill:pdf", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, err := parseSkillURI(tt.uri)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseSkillURI(%q) = %q, %v; want %q, ok %v", tt.uri, got, err, tt.want, tt.ok)
		}
	}
	for _, rel := range []string{"pdf/SKILL.md", "a/b c/d%e/é.md", "x/y"} {
		if got, err := parseSkillURI(skillURI(rel)); err != nil || got != rel {
			t.Errorf("round trip of %q: got %q, %v", rel, got, err)
		}
	}
}

func FuzzParseSkillURI(f *testing.F) {
	for _, s := range []string{"skill://pdf/SKILL.md", "skill://a/../b", "skill://%2e%2e/x", "skill://a/b%2F..%2Fc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		rel, err := parseSkillURI(raw)
		if err != nil {
			return
		}
		for seg := range strings.SplitSeq(rel, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("parseSkillURI(%q) = %q: has an empty or dot segment", raw, rel)
			}
		}
	})
}

// TestProtocolVersions connects with every protocol version the SDK speaks:
// the server agrees on it, and tools, prompts, resources and the skills
// extension answer the same in each (skills/list adds its cache hints from
// 2026-07-28 on).
func TestProtocolVersions(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}})
	versions := mcp.SupportedProtocolVersions()
	for _, want := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		if !slices.Contains(versions, want) {
			t.Errorf("the SDK does not speak %s (it speaks %v)", want, versions)
		}
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			ec := connectExtClientVersion(t, conn, v)
			ctx := t.Context()
			if got := ec.cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			if ext := ec.cs.InitializeResult().Capabilities.Extensions[SkillsExtension]; ext == nil {
				t.Errorf("no %s capability", SkillsExtension)
			}
			tools, err := ec.cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) < 6 {
				t.Errorf("tools/list: %v, %v", tools, err)
			}
			if _, text := callTool(t, ec.cs, core.ToolLoadSkill, map[string]any{"name": "pdf"}); !strings.Contains(text, "Merge the files") {
				t.Errorf("load_skill pdf: %s", text)
			}
			res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](ctx, ec.cs, MethodSkillsList, &ListSkillsParams{})
			if err != nil || len(res.Skills) != 3 {
				t.Fatalf("skills/list: %+v, %v", res, err)
			}
			if modern := v >= "2026-07-28"; (res.TTLMs != nil) != modern || (res.CacheScope != "") != modern {
				t.Errorf("skills/list cache hints: ttlMs %v, cacheScope %q; want them only from 2026-07-28", res.TTLMs, res.CacheScope)
			}
			prompts, err := ec.cs.ListPrompts(ctx, nil)
			if err != nil || len(prompts.Prompts) != 4 {
				t.Errorf("prompts/list: %+v, %v", prompts, err)
			}
			rr, err := ec.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://pdf/reference.md"})
			if err != nil || rr.Contents[0].Text != "# pypdf reference\n" {
				t.Errorf("resources/read: %+v, %v", rr, err)
			}
		})
	}
}

// TestSurfacesPushedByTheWatch: with a CatalogWatch running, a catalog
// change reaches a client that asks nothing: its resources and prompts lists
// are updated and it is told so.
func TestSurfacesPushedByTheWatch(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}})
	watch := NewCatalogWatch()
	server, err := New(conn, Options{CatalogWatch: watch})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- watch.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	promptsChanged := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "watch-test", Version: "0"}, &mcp.ClientOptions{
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
	})
	// The legacy protocol: notifications come on the session, unasked.
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if _, err := cs.ListPrompts(t.Context(), nil); err != nil { // builds the index
		t.Fatal(err)
	}
	for len(promptsChanged) > 0 {
		<-promptsChanged
	}
	writeFile(t, filepath.Join(skillsDir, "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint the code.\n---\n\n# Lint\n")
	if _, err := skillsv1.NewCatalogServiceClient(conn).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-promptsChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/prompts/list_changed after the catalog changed")
	}
	// The SDK's list is already the new one: no request rebuilt it.
	var names []string
	for p, err := range cs.Prompts(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "lint") {
		t.Errorf("prompts/list after the change: %v, want lint among them", names)
	}
}

// benchCorpus is the bench corpus, when this checkout sits beside it.
func benchCorpus(b *testing.B) string {
	b.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "shared", "bench", "corpus"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no bench corpus at %s", dir)
	}
	return dir
}

// BenchmarkSkillsIndexBuild reads the whole corpus (387 skills) into the
// index the extension, resources and prompts serve from: what the first
// request after start-up, or after a resync, costs.
func BenchmarkSkillsIndexBuild(b *testing.B) {
	conn := skillstest.Start(b, skillsd.Options{SkillsDirs: []string{benchCorpus(b)}})
	s := &surfaces{g: newGateway(core.New(conn, slog.New(slog.DiscardHandler), time.Minute), nil)}
	b.ReportAllocs()
	for b.Loop() {
		idx, err := s.build(b.Context(), 1, func(string) *indexedSkill { return nil })
		if err != nil || len(idx.folder) != 387 {
			b.Fatalf("build: %d skills, %v", len(idx.folder), err)
		}
	}
}

// BenchmarkSkillsListPage answers one skills/list page (100 skills) from a
// built index, over an in-memory MCP connection.
func BenchmarkSkillsListPage(b *testing.B) {
	conn := skillstest.Start(b, skillsd.Options{SkillsDirs: []string{benchCorpus(b)}})
	server, err := New(conn, Options{})
	if err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	if err := mcp.AddSendingCustomMethod[*ListSkillsParams, *ListSkillsResult](client, MethodSkillsList); err != nil {
		b.Fatal(err)
	}
	cs, err := client.Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ReportAllocs()
	for b.Loop() {
		res, err := mcp.CallCustomMethod[*ListSkillsParams, *ListSkillsResult](b.Context(), cs, MethodSkillsList, &ListSkillsParams{})
		if err != nil || len(res.Skills) != skillsPageSize {
			b.Fatalf("skills/list: %d skills, %v", len(res.Skills), err)
		}
	}
}

// TestCatalogChangesAppliedInOrder hands two changes of two generations to
// the listener back to back: both are applied in order (the second is not
// taken for the first's), without any request to rebuild the index.
func TestCatalogChangesAppliedInOrder(t *testing.T) {
	skillsDir, treeDir := surfaceCatalog(t)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{skillsDir, treeDir}, NoWatch: true})
	catalog := skillsv1.NewCatalogServiceClient(conn)
	s := &surfaces{g: newGateway(core.New(conn, slog.New(slog.DiscardHandler), time.Minute), nil)}
	opts := &mcp.ServerOptions{}
	s.configure(opts)
	if err := s.install(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, opts)); err != nil {
		t.Fatal(err)
	}
	first, err := s.current(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	refresh := func() int64 {
		t.Helper()
		if _, err := catalog.RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
			t.Fatal(err)
		}
		st, err := catalog.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st.GetGeneration()
	}
	writeFile(t, filepath.Join(skillsDir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: New PDF description.\n---\n\n# PDF\n")
	g1 := refresh()
	writeFile(t, filepath.Join(skillsDir, "pdf", "forms", "SKILL.md"), "---\nname: forms\ndescription: New forms description.\n---\n\n# Forms\n")
	g2 := refresh()
	if g2 <= g1 {
		t.Fatalf("generations %d then %d, want them to grow", g1, g2)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s.catalogChanged(ctx, CatalogChange{Generation: g1, Changed: []string{"pdf"}})
	s.catalogChanged(ctx, CatalogChange{Generation: g2, Changed: []string{"pdf/forms"}})
	want := map[string]string{"pdf": "New PDF description.", "forms": "New forms description."}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := map[string]string{}
		if idx := s.loaded(); idx.generation == g2 {
			for name := range want {
				got[name] = idx.prompts[name].description
			}
		}
		if cmp.Equal(want, got) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index after two changes: prompts %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The skills no change named were not read again; those named were.
	if now := s.loaded(); now.all["manual"] != first.all["manual"] || now.all["pdf"] == first.all["pdf"] {
		t.Error("the rebuild read again what it should have kept, or kept what changed")
	}
}

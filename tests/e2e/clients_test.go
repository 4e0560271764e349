package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// npmBin returns the path of a command npm installed into tests/e2e/node.
func npmBin(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "tests", "e2e", "node", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		missingTool(t, "%s is not installed: run `make npm-deps`", p)
	}
	return p
}

// runTool runs a Node command with node (Node >= 22) and returns its stdout,
// stderr and exit code; it fails the test when it cannot run at all.
func runTool(t *testing.T, node string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	// The tools start their own helpers with "node" from PATH: put Node 22 first.
	cmd.Env = append(cleanEnv(t), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	cmd.Dir = filepath.Join(repoRoot(t), "tests", "e2e", "node")
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	killGroup(cmd)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, tail(errOut.String(), 4000))
	}
	return out.String(), errOut.String(), code
}

// verifyReport is one line of mcp-inspector --method skills/list --verify.
type verifyReport struct {
	URI         string `json:"uri"`
	OK          bool   `json:"ok"`
	Outcome     string `json:"outcome"`
	Conformance []struct {
		Code string `json:"code"`
	} `json:"conformance"`
	Files []struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"files"`
}

// nonconformingSource are the conformance codes the Inspector reports for
// skills whose own files break the Agent Skills naming rules (a name that is
// not the folder's, capitals and spaces, a description over 1024
// characters): the catalog serves them as they are, with a diagnostic.
var nonconformingSource = map[string]bool{"name-path-mismatch": true, "malformed-name": true, "malformed-description": true}

// TestInspectorCLI drives the built skills-mcp with the MCP Inspector CLI
// (@modelcontextprotocol/inspector, pinned in node/package.json) over stdio
// and over Streamable HTTP with a bearer token: tools, prompts, resources,
// and its SEP-2640 verifier, which reads every file of every skill and checks
// it against the digest and size skills/list announced.
func TestInspectorCLI(t *testing.T) {
	skipShort(t)
	node := node22(t)
	inspector := npmBin(t, "mcp-inspector")
	mcpBin := binary(t, "skills-mcp")
	corpus := filepath.Join(repoRoot(t), "..", "shared", "bench", "corpus")
	examples := filepath.Join(repoRoot(t), "examples", "skills")
	for _, c := range []struct{ name, dir string }{{"examples", examples}, {"bench-corpus", corpus}} {
		t.Run(c.name, func(t *testing.T) {
			// The catalogs and transports run side by side: each case is
			// a server of its own and Node processes that mostly wait.
			t.Parallel()
			if _, err := os.Stat(c.dir); err != nil {
				t.Skipf("%s is not present: %v", c.dir, err)
			}
			folders := skillFolders(t, c.dir)
			targets := map[string][]string{
				"stdio": {mcpBin, "--skills-dir", c.dir},
			}
			_, addr := startOnFreePortEnv(t, []string{"MCP_E2E_TOKEN=" + e2eToken}, mcpBin,
				func(addr string) []string {
					return []string{"--http", addr, "--auth-token-env", "MCP_E2E_TOKEN", "--skills-dir", c.dir}
				}, httpReady("/readyz"))
			targets["http"] = []string{"http://" + addr + "/mcp", "--transport", "http", "--header", "Authorization: Bearer " + e2eToken}
			for transport, target := range targets {
				t.Run(transport, func(t *testing.T) {
					t.Parallel()
					cli := func(args ...string) (string, string, int) {
						all := append([]string{inspector, "--cli", "--format", "json", "-q"}, target...)
						return runTool(t, node, append(all, args...)...)
					}
					// The verifier: every file read back and checked.
					out, errOut, code := cli("--method", "skills/list", "--verify", "--skill-catalog-max-skills", "5000")
					checkVerify(t, out, errOut, code, folders)
					if transport == "http" {
						// Protocol 2026-07-28: server/discover, then stateless requests.
						out, errOut, code := cli("--protocol-era", "modern", "--method", "skills/list", "--verify", "--skill-catalog-max-skills", "5000")
						checkVerify(t, out, errOut, code, folders)
					}

					out, errOut, code = cli("--method", "tools/list")
					if code != 0 || !strings.Contains(out, `"load_skill"`) || !strings.Contains(out, `"search_skills"`) {
						t.Errorf("tools/list: exit %d, stdout %s, stderr %s", code, tail(out, 500), tail(errOut, 1000))
					}
					name := filepath.Base(folders[0])
					out, errOut, code = cli("--method", "tools/call", "--tool-name", "load_skill", "--tool-arg", "name="+folders[0])
					if code != 0 || !strings.Contains(out, `"skill_path"`) || strings.Contains(out, `"isError":true`) {
						t.Errorf("tools/call load_skill %s: exit %d, stdout %s, stderr %s", folders[0], code, tail(out, 500), tail(errOut, 1000))
					}
					out, errOut, code = cli("--method", "prompts/list")
					if code != 0 || !strings.Contains(out, `"prompts"`) {
						t.Errorf("prompts/list: exit %d, stdout %s, stderr %s", code, tail(out, 500), tail(errOut, 1000))
					}
					uri := "skill://" + folders[0] + "/SKILL.md"
					out, errOut, code = cli("--method", "resources/read", "--uri", uri)
					want, _ := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(folders[0]), "SKILL.md"))
					var read struct {
						Result struct {
							Contents []struct {
								Text string `json:"text"`
							} `json:"contents"`
						} `json:"result"`
					}
					if code != 0 || json.Unmarshal([]byte(out), &read) != nil || len(read.Result.Contents) != 1 || read.Result.Contents[0].Text != string(want) {
						t.Errorf("resources/read %s: exit %d, stdout %s, stderr %s", uri, code, tail(out, 500), tail(errOut, 1000))
					}
					out, errOut, code = cli("--method", "skills/get", "--uri", uri)
					if code != 0 || !strings.Contains(out, uri) {
						t.Errorf("skills/get %s (%s): exit %d, stdout %s, stderr %s", uri, name, code, tail(out, 500), tail(errOut, 1000))
					}
				})
			}
			// Without the token, the HTTP server refuses the Inspector.
			_, _, code := runTool(t, node, inspector, "--cli", "--format", "json", "-q", "http://"+addr+"/mcp", "--transport", "http", "--method", "tools/list")
			if code == 0 {
				t.Error("tools/list over HTTP without the bearer token: exit 0, want a refusal")
			}
		})
	}
}

// checkVerify checks the Inspector's --verify reports: one per SKILL.md
// folder, every file verified (digest and size equal to what it read), and
// failures only for skills whose own frontmatter breaks the naming rules.
func checkVerify(t *testing.T, out, errOut string, code int, folders []string) {
	t.Helper()
	var reports []verifyReport
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !bytes.HasPrefix(line, []byte(`{"uri"`)) {
			continue
		}
		var r verifyReport
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("--verify: a report line is not JSON: %v: %s", err, tail(string(line), 300))
		}
		reports = append(reports, r)
	}
	if len(reports) != len(folders) {
		t.Fatalf("--verify: %d skill reports, want %d (exit %d)\nstderr: %s", len(reports), len(folders), code, tail(errOut, 2000))
	}
	files, failed := 0, 0
	for _, r := range reports {
		for _, f := range r.Files {
			files++
			if f.Status != "verified" {
				t.Errorf("--verify %s: %s %s (%s)", r.URI, f.URI, f.Status, f.Reason)
			}
		}
		if r.OK {
			continue
		}
		failed++
		for _, c := range r.Conformance {
			if !nonconformingSource[c.Code] {
				t.Errorf("--verify %s: conformance problem %s, want none beyond the skill's own naming", r.URI, c.Code)
			}
		}
	}
	if want := map[bool]int{true: 0, false: 7}[failed == 0]; code != want {
		t.Errorf("--verify: exit %d, want %d (%d of %d skills nonconforming)", code, want, failed, len(reports))
	}
	t.Logf("--verify: %d skills, %d files verified, %d skills flagged for their own frontmatter", len(reports), files, failed)
}

// TestConformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in node/package.json) against
// skills-mcp's Streamable HTTP endpoint: its whole active server suite, with
// node/conformance-expected-failures.yaml naming the scenarios that need the
// suite's own fixtures. Any other failure, and any listed scenario that
// passes, fails the test.
func TestConformance(t *testing.T) {
	skipShort(t)
	node := node22(t)
	suite := npmBin(t, "conformance")
	_, addr := startOnFreePort(t, binary(t, "skills-mcp"),
		func(addr string) []string {
			return []string{"--http", addr, "--skills-dir", filepath.Join(repoRoot(t), "examples", "skills")}
		}, httpReady("/readyz"))
	expected := filepath.Join(repoRoot(t), "tests", "e2e", "node", "conformance-expected-failures.yaml")
	start := time.Now()
	out, errOut, code := runTool(t, node, suite, "server", "--url", "http://"+addr+"/mcp", "--expected-failures", expected)
	t.Logf("conformance suite: exit %d in %v", code, time.Since(start).Round(time.Millisecond))
	if code != 0 {
		t.Errorf("conformance suite: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, tail(out, 6000), tail(errOut, 2000))
	}
	passed := regexp.MustCompile(`(?m)^✓ ([a-z0-9-]+): `)
	got := map[string]bool{}
	for _, m := range passed.FindAllStringSubmatch(out, -1) {
		got[m[1]] = true
	}
	for _, s := range []string{"server-initialize", "ping", "logging-set-level", "completion-complete", "tools-list",
		"resources-list", "resources-subscribe", "resources-unsubscribe", "prompts-list", "server-sse-multiple-streams",
		"dns-rebinding-protection"} {
		if !got[s] {
			t.Errorf("conformance scenario %s: not passed", s)
		}
	}
}

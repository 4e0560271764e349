package contract

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Catalogs of the file and script scenarios.
const (
	// sandboxCat is written for each run (it holds symbolic links leading out
	// of it): scripts that attack the sandbox, and a skill folder with links
	// to files inside and outside its source. Its config.yaml sets a 2 s time
	// limit and 4 KiB output caps.
	sandboxCat = "sandbox"
	// noScripts is a catalog whose config.yaml switches scripts off.
	noScripts = "noscripts"
)

// secretValue is held by the server while the scenarios run, in its
// process environment and in the environment it reads (Options.Getenv); no
// script may see it.
const secretValue = "contract-secret-0xC0FFEE"

// scriptEnv is the environment the service of a catalog reads, besides what
// the catalog's own settings add. It holds secrets, and for the fixture
// catalogs a PATH where no runner is installed: their only server script
// (seed 000's validate-auth-config.ts, run by npx tsx) must answer NO_RUNNER
// on every machine, rather than download tsx. The sandbox catalogs run their
// .sh scripts with the default PATH.
func scriptEnv(catalog, root string) func(string) string {
	return func(name string) string {
		switch name {
		case "SKILLSD_CONTRACT_SECRET", "GITHUB_TOKEN", "OPENAI_API_KEY":
			return secretValue
		case "PATH":
			if catalog == sandboxCat || catalog == noScripts {
				return ""
			}
			return filepath.Join(root, "no-runners-here")
		}
		return ""
	}
}

// writeScriptCatalog writes the sandbox or noscripts catalog into a new
// temporary folder and returns its skills root.
func writeScriptCatalog(t *testing.T, catalog string) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	files := sandboxFiles
	if catalog == noScripts {
		files = noScriptsFiles
	}
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if catalog == sandboxCat {
		links := map[string]string{
			"skills/files/leak.txt":  "../../outside/secret.txt",
			"skills/files/outdir":    "../../outside",
			"skills/files/abs-leak":  filepath.Join(base, "outside", "secret.txt"),
			"skills/files/shared.md": "../common/shared.md",
		}
		for link, target := range links {
			if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
				t.Skipf("symbolic links: %v", err)
			}
		}
		// The server process itself holds a secret too.
		t.Setenv("SKILLSD_CONTRACT_SECRET", secretValue)
	}
	return root
}

var noScriptsFiles = map[string]string{
	"skills/config.yaml":          "scripts:\n  enabled: false\n",
	"skills/ops.md":               "---\nkeywords: [ops]\ndescription: Operations\nscripts:\n  - file: scripts/hello.sh\n    execution: server\n---\n# Ops\n",
	"skills/ops/scripts/hello.sh": "echo hello\n",
}

var sandboxFiles = map[string]string{
	"skills/config.yaml": "scripts:\n  timeout_seconds: 2\n  max_output_bytes: 4096\n",
	"skills/attack.md": `---
keywords: [attack, sandbox]
description: Scripts that attack the sandbox
scripts:
  - file: scripts/hello.sh
    description: Greets someone
    execution: server
    args:
      - name: who
        description: Who to greet
      - name: greeting
        required: false
        default: Hello
  - file: scripts/env.sh
    description: Prints the names of its environment variables, and any secret it can see
    execution: server
  - file: scripts/fork-and-hang.sh
    description: Forks grandchildren (one ignores SIGTERM) and outlives its time limit
    execution: server
  - file: scripts/flood.sh
    description: Writes 100,000 bytes to stdout
    execution: server
  - file: scripts/fail.sh
    execution: server
  - file: scripts/needs-args.sh
    execution: server
    args:
      - name: project-dir
        description: Where to work
      - name: name
        description: What to call it
      - name: mode
        required: false
  - file: scripts/local.sh
    execution: claude
    args:
      - name: target
  - file: scripts/tool.rb
    execution: server
---
# Attack

Scripts that try to get out of the sandbox.
`,
	"skills/attack/scripts/hello.sh": "echo \"$SKILL_ARG_GREETING, $SKILL_ARG_WHO!\"\n",
	"skills/attack/scripts/env.sh": "compgen -e\n" +
		"echo \"secret: ${SKILLSD_CONTRACT_SECRET:-absent} ${GITHUB_TOKEN:-absent} ${OPENAI_API_KEY:-absent}\"\n",
	"skills/attack/scripts/fork-and-hang.sh": "sleep 300 &\n" +
		"( trap '' TERM; sleep 300 ) &\n" +
		"bash -c 'trap \"\" TERM; sleep 300' &\n" +
		"echo started\necho working >&2\nsleep 300\necho never\n",
	"skills/attack/scripts/flood.sh":      "head -c 100000 /dev/zero | tr '\\0' 'x'\necho 'flood done' >&2\n",
	"skills/attack/scripts/fail.sh":       "echo \"Error: Missing required field 'clientId'\" >&2\nexit 1\n",
	"skills/attack/scripts/needs-args.sh": "echo ok\n",
	"skills/attack/scripts/local.sh":      "echo local\n",
	"skills/attack/scripts/tool.rb":       "puts 'ruby'\n",
	"skills/files/SKILL.md":               "---\nname: files\ndescription: A skill folder with links leading in and out of its source.\n---\n# Files\n",
	"skills/files/notes.md":               "# Notes\n",
	"skills/files/.env":                   "TOKEN=" + secretValue + "\n",
	"skills/common/shared.md":             "Shared inside the source.\n",
	"outside/secret.txt":                  secretValue + "\n",
}

// ReadQuery reads (a page of) one file.
type ReadQuery struct {
	Skill, File      string
	Offset, MaxBytes int64
}

// RunQuery runs one script.
type RunQuery struct {
	Skill, File string
	Args        map[string]string
	Cwd         string
}

// FileRead is (a page of) a file as ReadSkillFile, GET /v1/files/… and
// read_skill_file give it. Exactly one of Text and DataBase64 is set. MCP
// carries neither the digest nor, for text, the MIME type.
type FileRead struct {
	SkillPath    string  `json:"skill_path"`
	File         string  `json:"file"`
	Text         *string `json:"text,omitempty"`
	DataBase64   *string `json:"data_base64,omitempty"`
	SizeBytes    int64   `json:"size_bytes"`
	Type         string  `json:"type"`
	MimeType     string  `json:"mime_type"`
	ResolvedFrom string  `json:"resolved_from"`
	Truncated    bool    `json:"truncated"`
	NextOffset   int64   `json:"next_offset"`
	Digest       string  `json:"digest"`
}

// ScriptRun is the outcome of a script as RunScript, POST /v1/scripts:run and
// run_script give it; the duration, which differs between runs, is checked
// by each adapter, not compared. MCP carries seed 000's six fields only.
type ScriptRun struct {
	Success         bool   `json:"success"`
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	Script          string `json:"script"`
	TimedOut        bool   `json:"timed_out"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
}

func opRead(q ReadQuery) op {
	return op{fmt.Sprintf("read %q %q", q.Skill, q.File), func(t *testing.T, s surface) (Outcome, bool) { return s.read(t, q), true }}
}

func opRun(q RunQuery) op {
	return op{fmt.Sprintf("run %q %q", q.Skill, q.File), func(t *testing.T, s surface) (Outcome, bool) { return s.runScript(t, q), true }}
}

// maskFiles zeroes, in an outcome of the reference surface, what MCP's
// read_skill_file and run_script do not carry.
func maskFiles(o *Outcome) {
	if f := o.File; f != nil {
		f.Digest = ""
		if f.Text != nil {
			f.MimeType = ""
		}
	}
	if r := o.Run; r != nil {
		r.TimedOut, r.StdoutTruncated, r.StderrTruncated = false, false, false
	}
}

// fileScenarios are the scenarios of files and scripts; run runs them with
// the others.
var fileScenarios = []scenario{
	// Reads on the seed-000 fixture (and its SKILL.md folders).
	{
		name: "read-own-asset", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "assets/AuthProvider.tsx.template"}),
		check: func(t *testing.T, root string, o Outcome) {
			f := wantFile(t, o, root, "ui/react/auth/assets/AuthProvider.tsx.template")
			checkEqual(t, "type", f.Type, "template")
			checkEqual(t, "resolved_from", f.ResolvedFrom, "")
		},
	},
	{
		name: "read-inherited-asset", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "assets/component-base.tsx.template"}),
		check: func(t *testing.T, root string, o Outcome) {
			f := wantFile(t, o, root, "ui/react/_index/assets/component-base.tsx.template")
			checkEqual(t, "resolved_from", f.ResolvedFrom, "ui/react/_index")
			checkEqual(t, "type", f.Type, "template")
		},
	},
	{
		name: "read-inherited-script", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/testing", File: "scripts/lint-component.sh"}),
		check: func(t *testing.T, root string, o Outcome) {
			f := wantFile(t, o, root, "ui/react/_index/scripts/lint-component.sh")
			checkEqual(t, "resolved_from", f.ResolvedFrom, "ui/react/_index")
			checkEqual(t, "type", f.Type, "script")
		},
	},
	{
		name: "read-folder-file", catalog: fixture, op: opRead(ReadQuery{Skill: "writing/release-notes", File: "references/style.md"}),
		check: func(t *testing.T, root string, o Outcome) {
			f := wantFile(t, o, root, "writing/release-notes/references/style.md")
			checkEqual(t, "type", f.Type, "other")
		},
	},
	{
		name: "read-binary", catalog: fixture, op: opRead(ReadQuery{Skill: "pdf-tools", File: "assets/logo.png"}),
		check: func(t *testing.T, root string, o Outcome) {
			f := wantFile(t, o, root, "pdf-tools/assets/logo.png")
			checkEqual(t, "mime_type", f.MimeType, "image/png")
		},
	},
	{
		name: "read-paged", catalog: fixture, op: opRead(ReadQuery{Skill: "writing/release-notes", File: "SKILL.md", Offset: 10, MaxBytes: 40}),
		check: func(t *testing.T, root string, o Outcome) {
			if o.File == nil || o.File.Text == nil {
				t.Fatalf("got %+v, want a text page", o)
			}
			data, err := os.ReadFile(filepath.Join(root, "writing", "release-notes", "SKILL.md"))
			if err != nil {
				t.Fatal(err)
			}
			checkEqual(t, "page", *o.File.Text, string(data[10:50]))
			checkEqual(t, "truncated", o.File.Truncated, true)
			checkEqual(t, "next_offset", o.File.NextOffset, int64(50))
			checkEqual(t, "size_bytes", o.File.SizeBytes, int64(len(data)))
		},
	},
	{name: "read-not-found", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "assets/nope.tsx"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "assets/nope.tsx") }},
	{name: "read-inherit-false", catalog: fixture, op: opRead(ReadQuery{Skill: "no-inherit", File: "assets/component-base.tsx.template"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailure(t, o) }},
	{name: "read-unknown-skill", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/autth", File: "assets/x"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "ui/react/auth") }},
	{name: "read-traversal", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "../../../_root.md"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "path traversal", "..") }},
	{name: "read-encoded-traversal", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "%2e%2e/%2E%2E/_root.md"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "encoded", "path traversal") }},
	{name: "read-double-encoded-traversal", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "..%252f..%252f_root.md"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "encoded", "path traversal") }},
	{name: "read-absolute", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "/etc/passwd"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "path traversal", "absolute") }},
	{name: "read-backslash", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: `..\..\_root.md`}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "backslash") }},
	{name: "read-nul", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: "assets/AuthProvider.tsx.template\x00.png"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "NUL") }},
	{name: "read-empty-path", catalog: fixture, op: opRead(ReadQuery{Skill: "ui/react/auth", File: ""}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "required") }},

	// Scripts of the seed-000 fixture.
	{name: "run-seed000-missing-args", catalog: fixture, op: opRun(RunQuery{Skill: "ui/react/auth", File: "scripts/validate-auth-config.ts"}),
		check: func(t *testing.T, _ string, o Outcome) {
			wantFailureNaming(t, o, "missing required argument", "config_path (Path to auth config file)", "It is required")
		}},
	{name: "run-seed000-no-runner", catalog: fixture, op: opRun(RunQuery{Skill: "ui/react/auth", File: "scripts/validate-auth-config.ts", Args: map[string]string{"config_path": "src/auth/config.ts"}}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "npx", "not installed") }},
	{name: "run-seed000-claude-script", catalog: fixture, op: opRun(RunQuery{Skill: "ui/react/auth", File: "scripts/scaffold-auth.sh", Args: map[string]string{"project_dir": "."}}),
		check: func(t *testing.T, _ string, o Outcome) {
			wantFailureNaming(t, o, "execution: claude", "read the script", "bash")
		}},
	{name: "run-not-declared", catalog: fixture, op: opRun(RunQuery{Skill: "ui/react/auth", File: "scripts/rm-rf.sh"}),
		check: func(t *testing.T, _ string, o Outcome) {
			wantFailureNaming(t, o, "scripts/rm-rf.sh", "validate-auth-config.ts")
		}},
	{name: "run-traversal", catalog: fixture, op: opRun(RunQuery{Skill: "ui/react/auth", File: "../../../_root.md"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "path traversal", "..") }},

	// Scripts that attack the sandbox.
	{
		name: "run-script", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/hello.sh", Args: map[string]string{"who": "world"}}),
		check: func(t *testing.T, _ string, o Outcome) {
			r := wantRun(t, o)
			checkEqual(t, "stdout", r.Stdout, "Hello, world!\n")
			checkEqual(t, "success", r.Success, true)
		},
	},
	{
		name: "run-script-args-not-interpreted", catalog: sandboxCat,
		op: opRun(RunQuery{Skill: "attack", File: "scripts/hello.sh", Args: map[string]string{"who": "$(touch pwned); `touch pwned2` && rm -rf ~", "greeting": "'; exit 7; '"}}),
		check: func(t *testing.T, root string, o Outcome) {
			r := wantRun(t, o)
			checkEqual(t, "stdout", r.Stdout, "'; exit 7; ', $(touch pwned); `touch pwned2` && rm -rf ~!\n")
			for _, f := range []string{"pwned", "pwned2"} {
				if _, err := os.Stat(filepath.Join(root, "attack", f)); err == nil {
					t.Errorf("an argument was run by a shell: %s exists", f)
				}
			}
		},
	},
	{
		name: "run-script-environment", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/env.sh"}),
		check: func(t *testing.T, _ string, o Outcome) {
			r := wantRun(t, o)
			if strings.Contains(r.Stdout, secretValue) || !strings.Contains(r.Stdout, "secret: absent absent absent") {
				t.Errorf("a script saw the server's secrets: %q", r.Stdout)
			}
			allowed := []string{"HOME", "LANG", "PATH", "PWD", "SHLVL", "TMPDIR", "OLDPWD", "secret: absent absent absent"}
			for line := range strings.SplitSeq(strings.TrimSpace(r.Stdout), "\n") {
				if !slices.Contains(allowed, line) && !strings.HasPrefix(line, "SKILL_ARG_") {
					t.Errorf("a script sees %q; want PATH, HOME, LANG, TMPDIR and SKILL_ARG_* only (and what bash adds)", line)
				}
			}
		},
	},
	{
		name: "run-script-timeout-kills-tree", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/fork-and-hang.sh"}),
		check: func(t *testing.T, root string, o Outcome) {
			r := wantRun(t, o)
			checkEqual(t, "exit_code", r.ExitCode, 137)
			checkEqual(t, "success", r.Success, false)
			checkEqual(t, "stdout", r.Stdout, "started\n")
			if !strings.HasSuffix(r.Stderr, "\n[skillsd] Script killed: timeout exceeded.") {
				t.Errorf("stderr: got %q, want the timeout line last", r.Stderr)
			}
			wantNoneLeft(t, filepath.Join(root, "attack"))
		},
	},
	{
		name: "run-script-output-flood", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/flood.sh"}),
		check: func(t *testing.T, _ string, o Outcome) {
			r := wantRun(t, o)
			want := strings.Repeat("x", 4096) + "\n[skillsd] Output truncated: 95904 more bytes not shown (limit 4096 bytes, scripts.max_output_bytes)."
			checkEqual(t, "stdout", r.Stdout, want)
			checkEqual(t, "stderr", r.Stderr, "flood done\n")
		},
	},
	{
		name: "run-script-failure", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/fail.sh"}),
		check: func(t *testing.T, _ string, o Outcome) {
			r := wantRun(t, o)
			checkEqual(t, "success", r.Success, false)
			checkEqual(t, "exit_code", r.ExitCode, 1)
		},
	},
	{name: "run-script-missing-args", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/needs-args.sh", Args: map[string]string{"mode": "x"}}),
		check: func(t *testing.T, _ string, o Outcome) {
			wantFailureNaming(t, o, "project-dir (Where to work)", "name (What to call it)")
		}},
	{name: "run-script-claude-refused", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/local.sh", Args: map[string]string{"target": "x"}}),
		check: func(t *testing.T, _ string, o Outcome) {
			wantFailureNaming(t, o, "execution: claude", "read the script", "bash", "SKILL_ARG_TARGET")
		}},
	{name: "run-script-extension-not-allowed", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/tool.rb"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, ".rb") }},
	{name: "run-script-cwd-escape", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/hello.sh", Args: map[string]string{"who": "x"}, Cwd: "../../outside"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "..") }},
	{name: "run-script-cwd-not-allowed", catalog: sandboxCat, op: opRun(RunQuery{Skill: "attack", File: "scripts/hello.sh", Args: map[string]string{"who": "x"}, Cwd: "/"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "scripts.cwd_allow") }},

	// Reads through symbolic links.
	{name: "read-symlink-file-out", catalog: sandboxCat, op: opRead(ReadQuery{Skill: "files", File: "leak.txt"}),
		check: func(t *testing.T, _ string, o Outcome) { wantRefusedLeak(t, o) }},
	{name: "read-symlink-absolute-out", catalog: sandboxCat, op: opRead(ReadQuery{Skill: "files", File: "abs-leak"}),
		check: func(t *testing.T, _ string, o Outcome) { wantRefusedLeak(t, o) }},
	{name: "read-symlink-folder-out", catalog: sandboxCat, op: opRead(ReadQuery{Skill: "files", File: "outdir/secret.txt"}),
		check: func(t *testing.T, _ string, o Outcome) { wantRefusedLeak(t, o) }},
	{name: "read-symlink-inside-source", catalog: sandboxCat, op: opRead(ReadQuery{Skill: "files", File: "shared.md"}),
		check: func(t *testing.T, root string, o Outcome) { wantFile(t, o, root, "common/shared.md") }},
	{name: "read-hidden-file", catalog: sandboxCat, op: opRead(ReadQuery{Skill: "files", File: ".env"}),
		check: func(t *testing.T, _ string, o Outcome) { wantRefusedLeak(t, o) }},

	// The global switch comes first in the cascade, before the skill lookup.
	{name: "run-scripts-disabled", catalog: noScripts, op: opRun(RunQuery{Skill: "ops", File: "scripts/hello.sh"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "disabled") }},
	{name: "run-scripts-disabled-unknown-skill", catalog: noScripts, op: opRun(RunQuery{Skill: "no/such/skill", File: "scripts/hello.sh"}),
		check: func(t *testing.T, _ string, o Outcome) { wantFailureNaming(t, o, "disabled") }},
}

// wantFile checks a read of a whole file against the file on disk.
func wantFile(t *testing.T, o Outcome, root, rel string) *FileRead {
	t.Helper()
	f := o.File
	if f == nil {
		t.Fatalf("got %+v, want a file", o.Error)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case f.Text != nil:
		checkEqual(t, "text", *f.Text, string(data))
	case f.DataBase64 != nil:
		checkEqual(t, "data", *f.DataBase64, base64.StdEncoding.EncodeToString(data))
	default:
		t.Errorf("got neither text nor data")
	}
	checkEqual(t, "size_bytes", f.SizeBytes, int64(len(data)))
	checkEqual(t, "truncated", f.Truncated, false)
	return f
}

func wantRun(t *testing.T, o Outcome) *ScriptRun {
	t.Helper()
	if o.Run == nil {
		t.Fatalf("got %+v, want a script run", o.Error)
	}
	return o.Run
}

// wantFailureNaming wants an error whose message holds each of words.
func wantFailureNaming(t *testing.T, o Outcome, words ...string) {
	t.Helper()
	f := wantFailure(t, o)
	for _, w := range words {
		if !strings.Contains(f.Message, w) {
			t.Errorf("error message %q does not say %q", f.Message, w)
		}
	}
}

// wantRefusedLeak wants a refusal that does not show the secret.
func wantRefusedLeak(t *testing.T, o Outcome) {
	t.Helper()
	f := wantFailure(t, o)
	if strings.Contains(f.Message, secretValue) {
		t.Errorf("the refusal shows the secret: %q", f.Message)
	}
}

// wantNoneLeft waits until no process works in dir any more: the scripts
// of a run work in their skill's folder, and none may survive the run. (A
// script cannot leave a note of its pids: it may write only in its own
// TMPDIR, which goes with the run.)
func wantNoneLeft(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left, ok := processesIn(t, dir)
		if !ok {
			t.Skipf("cannot list the processes working in a folder on %s", runtime.GOOS)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				killProcess(p)
			}
			t.Fatalf("processes %v outlived the script's run", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scriptCatalogsSupported says whether the sandbox catalogs can run here.
func scriptCatalogsSupported() bool { return runtime.GOOS != "windows" }

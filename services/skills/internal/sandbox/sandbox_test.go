//go:build unix

package sandbox

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// tree is a seed-000 catalog whose skills declare every kind of script.
var tree = map[string]string{
	"_root.md": `---
keywords: [root]
description: Root rules
scripts:
  - file: scripts/root.sh
    execution: server
---
# Root
`,
	"_root/scripts/root.sh": "echo \"root script in $(pwd)\"\n",
	"tools.md": `---
keywords: [tools]
description: Tools
scripts:
  - file: scripts/env.sh
    execution: server
  - file: scripts/args.sh
    execution: server
    args:
      - name: name
        description: Service name
      - name: flag
        description: A flag
        required: true
      - name: go-version
        required: false
        default: "1.24"
      - name: module
        required: false
  - file: scripts/claude.sh
    execution: claude
    args:
      - name: project_dir
  - file: scripts/tool.rb
    execution: server
  - file: scripts/gone.sh
    execution: server
  - file: scripts/check.ts
    execution: server
  - file: scripts/pwd.sh
    execution: server
  - file: scripts/slow.sh
    execution: server
  - file: scripts/evil.sh
    execution: server
  - file: scripts/fail.sh
    execution: server
---
# Tools
`,
	"tools/scripts/env.sh":    "env\n",
	"tools/scripts/args.sh":   "printf '%s|' \"$SKILL_ARG_NAME\" \"$SKILL_ARG_FLAG\" \"$SKILL_ARG_GO_VERSION\" \"${SKILL_ARG_MODULE-unset}\"\n",
	"tools/scripts/claude.sh": "echo should not run\n",
	"tools/scripts/tool.rb":   "puts 'ruby'\n",
	"tools/scripts/check.ts":  "console.log('ts')\n",
	"tools/scripts/pwd.sh":    "pwd\n",
	"tools/scripts/slow.sh":   "echo started; sleep 300\n",
	"tools/scripts/fail.sh":   "echo 'Error: Missing required field clientId' >&2; exit 1\n",
	"tools/sub/keep.txt":      "",
	"outside/evil.sh":         "echo outside\n",
	"outside/dir/x.txt":       "",
}

// setup writes tree into a source folder (with an outside folder beside
// it, reached through symbolic links) and builds its snapshot.
func setup(t testing.TB, trusted bool) (*catalog.Snapshot, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	for name, content := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasPrefix(name, "outside/") {
			p = filepath.Join(base, filepath.FromSlash(name))
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for target, link := range map[string]string{
		"../../../outside/evil.sh": "tools/scripts/evil.sh",
		"../../outside/dir":        "tools/outdir",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "skills", Dir: root, Kind: "local", Trusted: trusted}}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap, root
}

// testRunnerOptions are the runner's options of the tests: a short kill
// grace and a HOME that does not exist.
func testRunnerOptions(t testing.TB) RunnerOptions {
	return RunnerOptions{KillGrace: 300 * time.Millisecond, Home: "/home/nobody", Logger: testLogger(t)}
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func testOptions(t testing.TB) Options {
	return Options{
		Enabled: true, Timeout: 10 * time.Second, Runner: NewRunner(testRunnerOptions(t)), Logger: testLogger(t),
	}
}

// withRunner returns o with a runner of its own, whose options change sets.
func withRunner(t testing.TB, o Options, change func(*RunnerOptions)) Options {
	ro := testRunnerOptions(t)
	change(&ro)
	o.Runner = NewRunner(ro)
	return o
}

func mustSkill(t testing.TB, snap *catalog.Snapshot, ref string) *catalog.Skill {
	t.Helper()
	sk, err := snap.Lookup(ref)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func wantFailure(t *testing.T, err error, kind failure.Kind, reason string, inMessage ...string) *failure.Error {
	t.Helper()
	var fe *failure.Error
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a %v %s failure", err, kind, reason)
	}
	if fe.Kind != kind || fe.Reason != reason {
		t.Errorf("got %v %q (%s), want %v %q", fe.Kind, fe.Reason, fe.Message, kind, reason)
	}
	for _, s := range inMessage {
		if !strings.Contains(fe.Message, s) {
			t.Errorf("message %q does not mention %q", fe.Message, s)
		}
	}
	return fe
}

// TestCascade checks every error of seed 000 §8.4's diagram, in its order.
func TestCascade(t *testing.T) {
	snap, _ := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	tests := []struct {
		name    string
		opts    func(*Options)
		req     Request
		kind    failure.Kind
		reason  string
		message []string
		meta    map[string]string
	}{
		{name: "disabled", opts: func(o *Options) { o.Enabled = false }, req: Request{File: "scripts/env.sh"},
			kind: failure.FailedPrecondition, reason: ReasonScriptsDisabled, message: []string{"disabled", "scripts.enabled"}},
		{name: "traversal", req: Request{File: "../outside/evil.sh"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH", message: []string{".."}},
		{name: "encoded traversal", req: Request{File: "scripts/%2e%2e/%2e%2e/x.sh"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH", message: []string{"encoded"}},
		{name: "absolute", req: Request{File: "/bin/sh"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH", message: []string{"absolute"}},
		{name: "not declared", req: Request{File: "scripts/other.sh"},
			kind: failure.FailedPrecondition, reason: ReasonScriptNotDeclared, message: []string{"scripts/other.sh", "not a script declared", "scripts/env.sh"}},
		{name: "claude", req: Request{File: "scripts/claude.sh"},
			kind: failure.FailedPrecondition, reason: ReasonScriptNotServer, message: []string{"execution: claude", "read the script", "bash", "SKILL_ARG_PROJECT_DIR"}},
		{name: "missing args all named", req: Request{File: "scripts/args.sh"},
			kind: failure.InvalidArgument, reason: ReasonMissingArguments, message: []string{"missing required arguments for", "name (Service name); flag (A flag)", "They are required"},
			meta: map[string]string{"missing": "name,flag"}},
		{name: "missing one", req: Request{File: "scripts/args.sh", Args: map[string]string{"flag": "1"}},
			kind: failure.InvalidArgument, reason: ReasonMissingArguments, message: []string{"missing required argument for", "name", "It is required"}, meta: map[string]string{"missing": "name"}},
		{name: "unknown arg", req: Request{File: "scripts/args.sh", Args: map[string]string{"name": "a", "flag": "b", "nmae": "c"}},
			kind: failure.InvalidArgument, reason: "", message: []string{`"nmae"`, "name, flag, go-version, module"}},
		{name: "nul in arg", req: Request{File: "scripts/args.sh", Args: map[string]string{"name": "a\x00b", "flag": "b"}},
			kind: failure.InvalidArgument, reason: "", message: []string{"NUL"}},
		{name: "extension", req: Request{File: "scripts/tool.rb"},
			kind: failure.FailedPrecondition, reason: ReasonExtensionNotAllowed, message: []string{".rb", ".py, .sh, .ts"}},
		{name: "missing file", req: Request{File: "scripts/gone.sh"},
			kind: failure.NotFound, reason: "FILE_NOT_FOUND", message: []string{"scripts/gone.sh", "missing"}},
		{name: "symlink out of the source", req: Request{File: "scripts/evil.sh"},
			kind: failure.PermissionDenied, reason: "INVALID_PATH", message: []string{"outside"}},
		{name: "no runner configured", opts: func(o *Options) { o.Runners = map[string]string{".sh": "bash"} }, req: Request{File: "scripts/check.ts"},
			kind: failure.FailedPrecondition, reason: ReasonNoRunner, message: []string{"no runner is configured for .ts"}},
		{name: "runner not installed", opts: func(o *Options) { *o = withRunner(t, *o, func(r *RunnerOptions) { r.Path = t.TempDir() }) }, req: Request{File: "scripts/check.ts"},
			kind: failure.FailedPrecondition, reason: ReasonNoRunner, message: []string{`"npx tsx"`, "not installed", "npx"}},
		{name: "relative runner path", opts: func(o *Options) { o.Runners = map[string]string{".sh": "./bash"} }, req: Request{File: "scripts/env.sh"},
			kind: failure.FailedPrecondition, reason: ReasonNoRunner},
		{name: "cwd traversal", req: Request{File: "scripts/pwd.sh", Cwd: "../outside"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH", message: []string{".."}},
		{name: "cwd symlink out", req: Request{File: "scripts/pwd.sh", Cwd: "outdir"},
			kind: failure.PermissionDenied, reason: "INVALID_PATH", message: []string{"outside"}},
		{name: "cwd absolute not allowed", req: Request{File: "scripts/pwd.sh", Cwd: "/tmp"},
			kind: failure.PermissionDenied, reason: "INVALID_PATH", message: []string{"scripts.cwd_allow"}},
		{name: "cwd missing", req: Request{File: "scripts/pwd.sh", Cwd: "nope"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH", message: []string{"nope"}},
		{name: "cwd is a file", req: Request{File: "scripts/pwd.sh", Cwd: "sub/keep.txt"},
			kind: failure.InvalidArgument, reason: "INVALID_PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions(t)
			if tc.opts != nil {
				tc.opts(&o)
			}
			if tc.req.Args == nil && tc.reason != ReasonMissingArguments {
				tc.req.Args = map[string]string{}
			}
			res, err := New(o).Run(t.Context(), snap, sk, tc.req)
			if err == nil {
				t.Fatalf("got %+v, want an error", res)
			}
			fe := wantFailure(t, err, tc.kind, tc.reason, tc.message...)
			for k, v := range tc.meta {
				if fe.Metadata[k] != v {
					t.Errorf("metadata %s: got %q, want %q", k, fe.Metadata[k], v)
				}
			}
		})
	}
}

func TestUntrustedSource(t *testing.T) {
	snap, _ := setup(t, false)
	_, err := New(testOptions(t)).Run(t.Context(), snap, mustSkill(t, snap, "tools"), Request{File: "scripts/env.sh"})
	wantFailure(t, err, failure.FailedPrecondition, ReasonScriptsDisabled, "not trusted", "trusted: true")
}

// TestEnvironment: a script that prints its environment while the server
// holds secrets sees only PATH, HOME, LANG, TMPDIR and its SKILL_ARG_*.
func TestEnvironment(t *testing.T) {
	t.Setenv("SKILLSD_TEST_SECRET", "hunter2-secret-token")
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	snap, _ := setup(t, true)
	tmpParent := t.TempDir()
	o := withRunner(t, testOptions(t), func(r *RunnerOptions) { r.TempDir = tmpParent })
	res, err := New(o).Run(t.Context(), snap, mustSkill(t, snap, "tools"), Request{File: "scripts/env.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success || strings.Contains(res.Stdout, "secret") || strings.Contains(res.Stdout, "TOKEN") {
		t.Fatalf("environment leaks: %+v", res)
	}
	var names []string
	tmp := ""
	for line := range strings.SplitSeq(strings.TrimSpace(res.Stdout), "\n") {
		name, value, _ := strings.Cut(line, "=")
		names = append(names, name)
		switch name {
		case "PATH":
			if value != DefaultPath {
				t.Errorf("PATH: got %q", value)
			}
		case "HOME":
			if value != "/home/nobody" {
				t.Errorf("HOME: got %q", value)
			}
		case "LANG":
			if value != DefaultLang {
				t.Errorf("LANG: got %q", value)
			}
		case "TMPDIR":
			tmp = value
		}
	}
	// bash itself adds PWD, SHLVL and _.
	allowed := []string{"PATH", "HOME", "LANG", "TMPDIR", "PWD", "SHLVL", "_", "OLDPWD"}
	for _, n := range names {
		if !slices.Contains(allowed, n) && !strings.HasPrefix(n, "SKILL_ARG_") {
			t.Errorf("unexpected variable %s in %q", n, res.Stdout)
		}
	}
	if filepath.Dir(tmp) != tmpParent {
		t.Errorf("TMPDIR %q: want a folder of its own in %s", tmp, tmpParent)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TMPDIR %s is left behind after the run", tmp)
	}
}

func TestArguments(t *testing.T) {
	snap, root := setup(t, true)
	sb := New(testOptions(t))
	sk := mustSkill(t, snap, "tools")
	hostile := `$(touch pwned); rm -rf / ; echo "x" | cat > pwned2 && ` + "`touch pwned3`"
	tests := []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"name": "svc", "flag": "on"}, "svc|on|1.24|unset|"},
		{map[string]string{"name": "svc", "flag": "on", "go-version": "1.26", "module": "m"}, "svc|on|1.26|m|"},
		{map[string]string{"NAME": "svc", "flag": "", "go_version": "1.25"}, "svc||1.25|unset|"},
		{map[string]string{"name": hostile, "flag": "--help"}, hostile + "|--help|1.24|unset|"},
	}
	for _, tc := range tests {
		res, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/args.sh", Args: tc.args})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if res.Stdout != tc.want || !res.Success || res.Script != "scripts/args.sh" {
			t.Errorf("%v: got %+v, want stdout %q", tc.args, res, tc.want)
		}
	}
	for _, f := range []string{"pwned", "pwned2", "pwned3"} {
		for _, dir := range []string{root, filepath.Join(root, "tools"), filepath.Join(root, "tools", "scripts")} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("an argument was interpreted: %s exists", filepath.Join(dir, f))
			}
		}
	}
}

func TestFailureAndWorkingDirectory(t *testing.T) {
	snap, root := setup(t, true)
	realRoot, _ := filepath.EvalSymlinks(root)
	allowed := t.TempDir()
	realAllowed, _ := filepath.EvalSymlinks(allowed)
	o := testOptions(t)
	o.CwdAllow = []string{allowed}
	sb := New(o)
	sk := mustSkill(t, snap, "tools")

	res, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/fail.sh"})
	if err != nil || res.Success || res.ExitCode != 1 || res.Stderr != "Error: Missing required field clientId\n" {
		t.Errorf("failing script: got %+v, %v", res, err)
	}
	for cwd, want := range map[string]string{
		"":                                  filepath.Join(realRoot, "tools"),
		"sub":                               filepath.Join(realRoot, "tools", "sub"),
		"./sub/":                            filepath.Join(realRoot, "tools", "sub"),
		allowed:                             realAllowed,
		filepath.Join(root, "tools", "sub"): filepath.Join(realRoot, "tools", "sub"),
	} {
		res, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/pwd.sh", Cwd: cwd})
		if err != nil || strings.TrimSpace(res.Stdout) != want {
			t.Errorf("cwd %q: got %+v, %v; want %s", cwd, res, err, want)
		}
	}
	// An inherited script runs in the folder of the skill it is run for.
	res, err = sb.Run(t.Context(), snap, sk, Request{File: "scripts/root.sh"})
	if err != nil || strings.TrimSpace(res.Stdout) != "root script in "+filepath.Join(realRoot, "tools") {
		t.Errorf("inherited script: got %+v, %v", res, err)
	}
}

func TestConcurrencyCap(t *testing.T) {
	snap, _ := setup(t, true)
	o := withRunner(t, testOptions(t), func(r *RunnerOptions) { r.MaxConcurrent = 1 })
	o.Timeout = 30 * time.Second
	sb := New(o)
	sk := mustSkill(t, snap, "tools")

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	var slowErr error
	go func() {
		defer wg.Done()
		_, slowErr = sb.Run(ctx, snap, sk, Request{File: "scripts/slow.sh"})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(sb.run.sem) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the slow script never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/pwd.sh"})
	wantFailure(t, err, failure.ResourceExhausted, "", "scripts.max_concurrent")
	cancel()
	wg.Wait()
	if !errors.Is(slowErr, context.Canceled) {
		t.Errorf("cancelled run: got %v, want context.Canceled", slowErr)
	}
	if res, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/pwd.sh"}); err != nil || !res.Success {
		t.Errorf("after the slot is free: got %+v, %v", res, err)
	}
}

// TestSeed000Fixture runs the cascade on the seed-000 fixture: its
// execution: claude script is refused with the guidance to read and run it,
// and its server script validate-auth-config.ts reaches its runner (npx
// tsx): refused when npx is not installed, run by a stand-in npx otherwise.
func TestSeed000Fixture(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "catalog", "testdata", "seed000-tree"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "seed000", Dir: dir, Kind: "local", Trusted: true}}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk := mustSkill(t, snap, "ui/react/auth")

	_, err = New(testOptions(t)).Run(t.Context(), snap, sk, Request{File: "scripts/scaffold-auth.sh", Args: map[string]string{"project_dir": "/tmp/x"}})
	wantFailure(t, err, failure.FailedPrecondition, ReasonScriptNotServer, "read the script", "bash", "SKILL_ARG_PROJECT_DIR, SKILL_ARG_PROVIDER")
	_, err = New(testOptions(t)).Run(t.Context(), snap, sk, Request{File: "scripts/validate-auth-config.ts"})
	wantFailure(t, err, failure.InvalidArgument, ReasonMissingArguments, "config_path")
	_, err = New(testOptions(t)).Run(t.Context(), snap, mustSkill(t, snap, "ui/react/testing"), Request{File: "scripts/lint-component.sh"})
	wantFailure(t, err, failure.FailedPrecondition, ReasonScriptNotServer)

	bin := t.TempDir()
	o := withRunner(t, testOptions(t), func(r *RunnerOptions) { r.Path = bin })
	_, err = New(o).Run(t.Context(), snap, sk, Request{File: "scripts/validate-auth-config.ts", Args: map[string]string{"config_path": "auth.ts"}})
	wantFailure(t, err, failure.FailedPrecondition, ReasonNoRunner, "npx")

	// A stand-in npx: it shows the exact command line the sandbox runs.
	stub := "#!" + bash(t) + "\nprintf 'argv:'; printf ' %s' \"$@\"; printf '\\nconfig=%s\\n' \"$SKILL_ARG_CONFIG_PATH\"\n"
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := New(o).Run(t.Context(), snap, sk, Request{File: "scripts/validate-auth-config.ts", Args: map[string]string{"config_path": "auth.ts"}})
	script := filepath.Join(dir, "ui", "react", "auth", "scripts", "validate-auth-config.ts")
	if real, err := filepath.EvalSymlinks(script); err == nil {
		script = real
	}
	if err != nil || !res.Success || res.Stdout != "argv: tsx "+script+"\nconfig=auth.ts\n" {
		t.Errorf("stand-in runner: got %+v, %v", res, err)
	}
}

// TestExampleScaffoldPlan runs the example catalog's server script for real.
func TestExampleScaffoldPlan(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "examples", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no examples: %v", err)
	}
	bash(t)
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "examples", Dir: dir, Kind: "local", Trusted: true}}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sk := mustSkill(t, snap, "backend/go-service")
	sb := New(testOptions(t))
	_, err = sb.Run(t.Context(), snap, sk, Request{File: "scripts/scaffold-plan.sh"})
	wantFailure(t, err, failure.InvalidArgument, ReasonMissingArguments, "name")
	res, err := sb.Run(t.Context(), snap, sk, Request{File: "scripts/scaffold-plan.sh", Args: map[string]string{"name": "orders-api"}})
	if err != nil || !res.Success || !strings.Contains(res.Stdout, "Go version: 1.24") || !strings.Contains(res.Stdout, "Module:     example.com/orders-api") {
		t.Errorf("scaffold-plan: got %+v, %v", res, err)
	}
	res, err = sb.Run(t.Context(), snap, sk, Request{File: "scripts/scaffold-plan.sh", Args: map[string]string{"name": "Bad Name"}})
	if err != nil || res.Success || res.ExitCode != 2 || !strings.Contains(res.Stderr, "lowercase") {
		t.Errorf("scaffold-plan with a bad name: got %+v, %v", res, err)
	}
}

// BenchmarkRun runs a one-line bash script through the whole cascade: the
// checks, the process group, the minimal environment, the capped output, the
// clean-up of its TMPDIR and, on Linux, this host's kernel isolation (the
// test binary re-executed as the helper, Landlock, user and network
// namespaces; BenchmarkRunIsolation shows each part's cost). Most of it is
// processes starting.
func BenchmarkRun(b *testing.B) {
	snap, _ := setup(b, true)
	sb := New(testOptions(b))
	sk := mustSkill(b, snap, "tools")
	for b.Loop() {
		res, err := sb.Run(b.Context(), snap, sk, Request{File: "scripts/pwd.sh"})
		if err != nil || !res.Success {
			b.Fatalf("run: %v %+v", err, res)
		}
	}
}

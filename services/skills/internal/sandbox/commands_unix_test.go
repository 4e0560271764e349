//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

func commandOptions(t *testing.T) CommandOptions {
	ro := testRunnerOptions(t)
	ro.KillGrace, ro.Path = 200*time.Millisecond, os.Getenv("PATH")
	return CommandOptions{
		Enabled: true, Allowed: []string{"ls", "cat", "env", "sleep", "pwd"}, Timeout: 5 * time.Second,
		MaxOutputBytes: 1 << 10, Runner: NewRunner(ro),
	}
}

func TestCommandsOffByDefault(t *testing.T) {
	snap, _ := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	var zero *Commands
	for _, c := range []*Commands{zero, NewCommands(CommandOptions{})} {
		_, err := c.Run(t.Context(), sk, "ls", nil)
		wantFailure(t, err, failure.FailedPrecondition, ReasonCommandsDisabled, "commands.enabled")
	}
}

func TestCommandsRefusals(t *testing.T) {
	snap, _ := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	c := NewCommands(commandOptions(t))
	_, err := c.Run(t.Context(), sk, "rm", []string{"-rf", "scripts"})
	wantFailure(t, err, failure.PermissionDenied, ReasonCommandNotAllowed, `"rm"`, "cat, env, ls, pwd, sleep")
	_, err = c.Run(t.Context(), sk, "/bin/ls", nil)
	wantFailure(t, err, failure.PermissionDenied, ReasonCommandNotAllowed)
	for _, arg := range []string{"../outside/evil.sh", "/etc/passwd", "~/x", "--file=../x", "a/../../b", `C:\x`} {
		_, err = c.Run(t.Context(), sk, "cat", []string{arg})
		wantFailure(t, err, failure.InvalidArgument, "INVALID_PATH", "points outside")
	}
	untrusted, _ := setup(t, false)
	_, err = c.Run(t.Context(), mustSkill(t, untrusted, "tools"), "ls", nil)
	wantFailure(t, err, failure.FailedPrecondition, ReasonCommandsDisabled, "not trusted")
}

func TestCommandsRun(t *testing.T) {
	snap, root := setup(t, true)
	sk := mustSkill(t, snap, "tools")
	t.Setenv("SECRET_TOKEN", "do-not-leak")
	c := NewCommands(commandOptions(t))

	res, err := c.Run(t.Context(), sk, "pwd", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDir, _ := filepath.EvalSymlinks(filepath.Join(root, "tools"))
	if strings.TrimSpace(res.Stdout) != wantDir || res.ExitCode != 0 || res.TimedOut || res.Program != "pwd" {
		t.Errorf("pwd: got %+v, want the skill's folder %s", res, wantDir)
	}

	res, err = c.Run(t.Context(), sk, "env", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		names = append(names, strings.SplitN(line, "=", 2)[0])
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"HOME", "LANG", "PATH", "TMPDIR"}) {
		t.Errorf("env: got %v, want HOME, LANG, PATH, TMPDIR only", names)
	}

	res, err = c.Run(t.Context(), sk, "ls", []string{"nope"})
	if err != nil || res.ExitCode == 0 || res.Stderr == "" {
		t.Errorf("ls nope: got %+v, %v; want a failed run with stderr", res, err)
	}

	opts := commandOptions(t)
	opts.MaxOutputBytes = 10
	res, err = NewCommands(opts).Run(t.Context(), sk, "cat", []string{"scripts/args.sh"})
	if err != nil || len(res.Stdout) != 10 || !res.StdoutTruncated || res.StderrTruncated {
		t.Errorf("cat past the cap: got %+v, %v; want 10 bytes and stdout truncated", res, err)
	}

	opts.Timeout = 300 * time.Millisecond
	start := time.Now()
	res, err = NewCommands(opts).Run(t.Context(), sk, "sleep", []string{"30"})
	if err != nil || !res.TimedOut || res.ExitCode == 0 || time.Since(start) > 10*time.Second {
		t.Errorf("sleep 30 with a 300 ms limit: got %+v, %v after %v; want a timed-out run", res, err, time.Since(start))
	}
}

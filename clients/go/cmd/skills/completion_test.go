package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionFlag: skills --version works as the servers' --version does
// (issue 18: only "skills version" did).
func TestVersionFlag(t *testing.T) {
	r := runCLI(t, "--version")
	r.want(t, 0)
	if r.stdout != "skills "+version+"\n" {
		t.Errorf("skills --version: stdout %q, want %q", r.stdout, "skills "+version+"\n")
	}
	r = runCLI(t, "--version", "--json")
	r.want(t, 0)
	if !strings.Contains(r.stdout, `"version": "`+version+`"`) {
		t.Errorf("skills --version --json: %q", r.stdout)
	}
	r = runCLI(t, "list", "--version")
	r.want(t, 2)
	if !strings.Contains(r.stderr, "skills --version") {
		t.Errorf("skills list --version: stderr %q, want it to say how to ask for the version", r.stderr)
	}
}

func TestCompletionUsage(t *testing.T) {
	runCLI(t, "completion").want(t, 2)
	r := runCLI(t, "completion", "fish")
	r.want(t, 2)
	if !strings.Contains(r.stderr, "bash or zsh") {
		t.Errorf("completion fish: %q", r.stderr)
	}
}

// TestBashCompletion loads the script in a real bash and completes command
// names, a command's flags, a global flag given before the command, and the
// folders of --skills-dir.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	r := runCLI(t, "completion", "bash")
	r.want(t, 0)
	dir := t.TempDir()
	script := filepath.Join(dir, "skills.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "catalog-a"), 0o755); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c",
			"source "+script+"; COMP_WORDS=("+strings.Join(quoted, " ")+"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _skills; echo \"${COMPREPLY[*]}\"")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"skills", "li"}, "list lint"},
		{[]string{"skills", "comp"}, "completion"},
		{[]string{"skills", "--ver"}, "--version"},
		{[]string{"skills", "lint", "--st"}, "--strict"},
		{[]string{"skills", "--json", "search", "--li"}, "--limit"},
		{[]string{"skills", "list", "--skills-dir", "catalog-"}, "catalog-a"},
		{[]string{"skills", "completion", "z"}, "zsh"},
	} {
		if got := complete(tc.words...); got != tc.want {
			t.Errorf("completing %q: got %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestZshCompletion checks the zsh script's syntax and that, sourced after
// compinit, it registers itself for skills.
func TestZshCompletion(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh on this machine")
	}
	r := runCLI(t, "completion", "zsh")
	r.want(t, 0)
	script := filepath.Join(t.TempDir(), "_skills")
	if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	cmd := exec.Command(zsh, "-f", "-c", "autoload -U compinit && compinit -u -D && source "+script+" && print -r -- ${_comps[skills]}")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "_skills" {
		t.Errorf("zsh: skills completes with %q, want _skills", out)
	}
}

// TestJSONLogs: LOG_FORMAT=json makes the command's log (its warnings, such
// as an empty catalog's) JSON lines, and the empty catalog is named.
func TestJSONLogs(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("LOG_FORMAT", "json")
	r := runCLI(t, "--skills-dir", empty, "list")
	r.want(t, 0)
	line, _, _ := strings.Cut(strings.TrimSpace(r.stderr), "\n")
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("stderr is not JSON lines: %q", r.stderr)
	}
	if rec["level"] != "WARN" || !strings.Contains(rec["reason"].(string), empty) {
		t.Errorf("warning %v, want the empty folder named", rec)
	}
}

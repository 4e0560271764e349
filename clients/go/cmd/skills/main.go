// Command skills is the command-line client of skillsd: it lists, shows,
// searches and matches the skills of a catalog, and lints skill folders.
//
//	skills [global flags] <command> [flags] [args]
//
// By default it is embedded: it loads the catalog in-process from the folders
// given with --skills-dir (repeatable), else from SKILLS_DIR, else from the
// default discovery folders (./.agents/skills, ./.claude/skills, …, then the
// same under the home directory). With --server ADDR it asks a running skillsd
// instead (--token-env NAME names the variable holding its bearer token).
// Global flags may also follow the command: "skills list --json".
//
// Commands:
//
//	list [--query Q] [--category C] [--tree] [--body]   list the skills
//	show [--files] [--raw] <path-or-name>              show one skill
//	search [--limit N] [--all-terms] [--category C] QUERY   rank skills for a query
//	match CONTEXT                                       pick the skill for a task
//	eval --queries FILE [--limit N]                     rank benchmark queries (JSON lines)
//	lint [--strict] [DIR...]                            report load diagnostics
//	version                                             print the version (also: skills --version)
//	completion bash|zsh                                 print a shell completion script
//	help [command]                                      print help
//
// Results go to stdout (--json for machine output), logs and errors to stderr.
// The exit status is 0 on success, 1 on failure (including lint findings), and
// 2 on a usage error.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

func main() {
	skillsd.SandboxHelper() // first: a re-executed binary becomes the confined script here
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exit(err, os.Stderr))
}

// exit reports err on stderr and returns the process exit status for it:
// 0 for success (and -h), 2 for a usage error, 1 for any other failure.
func exit(err error, stderr io.Writer) int {
	status := skillsd.ExitStatus(err)
	if status != 0 {
		fmt.Fprintln(stderr, "skills:", err)
	}
	return status
}

// usagef is a mistake in the command line (exit status 2).
func usagef(format string, args ...any) error {
	return skillsd.UsageError{Err: fmt.Errorf(format, args...)}
}

// run executes one command line (without the program name), writing results
// to stdout and diagnostics to stderr. The environment is read from the
// process (SKILLS_DIR, LOG_LEVEL, COLUMNS, the --token-env variable, …).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	// The embedded service logs to stderr from its own goroutines while the
	// command writes its progress there: one lock keeps any writer safe.
	e := &env{stdout: stdout, stderr: &lockedWriter{w: stderr}, getenv: os.Getenv}
	return e.main(ctx, args)
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

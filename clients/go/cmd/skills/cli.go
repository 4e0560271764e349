package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is the build's version, set with -ldflags "-X main.version=…".
var version = skillsd.DefaultVersion

// env is one invocation: where output goes, the environment, and the global
// flags.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	global         globals
}

// globals are the flags every command accepts, before or after its name.
type globals struct {
	dirs     skillsd.Strings
	config   string
	server   string
	tokenEnv string
	tls      bool
	caFile   string
	certFile string
	keyFile  string
	json     bool
	// version is --version: the version command, as the servers take it.
	version bool
}

// register defines the global flags on fs, with the values already parsed as
// defaults so that a second flag set (the command's) keeps them.
func (g *globals) register(fs *flag.FlagSet) {
	fs.Var(&g.dirs, "skills-dir", "a skills `folder` to load (repeatable, in precedence order; default: SKILLS_DIR, then discovery)")
	fs.StringVar(&g.config, "config", g.config, "a config.yaml `file` for the embedded server")
	fs.StringVar(&g.server, "server", g.server, "the `address` of a skillsd to ask instead of loading the catalog here (host:port; replicas: dns:///host:port or a comma-separated list)")
	fs.StringVar(&g.tokenEnv, "token-env", g.tokenEnv, "the environment `variable` holding the bearer token for --server")
	fs.BoolVar(&g.tls, "tls", g.tls, "use TLS (system roots) to reach --server")
	fs.StringVar(&g.caFile, "server-ca", g.caFile, "use TLS to reach --server, trusting the CAs of this PEM `file` (implies --tls)")
	fs.StringVar(&g.certFile, "client-cert", g.certFile, "the certificate `file` (PEM) to present to --server (mutual TLS)")
	fs.StringVar(&g.keyFile, "client-key", g.keyFile, "the private key `file` of --client-cert")
	fs.BoolVar(&g.json, "json", g.json, "write JSON instead of text")
	fs.BoolVar(&g.version, "version", g.version, "print the version and exit (as the version command)")
}

// command is one subcommand. setup registers its flags on fs and returns the
// function that runs it with the positional arguments.
type command struct {
	name     string
	synopsis string
	summary  string
	setup    func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{name: "list", synopsis: "list [--query Q] [--category C] [--tree [PATH]] [--body]", summary: "list the skills of the catalog", setup: listCmd},
		{name: "show", synopsis: "show [--files | --raw] <path-or-name>", summary: "show one skill: its fields, then its content resolved with inheritance", setup: showCmd},
		{name: "search", synopsis: "search [--limit N] [--all-terms] [--category C] [--tag T]... [--restated TEXT] QUERY", summary: "rank the skills for a query, best first", setup: searchCmd},
		{name: "match", synopsis: "match [--restated TEXT] CONTEXT", summary: "pick the skill for a task: one match with its content, ambiguous candidates, or none", setup: matchCmd},
		{name: "eval", synopsis: "eval --queries FILE [--limit N]", summary: "rank the queries of a JSON lines file, for the routing benchmark", setup: evalCmd},
		{name: "lint", synopsis: "lint [--strict] [DIR...]", summary: "load skill folders and report their problems; fails on errors", setup: lintCmd},
		{name: "scan", synopsis: "scan [--json] [--fail-on SEVERITY] [DIR...]", summary: "scan skill folders for security problems; fails on findings at or above --fail-on (default high)", setup: scanCmd},
		{name: "version", synopsis: "version", summary: "print the version (also skills --version)", setup: versionCmd},
		{name: "completion", synopsis: "completion bash|zsh", summary: "print a shell completion script (source it from your shell's startup file)", setup: completionCmd},
		{name: "help", synopsis: "help [command]", summary: "print help about skills or one command", setup: helpCmd},
	}
}

func lookup(name string) (command, bool) {
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands()[i], true
}

// main parses the global flags, finds the command and runs it.
func (e *env) main(ctx context.Context, args []string) error {
	fs := e.flagSet("skills")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			e.usage(e.stdout)
			return nil
		}
		return usagef("%v (run \"skills help\")", err)
	}
	rest := fs.Args()
	if e.global.version && len(rest) == 0 {
		rest = []string{"version"} // skills --version, as the servers take it
	}
	if len(rest) == 0 {
		e.usage(e.stderr)
		return usagef("no command given")
	}
	cmd, ok := lookup(rest[0])
	if !ok {
		return usagef("unknown command %q (run \"skills help\")", rest[0])
	}
	cfs := e.flagSet("skills " + cmd.name)
	runCmd := cmd.setup(cfs)
	pos, err := parseInterspersed(cfs, rest[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			e.commandUsage(e.stdout, cmd)
			return nil
		}
		return usagef("%s: %v (run \"skills help %s\")", cmd.name, err, cmd.name)
	}
	if e.global.version && cmd.name != "version" {
		return usagef("--version prints the version: use it alone (skills --version) or run \"skills version\"")
	}
	if e.global.server == "" && e.global.tokenEnv != "" {
		return usagef("--token-env needs --server")
	}
	if e.global.server == "" && (e.global.tls || e.global.caFile != "" || e.global.certFile != "" || e.global.keyFile != "") {
		return usagef("--tls, --server-ca, --client-cert and --client-key configure the connection to --server; they need --server")
	}
	if e.global.server != "" && (len(e.global.dirs) > 0 || e.global.config != "") {
		return usagef("--skills-dir and --config configure the embedded catalog; they cannot be used with --server")
	}
	return runCmd(ctx, e, pos)
}

// flagSet returns a flag set with the global flags, reporting nothing itself:
// errors come back from Parse and are reported once, by exit.
func (e *env) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	e.global.register(fs)
	return fs
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments, and returns the positional arguments. Everything after
// "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := args[:len(args)-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func (e *env) usage(w io.Writer) {
	fmt.Fprint(w, `skills is the command-line client of skillsd: it lists, shows, searches and
matches the skills of a catalog, and lints skill folders.

Usage:
  skills [global flags] <command> [flags] [args]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
The catalog is loaded in-process from --skills-dir folders, else SKILLS_DIR,
else the default discovery folders (./.agents/skills, ./.agent/skills,
./.claude/skills, then the same under the home directory); --server ADDR asks a
running skillsd instead.

Global flags (also accepted after the command):
`)
	fs := flag.NewFlagSet("skills", flag.ContinueOnError)
	new(globals).register(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, `
Exit status: 0 success, 1 failure (lint: any error diagnostic; scan: a finding at
or above --fail-on), 2 usage error.
Run "skills help <command>" for a command's flags.
`)
}

func (e *env) commandUsage(w io.Writer, c command) {
	fmt.Fprintf(w, "Usage: skills %s\n\n%s.\n", c.synopsis, upperFirst(c.summary))
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	var own strings.Builder
	fs.SetOutput(&own)
	fs.PrintDefaults()
	if own.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", own.String())
	}
	fmt.Fprint(w, "\nGlobal flags: --skills-dir, --config, --server, --token-env, --tls, --server-ca, --client-cert, --client-key, --json (see \"skills help\").\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func helpCmd(*flag.FlagSet) func(context.Context, *env, []string) error {
	return func(_ context.Context, e *env, args []string) error {
		switch len(args) {
		case 0:
			e.usage(e.stdout)
			return nil
		case 1:
			c, ok := lookup(args[0])
			if !ok {
				return usagef("help: unknown command %q", args[0])
			}
			e.commandUsage(e.stdout, c)
			return nil
		default:
			return usagef("help: too many arguments")
		}
	}
}

func versionCmd(*flag.FlagSet) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		if len(args) > 0 {
			return usagef("version: unexpected argument %q", args[0])
		}
		out := map[string]string{"version": version}
		if e.global.server != "" {
			c, done, err := e.connect(ctx, nil)
			if err != nil {
				return err
			}
			defer done()
			st, err := c.Status(ctx)
			if err != nil {
				return fmt.Errorf("version: asking %s: %w", e.global.server, describe(err))
			}
			out["server_version"] = st.GetVersion()
		}
		if e.global.json {
			return writeJSONValue(e.stdout, out)
		}
		fmt.Fprintln(e.stdout, "skills", version)
		if v, ok := out["server_version"]; ok {
			fmt.Fprintf(e.stdout, "server %s (%s)\n", v, e.global.server)
		}
		return nil
	}
}

// ask connects (to --server, else to the folders of --skills-dir), makes
// one call and closes the connection; the call's error is described and
// named after cmd.
func ask[T any](ctx context.Context, e *env, cmd string, call func(*skillsclient.Client) (T, error)) (T, error) {
	var zero T
	c, done, err := e.connect(ctx, nil)
	if err != nil {
		return zero, err
	}
	defer done()
	v, err := call(c)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", cmd, describe(err))
	}
	return v, nil
}

// poll calls try, then again every interval, until it is done or fails, or
// ctx ends: how the commands wait for the server's work in the background
// (the first security scan, the embeddings).
func poll(ctx context.Context, interval time.Duration, try func() (done bool, err error)) error {
	for {
		if done, err := try(); done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// connect returns a client on the catalog and a function that releases it:
// an embedded server loaded from dirs (or, when dirs is empty, from the
// global flags and the environment), or the --server connection.
func (e *env) connect(ctx context.Context, dirs []string) (*skillsclient.Client, func(), error) {
	if e.global.server != "" {
		return e.dial()
	}
	if len(dirs) == 0 {
		dirs = e.global.dirs
	}
	srv, err := skillsd.New(ctx, skillsd.Options{
		SkillsDirs: dirs,
		ConfigFile: e.global.config,
		Getenv:     e.getenv,
		Logger:     e.logger(),
		Version:    version,
		// The CLI's searches, matches and eval runs are not usage: nothing
		// is recorded in the local store the servers keep.
		NoUsage: true,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("loading the catalog: %w", err)
	}
	// A git source cloned for the first time loads in the background: a
	// one-shot command waits for it.
	if err := srv.WaitReady(ctx); err != nil {
		_ = srv.Close()
		return nil, nil, fmt.Errorf("loading the catalog: %w", err)
	}
	// The embedded catalog is the user's own: the calls skip the
	// authentication the configuration asks of listeners.
	conn, err := srv.DialTrusted(ctx)
	if err != nil {
		_ = srv.Close()
		return nil, nil, err
	}
	return skillsclient.New(conn), func() { _ = srv.Close() }, nil
}

// dial connects to --server, with the --token-env bearer token when given,
// over TLS with --tls or --server-ca.
func (e *env) dial() (*skillsclient.Client, func(), error) {
	opts := skillsclient.DialOptions{TLS: e.global.tls, CAFile: e.global.caFile, CertFile: e.global.certFile, KeyFile: e.global.keyFile}
	if name := e.global.tokenEnv; name != "" {
		opts.Token = strings.TrimSpace(e.getenv(name))
		if opts.Token == "" {
			return nil, nil, usagef("--token-env %s: the variable is empty or unset", name)
		}
	}
	conn, err := skillsclient.Dial(e.global.server, opts)
	if err != nil {
		return nil, nil, usagef("--server: %v", err)
	}
	return skillsclient.New(conn), func() { _ = conn.Close() }, nil
}

// logger writes the embedded server's log to stderr at LOG_LEVEL (default
// warn: a command-line run shows problems, not progress), as text or, with
// LOG_FORMAT=json, JSON lines.
func (e *env) logger() *slog.Logger {
	level := slog.LevelWarn
	switch strings.ToLower(strings.TrimSpace(e.getenv("LOG_LEVEL"))) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "error":
		level = slog.LevelError
	}
	lv, format := new(slog.LevelVar), new(logging.FormatVar)
	lv.Set(level)
	f, err := logging.ParseFormat(e.getenv("LOG_FORMAT"))
	if err != nil {
		f = logging.Text // a command line run is not stopped by its log's format
	}
	format.Set(f)
	return logging.New(e.stderr, lv, format)
}

// describe turns a client error into the sentence a user of the command line
// needs: the server's message without the gRPC decoration, and for a skill
// that does not exist, the close names.
func describe(err error) error {
	var se *skillsclient.Error
	if !errors.As(err, &se) {
		return err
	}
	if errors.Is(se, skillsclient.ErrSkillNotFound) {
		ref := se.Metadata["skill_path"]
		msg := fmt.Sprintf("no skill %q", ref)
		if ref == "" {
			msg = "no such skill"
		}
		if s := se.Suggestions(); len(s) > 0 {
			return fmt.Errorf("%s; did you mean %s?", msg, strings.Join(s, ", "))
		}
		return fmt.Errorf("%s; run \"skills list\" to see the catalog", msg)
	}
	msg := se.Message
	if msg == "" {
		msg = se.Code.String()
	}
	if se.Code == codes.Unavailable {
		msg = "the server is unavailable: " + msg
	}
	return errors.New(msg)
}

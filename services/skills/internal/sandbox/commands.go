package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Reasons of the errors Commands.Run returns (skills.v1 ErrorReason names).
const (
	ReasonCommandsDisabled  = "COMMANDS_DISABLED"
	ReasonCommandNotAllowed = "COMMAND_NOT_ALLOWED"
)

// Defaults of CommandOptions (seed 004 §8.2).
const (
	DefaultCommandTimeout        = 60 * time.Second
	DefaultCommandMaxOutputBytes = 65536
)

// DefaultAllowedCommands is seed 004's ALLOWED_COMMANDS.
func DefaultAllowedCommands() []string { return []string{"python", "uv", "node", "cat", "ls", "grep"} }

// Limits on a command's arguments.
const (
	maxCommandArgs      = 256
	maxCommandArgsBytes = 128 << 10
)

// CommandOptions configures Commands (seed 004's run_skill_command). The
// zero value runs nothing.
type CommandOptions struct {
	// Enabled is the switch (commands.enabled); off by default.
	Enabled bool
	// Allowed lists the command names that may run (ALLOWED_COMMANDS); nil
	// means DefaultAllowedCommands.
	Allowed []string
	// Timeout is each run's time limit (EXEC_TIMEOUT_SECONDS); zero means
	// DefaultCommandTimeout.
	Timeout time.Duration
	// MaxOutputBytes caps stdout and stderr each (EXEC_MAX_OUTPUT_BYTES); zero
	// means DefaultCommandMaxOutputBytes.
	MaxOutputBytes int64
	// Runner starts the commands, sharing its concurrency limit, environment
	// and kernel isolation with the scripts; nil means a Runner of its own
	// with default options.
	Runner *Runner
	// Logger receives one line per run (the audit trail); nil discards it.
	Logger *slog.Logger
}

// Commands runs allow-listed commands in a skill's folder. They start
// through the same Runner as scripts, so everything the package
// documentation says of scripts holds for them too: no shell, a minimal
// environment, stdin closed, a process group of its own killed at the time
// limit and when the command ends, output capped, one concurrency limit for
// both, and the same kernel isolation (the skill's folder is the one folder
// of its own a command may read). It is safe for concurrent use.
type Commands struct {
	opts    CommandOptions
	allowed map[string]bool
	run     *Runner
}

// NewCommands returns a Commands.
func NewCommands(opts CommandOptions) *Commands {
	if opts.Allowed == nil {
		opts.Allowed = DefaultAllowedCommands()
	}
	defaults.Set(&opts.Timeout, DefaultCommandTimeout)
	defaults.Set(&opts.MaxOutputBytes, DefaultCommandMaxOutputBytes)
	r := opts.Runner
	if r == nil {
		r = NewRunner(RunnerOptions{Logger: opts.Logger})
	}
	allowed := map[string]bool{}
	for _, c := range opts.Allowed {
		if c = strings.TrimSpace(c); c != "" {
			allowed[c] = true
		}
	}
	return &Commands{opts: opts, allowed: allowed, run: r}
}

// CommandResult is the outcome of one command (seed 004 §3.5).
type CommandResult struct {
	// Stdout and Stderr are the output, cut at the cap, as UTF-8 (invalid
	// sequences replaced by U+FFFD).
	Stdout, Stderr string
	// ExitCode is the exit status, 128+n when signal n ended the command.
	ExitCode int
	// TimedOut says the command was ended at the time limit.
	TimedOut                         bool
	StdoutTruncated, StderrTruncated bool
	Duration                         time.Duration
	// Program is the program that ran, by name ("uv" for python through uv).
	Program string
	// Isolation is what confined the command, and what it lacked.
	Isolation Isolation
}

// Enabled returns the error of a Commands that runs nothing; nil when
// commands may run.
func (c *Commands) Enabled() error {
	return enabled(c != nil && c.opts.Enabled, ReasonCommandsDisabled,
		"running commands is disabled on this server (commands.enabled is false); load the skill and run its commands yourself from its folder",
		"running commands is not supported on Windows; run the command yourself from the skill's folder")
}

// Run runs command with args in sk's folder. The checks come in seed 004's
// order: switched on, the skill's source trusted, the command allowed, the
// arguments inside the skill's folder. A command that runs and fails (or
// times out) is a CommandResult, not an error.
func (c *Commands) Run(ctx context.Context, sk *catalog.Skill, name string, args []string) (*CommandResult, error) {
	if err := c.Enabled(); err != nil {
		return nil, err
	}
	if err := trusted(sk, ReasonCommandsDisabled, fmt.Sprintf("commands do not run in skill %q", sk.Path)); err != nil {
		return nil, err
	}
	if !c.allowed[name] {
		return nil, failure.New(failure.PermissionDenied, ReasonCommandNotAllowed,
			"command %q is not allowed on this server (allowed: %s; commands.allowed, ALLOWED_COMMANDS)", name, strings.Join(slices.Sorted(maps.Keys(c.allowed)), ", ")).
			With("skill_path", sk.Path).With("command", name)
	}
	if err := CheckCommandArgs(args); err != nil {
		return nil, withSkill(err, sk)
	}
	if sk.Dir == "" {
		return nil, failure.New(failure.FailedPrecondition, "",
			"skill %q has no folder to run commands in", sk.Path).With("skill_path", sk.Path)
	}
	dir, err := filepath.EvalSymlinks(sk.Dir)
	if err != nil {
		return nil, failure.New(failure.Internal, "", "resolving the folder of %s", sk.Path).Wrap(err)
	}
	prog, pre, err := c.resolve(name)
	if err != nil {
		return nil, withSkill(err, sk)
	}
	o, iso, err := c.run.start(ctx, job{
		program:   prog,
		args:      append(pre, args...),
		dir:       dir,
		read:      []string{dir},
		network:   sk.Doc.Frontmatter.Network,
		timeout:   c.opts.Timeout,
		maxOutput: c.opts.MaxOutputBytes,
	})
	if err != nil {
		return nil, notStarted(ctx, err, func() *failure.Error {
			return failure.New(failure.FailedPrecondition, ReasonNoRunner,
				"command %q could not be started in skill %q", name, sk.Path)
		}, "skill_path", sk.Path)
	}
	if o.cancelled {
		return nil, ctx.Err()
	}
	res := &CommandResult{
		Stdout:          o.stdout.plain(),
		Stderr:          o.stderr.plain(),
		ExitCode:        o.exitCode,
		TimedOut:        o.timedOut,
		StdoutTruncated: o.stdout.dropped > 0,
		StderrTruncated: o.stderr.dropped > 0,
		Duration:        o.duration,
		Program:         filepath.Base(prog),
		Isolation:       iso,
	}
	if c.opts.Logger != nil {
		c.opts.Logger.InfoContext(ctx, "command run", "skill", sk.Path, "command", name, "program", res.Program,
			"args", len(args), "exit_code", res.ExitCode, "duration", res.Duration, "timed_out", res.TimedOut,
			"network", iso.Network, "isolation_missing", strings.Join(iso.MissingNames(), ","))
	}
	return res, nil
}

// resolve finds the program for command in the commands' PATH: python and
// python3 run as "uv run python" when uv is installed, else as python3
// (seed 004 §3.5).
func (c *Commands) resolve(command string) (string, []string, error) {
	if command == "python" || command == "python3" {
		if uv, err := lookPath("uv", c.run.opts.Path); err == nil {
			return uv, []string{"run", "python"}, nil
		}
		if py, err := lookPath("python3", c.run.opts.Path); err == nil {
			return py, nil, nil
		}
	}
	if strings.ContainsAny(command, `/\`) {
		return "", nil, failure.New(failure.InvalidArgument, ReasonCommandNotAllowed,
			"command %q must be a program name, not a path", command)
	}
	prog, err := lookPath(command, c.run.opts.Path)
	if err != nil {
		return "", nil, failure.New(failure.FailedPrecondition, ReasonNoRunner,
			"command %q is allowed but not installed on the server (not in the commands' PATH)", command).With("command", command).Wrap(err)
	}
	return prog, nil, nil
}

// CheckCommandArgs refuses arguments that name files outside the skill's
// folder: an absolute path (after an optional "--flag=" prefix), a home path
// (~), or a ".." segment. It is a guard against mistakes, not a
// confinement: a command may still open what its own logic chooses.
func CheckCommandArgs(args []string) error {
	if len(args) > maxCommandArgs {
		return failure.New(failure.InvalidArgument, "", "%d arguments; the most is %d", len(args), maxCommandArgs)
	}
	total := 0
	for i, a := range args {
		total += len(a)
		switch {
		case strings.IndexByte(a, 0) >= 0:
			return failure.New(failure.InvalidArgument, "", "argument %d holds a NUL byte", i+1)
		case !utf8.ValidString(a):
			return failure.New(failure.InvalidArgument, "", "argument %d is not valid UTF-8", i+1)
		}
		v := a
		if strings.HasPrefix(v, "-") {
			if eq := strings.IndexByte(v, '='); eq >= 0 {
				v = v[eq+1:]
			}
		}
		if escapes(v) {
			return failure.New(failure.InvalidArgument, assets.ReasonInvalidPath,
				"argument %q points outside the skill's folder: use paths relative to the skill's folder, without '..'", a).With("argument", a)
		}
	}
	if total > maxCommandArgsBytes {
		return failure.New(failure.InvalidArgument, "", "the arguments hold %d bytes together; the most is %d", total, maxCommandArgsBytes)
	}
	return nil
}

// escapes reports whether a path-like value leaves the working folder.
func escapes(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, `\`) || strings.HasPrefix(v, "~") {
		return true
	}
	if len(v) >= 2 && v[1] == ':' && ((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z')) {
		return true // C:\ or C:foo
	}
	for seg := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '/' || r == '\\' || r == '=' || r == ':' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}

// plain is the kept output as UTF-8, without a marker: a CommandResult says
// what was cut in its own fields.
func (c *capped) plain() string {
	b := c.buf
	if c.dropped > 0 {
		for back := 1; back < utf8.UTFMax && back <= len(b); back++ {
			if utf8.RuneStart(b[len(b)-back]) {
				if !utf8.FullRune(b[len(b)-back:]) {
					b = b[:len(b)-back]
				}
				break
			}
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

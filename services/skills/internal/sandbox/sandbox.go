// Package sandbox runs the scripts skills declare with execution "server"
// (seed 000 §8.4, §12.2) and seed 004's allow-listed commands. It is the only
// package of the service that starts processes (tools/checks.sh enforces
// it), and every process starts through one Runner, which owns one
// concurrency limit (scripts.max_concurrent, for scripts and commands
// together), the environment and the kernel isolation.
//
// Run applies seed 000's validation cascade, each failure with its own
// reason and message: scripts switched off (globally, or for an untrusted
// source), path traversal, script not declared, execution not "server",
// required arguments missing (all of them named), extension not allowed,
// file missing, no runner. A script that passes runs:
//
//   - with the runner configured for its extension ("bash", "npx tsx", …),
//     found in the scripts' own PATH, and the script's real path as its last
//     argument: no shell ever interprets anything;
//   - with its arguments only as SKILL_ARG_<NAME> environment variables, in a
//     minimal environment: PATH, HOME, LANG, a TMPDIR of its own (removed
//     after the run) and the SKILL_ARG_* variables; nothing of the server's
//     environment (tokens, keys) reaches it;
//   - with stdin closed (/dev/null), in the skill's folder or a folder the
//     caller chose inside it or inside scripts.cwd_allow;
//   - in a process group of its own: at the time limit the whole group gets
//     SIGTERM, then SIGKILL 5 seconds later, and when the script ends,
//     whatever it left running in its group (background children) is killed;
//   - with stdout and stderr each capped at max_output_bytes (the rest is
//     read and dropped, and a marker line says how much);
//   - only while fewer than scripts.max_concurrent scripts and commands run;
//   - on Linux, confined by the kernel (below).
//
// Kernel isolation (Linux). The Runner starts each process as the service's
// own binary re-executed (/proc/self/exe) with a marker: Helper, the first
// call of every main, sees the marker, confines its process with Landlock
// and executes the runner, which inherits the confinement, as do its
// children. The serving process is never confined. The helper starts in a
// user namespace of its own (the server's user mapped to itself: no
// capability over the host) and, unless the run may use the network, a
// network namespace of its own (no interface but a loopback that is down).
// Under Landlock a process:
//
//   - reads and executes only its skill's folder (the declaring skill's too,
//     for an inherited script), its script's own file (a link may lead
//     elsewhere in the source) and its working directory, the system's programs
//     and libraries (/usr, /bin, /lib*), the few files of /etc that runtimes
//     look up (never /etc/shadow, SSH or TLS keys), its own /proc entries,
//     the CPU and memory facts of /proc and /sys, the folders of its PATH, its
//     runner's folders (its real file's folder, the node_modules holding it,
//     its installation prefix — never the home folder or above) and
//     scripts.read_paths. The skill's folder, not the source root: a script
//     has no business in its neighbours' files, nor in the source's .git or
//     config.yaml (the file reader, which answers the caller, may follow a
//     link elsewhere in the source; a script may not);
//   - writes only its TMPDIR (and /dev/null, /dev/zero, /dev/full): not its
//     skill's folder, not the home folder;
//   - opens no TCP connection and binds no TCP port (Landlock ABI 4), unless
//     its skill declares network use (scripts[].network or
//     metadata.network) and scripts.allow_network is true;
//   - cannot signal a process outside its run, nor reach an abstract Unix
//     socket outside it (Landlock ABI 6): it cannot kill the server.
//
// A protection the kernel lacks is never skipped silently: Runner.Isolation
// (GetCatalogStatus) and every result list the protections in force and
// the missing ones, each with why; with scripts.require_isolation a run that
// would miss one is refused (ISOLATION_UNAVAILABLE). The host is probed once,
// by starting the helper the way a run does.
//
// What it still does not protect against: resources (no cgroups or rlimits:
// a script may use as much CPU and memory as it likes, fill the disk of its
// TMPDIR, or fork many processes until its time limit); the kernel's system
// calls themselves (no seccomp filter); a Unix socket reachable by path
// (Landlock refuses those only from ABI 9); what it may read (the skill's
// folder and the runtimes) it may print. A process that leaves its process
// group (setsid, double fork) escapes the kill and outlives the run, still
// confined. On a server running as root, the user namespace maps root to
// itself: Landlock, not file permissions, is what keeps the script out. The
// path of a script is checked, then run by name: a writer racing the check
// inside the skills tree could swap it (for a script that is confined the
// same). Only run scripts from sources you trust (local folders; git sources
// marked trusted); scripts.enabled: false switches execution off entirely.
// Outside Linux there is no kernel isolation (the status says so); on
// Windows, scripts do not run at all.
package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/assets"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// Reasons of the errors Run returns (skills.v1 ErrorReason names), besides
// those of package assets.
const (
	ReasonScriptsDisabled     = "SCRIPTS_DISABLED"
	ReasonScriptNotDeclared   = "SCRIPT_NOT_DECLARED"
	ReasonScriptNotServer     = "SCRIPT_NOT_SERVER"
	ReasonMissingArguments    = "MISSING_ARGUMENTS"
	ReasonExtensionNotAllowed = "EXTENSION_NOT_ALLOWED"
	ReasonNoRunner            = "NO_RUNNER"
	ReasonNotSupported        = "NOT_SUPPORTED"
)

// Defaults of Options and RunnerOptions (seed 000 §11.2 and ARCHITECTURE §11).
const (
	DefaultTimeout        = 60 * time.Second
	DefaultKillGrace      = 5 * time.Second
	DefaultMaxOutputBytes = 1 << 20
	DefaultMaxConcurrent  = 4
	DefaultPath           = "/usr/local/bin:/usr/bin:/bin"
	DefaultLang           = "C.UTF-8"
)

// DefaultRunners are seed 000's runners by extension.
func DefaultRunners() map[string]string {
	return map[string]string{".sh": "bash", ".ts": "npx tsx", ".js": "node", ".py": "python3"}
}

// DefaultExtensions are seed 000's allowed extensions.
func DefaultExtensions() []string { return []string{".sh", ".ts", ".js", ".py"} }

// Limits on arguments: the kernel refuses longer environment strings.
const (
	maxArgBytes   = 32 << 10
	maxTotalBytes = 128 << 10
)

// TimeoutLine is the last line of stderr of a script killed at its time
// limit (ARCHITECTURE §11).
const TimeoutLine = "[skillsd] Script killed: timeout exceeded."

// Options configures a Sandbox. The zero value has scripts switched off.
type Options struct {
	// Enabled is the global switch (scripts.enabled).
	Enabled bool
	// Timeout is each run's time limit; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutputBytes caps stdout and stderr each; zero means DefaultMaxOutputBytes.
	MaxOutputBytes int64
	// AllowedExtensions lists the extensions that may run, with their dot;
	// nil means DefaultExtensions.
	AllowedExtensions []string
	// Runners maps an extension to its runner command ("npx tsx": the
	// program npx with the argument tsx); nil means DefaultRunners.
	Runners map[string]string
	// CwdAllow lists absolute folders, besides the skill's folder, that a
	// caller may choose as a script's working directory (and that the
	// script may then read).
	CwdAllow []string
	// Runner starts the scripts (and, shared with Commands, the commands):
	// the concurrency limit, the environment and the kernel isolation are
	// its. Nil means a Runner of its own with default options.
	Runner *Runner
	// Logger receives one line per run (the audit trail); nil discards it.
	Logger *slog.Logger
}

// Sandbox runs scripts. It is safe for concurrent use.
type Sandbox struct {
	opts Options
	log  *slog.Logger
	exts map[string]bool
	run  *Runner
}

// New returns a Sandbox.
func New(opts Options) *Sandbox {
	defaults.Set(&opts.Timeout, DefaultTimeout)
	defaults.Set(&opts.MaxOutputBytes, DefaultMaxOutputBytes)
	if opts.AllowedExtensions == nil {
		opts.AllowedExtensions = DefaultExtensions()
	}
	if opts.Runners == nil {
		opts.Runners = DefaultRunners()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := opts.Runner
	if r == nil {
		r = NewRunner(RunnerOptions{Logger: opts.Logger})
	}
	exts := map[string]bool{}
	for _, e := range opts.AllowedExtensions {
		exts[strings.ToLower(e)] = true
	}
	runners := make(map[string]string, len(opts.Runners))
	for e, r := range opts.Runners {
		runners[strings.ToLower(e)] = r
	}
	opts.Runners = runners
	return &Sandbox{opts: opts, log: log, exts: exts, run: r}
}

// Isolation returns the kernel protections scripts get on this host (see
// Runner.Isolation).
func (s *Sandbox) Isolation() Isolation { return s.run.Isolation() }

// Request names a script to run.
type Request struct {
	// File is the script's path as declared, relative to the declaring
	// skill's folder.
	File string
	// Args are the named arguments; a name matches a declared argument when
	// both give the same SKILL_ARG_ variable ("go-version", "go_version").
	Args map[string]string
	// Cwd is the working directory: empty for the skill's folder, a path
	// relative to it, or an absolute folder inside one of Options.CwdAllow.
	Cwd string
}

// Result is the outcome of one run (seed 000 §8.4).
type Result struct {
	// Success is true when the script exited with status 0 in time.
	Success bool
	// ExitCode is the exit status; 128+n when a signal n ended the script;
	// 137 when it was killed at the time limit.
	ExitCode int
	// Stdout and Stderr are the output, capped, as UTF-8 (invalid sequences
	// replaced by U+FFFD). A capped stream ends with a marker line; the
	// stderr of a timed-out run ends with TimeoutLine.
	Stdout, Stderr string
	Duration       time.Duration
	// Script is the script's file, as declared.
	Script string
	// TimedOut says the run was ended at the time limit.
	TimedOut                         bool
	StdoutTruncated, StderrTruncated bool
	// Isolation is what confined the run, and what it lacked.
	Isolation Isolation

	// pgid is the run's process group, for tests.
	pgid int
}

// Enabled returns the error of a sandbox that runs nothing: the first check
// of seed 000's cascade, before the skill is looked up. Nil when scripts may run.
func (s *Sandbox) Enabled() error {
	return enabled(s.opts.Enabled, ReasonScriptsDisabled,
		"script execution is disabled on this server (scripts.enabled is false)",
		"running scripts is not supported on Windows; read the script and run it yourself")
}

// enabled is the first check of Sandbox.Run and Commands.Run: FailedPrecondition
// with reason and the message disabled when on is false, Unimplemented with
// unsupported where the host cannot run anything; nil when they may run.
func enabled(on bool, reason, disabled, unsupported string) error {
	if !on {
		return failure.New(failure.FailedPrecondition, reason, "%s", disabled)
	}
	if !supported {
		return failure.New(failure.Unimplemented, ReasonNotSupported, "%s", unsupported)
	}
	return nil
}

// Run validates the request against sk (a skill of snap) in seed 000's order
// and runs the script. A script that runs and fails is a Result, not an
// error; errors are *failure.Error values naming the failed check, or the
// context's error when ctx ended the run.
func (s *Sandbox) Run(ctx context.Context, snap *catalog.Snapshot, sk *catalog.Skill, req Request) (*Result, error) {
	if err := s.Enabled(); err != nil {
		return nil, err
	}
	// Per-source trust (ARCHITECTURE §11): a variant of the global switch.
	if err := trusted(sk, ReasonScriptsDisabled, fmt.Sprintf("scripts of skill %q do not run", sk.Path)); err != nil {
		return nil, err
	}
	// E3: path traversal.
	clean, err := assets.CheckPath("file", req.File)
	if err != nil {
		return nil, withSkill(err, sk)
	}
	// E4: declared.
	ref, ok := declared(snap, sk, clean)
	if !ok {
		return nil, notDeclared(snap, sk, clean)
	}
	// E5: execution server.
	if ref.Execution != "server" {
		return nil, failure.New(failure.FailedPrecondition, ReasonScriptNotServer,
			"script %s of skill %q has execution: %s, so the agent runs it, not the server: read the script and run it yourself with bash, passing its arguments as SKILL_ARG_* environment variables%s",
			clean, sk.Path, orClaude(ref.Execution), argHint(ref.Script)).
			With("skill_path", sk.Path).With("file", clean)
	}
	// E6: required arguments (and no unknown ones).
	env, err := arguments(sk, clean, ref.Script, req.Args)
	if err != nil {
		return nil, err
	}
	// E7: extension.
	ext := strings.ToLower(path.Ext(clean))
	if !s.exts[ext] {
		return nil, failure.New(failure.FailedPrecondition, ReasonExtensionNotAllowed,
			"script %s of skill %q cannot run: extension %q is not allowed on this server (allowed: %s; scripts.allowed_extensions)",
			clean, sk.Path, ext, strings.Join(sortedExts(s.exts), ", ")).With("skill_path", sk.Path).With("file", clean)
	}
	// E8: file exists (confined to the source).
	script, err := assets.Resolve(ref.Owner.Source, ref.Owner.Dir, clean)
	if err != nil {
		if failure.Is(err, failure.NotFound) {
			return nil, failure.New(failure.NotFound, assets.ReasonFileNotFound,
				"script %s is declared by skill %q, but the file is missing from its folder", clean, ownerPath(ref, sk)).
				With("skill_path", sk.Path).With("file", clean).Wrap(err)
		}
		return nil, withSkill(err, sk)
	}
	// E9: runner.
	runner, args, err := s.runner(sk, clean, ext)
	if err != nil {
		return nil, err
	}
	// Working directory.
	dir, err := s.workDir(sk, ref, req.Cwd)
	if err != nil {
		return nil, err
	}
	// The script itself may be a link to a file elsewhere in its source
	// (which the checks above allow): it is readable whatever its folder.
	read := []string{dir, script}
	for _, d := range []string{sk.Dir, ref.Owner.Dir} {
		if real, err := filepath.EvalSymlinks(d); d != "" && err == nil {
			read = append(read, real)
		}
	}
	o, iso, err := s.run.start(ctx, job{
		program:   runner,
		args:      append(args, script),
		dir:       dir,
		vars:      env,
		read:      read,
		network:   ref.Network || ref.Owner.Doc.Frontmatter.Network,
		timeout:   s.opts.Timeout,
		maxOutput: s.opts.MaxOutputBytes,
	})
	if err != nil {
		return nil, notStarted(ctx, err, func() *failure.Error {
			s.log.WarnContext(ctx, "script did not start", "skill", sk.Path, "script", clean, "runner", runner, "err", err)
			return failure.New(failure.FailedPrecondition, ReasonNoRunner,
				"script %s of skill %q could not be started by its runner %s", clean, sk.Path, filepath.Base(runner))
		}, "skill_path", sk.Path, "file", clean)
	}
	res := o.result(clean, s.opts.MaxOutputBytes)
	res.Isolation = iso
	s.log.InfoContext(ctx, "script run", "skill", sk.Path, "script", clean, "exit_code", res.ExitCode,
		"duration", res.Duration, "timed_out", res.TimedOut, "stdout_truncated", res.StdoutTruncated, "stderr_truncated", res.StderrTruncated,
		"network", iso.Network, "isolation_missing", strings.Join(iso.MissingNames(), ","))
	if o.cancelled {
		return nil, ctx.Err()
	}
	return res, nil
}

// trusted refuses sk, with reason, when its source is not trusted: what
// runs nothing, as refusal says ("scripts of skill x do not run").
func trusted(sk *catalog.Skill, reason, refusal string) error {
	if sk.Source != nil && sk.Source.Trusted {
		return nil
	}
	src := "?"
	if sk.Source != nil {
		src = sk.Source.Name
	}
	return failure.New(failure.FailedPrecondition, reason,
		"%s: its source %s is not trusted (mark the source trusted: true in the server's config to allow them)", refusal, src).
		With("skill_path", sk.Path).With("source", src)
}

// declared finds clean among the scripts sk declares or inherits.
func declared(snap *catalog.Snapshot, sk *catalog.Skill, clean string) (catalog.ScriptRef, bool) {
	own, inherited := snap.Scripts(sk)
	for _, list := range [][]catalog.ScriptRef{own, inherited} {
		for _, r := range list {
			if r.File == clean && r.Owner != nil {
				return r, true
			}
		}
	}
	return catalog.ScriptRef{}, false
}

func notDeclared(snap *catalog.Snapshot, sk *catalog.Skill, clean string) error {
	own, inherited := snap.Scripts(sk)
	var server []string
	for _, r := range slices.Concat(own, inherited) {
		if r.Execution == "server" {
			server = append(server, r.File)
		}
	}
	msg := fmt.Sprintf("%s is not a script declared by skill %q: only scripts listed under scripts: in its frontmatter (or inherited) can run", clean, sk.Path)
	if len(server) > 0 {
		msg += "; its server scripts are " + strings.Join(server, ", ")
	} else {
		msg += "; it declares no server script"
	}
	return failure.New(failure.FailedPrecondition, ReasonScriptNotDeclared, "%s", msg).With("skill_path", sk.Path).With("file", clean)
}

func orClaude(execution string) string {
	if execution == "" {
		return "claude"
	}
	return execution
}

// argHint names a script's arguments for the agent that runs it itself.
func argHint(sc skill.Script) string {
	if len(sc.Args) == 0 {
		return ""
	}
	var names []string
	for _, a := range sc.Args {
		names = append(names, skill.ArgEnv(a.Name))
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// arguments checks the arguments against the declaration and returns the
// SKILL_ARG_* variables, defaults applied.
func arguments(sk *catalog.Skill, clean string, sc skill.Script, given map[string]string) (map[string]string, error) {
	byEnv := make(map[string]string, len(given))
	for name, v := range given {
		byEnv[skill.ArgEnv(name)] = v
	}
	env := map[string]string{}
	var missing, described []string
	known := map[string]bool{}
	for _, a := range sc.Args {
		key := skill.ArgEnv(a.Name)
		known[key] = true
		if v, ok := byEnv[key]; ok {
			env[key] = v
			continue
		}
		if a.Default != nil {
			env[key] = *a.Default
			continue
		}
		if a.Required {
			missing = append(missing, a.Name)
			d := a.Name
			if a.Description != "" {
				d += " (" + a.Description + ")"
			}
			described = append(described, d)
		}
	}
	if len(missing) > 0 {
		they := "They are required: pass each of them in args."
		if len(missing) == 1 {
			they = "It is required: pass it in args."
		}
		return nil, failure.New(failure.InvalidArgument, ReasonMissingArguments,
			"missing required argument%s for script %s of skill %q: %s. %s", plural(len(missing)), clean, sk.Path, strings.Join(described, "; "), they).
			With("skill_path", sk.Path).With("file", clean).With("missing", strings.Join(missing, ","))
	}
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if !known[skill.ArgEnv(name)] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		var names []string
		for _, a := range sc.Args {
			names = append(names, a.Name)
		}
		decl := "none"
		if len(names) > 0 {
			decl = strings.Join(names, ", ")
		}
		shown := quoteAll(unknown)
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(unknown)-10))
			unknown = unknown[:10]
		}
		return nil, failure.New(failure.InvalidArgument, "",
			"script %s of skill %q does not declare the argument%s %s (it declares: %s)", clean, sk.Path, plural(len(shown)), strings.Join(shown, ", "), decl).
			With("skill_path", sk.Path).With("file", clean).With("unknown", strings.Join(unknown, ","))
	}
	total := 0
	for _, name := range slices.Sorted(maps.Keys(given)) {
		v := given[name]
		switch {
		case strings.IndexByte(v, 0) >= 0:
			return nil, failure.New(failure.InvalidArgument, "", "argument %q holds a NUL byte, which an environment variable cannot carry", name)
		case !utf8.ValidString(v):
			return nil, failure.New(failure.InvalidArgument, "", "argument %q is not valid UTF-8", name)
		case len(v) > maxArgBytes:
			return nil, failure.New(failure.InvalidArgument, "", "argument %q is %d bytes long; the most is %d", name, len(v), maxArgBytes)
		}
		total += len(v)
	}
	if total > maxTotalBytes {
		return nil, failure.New(failure.InvalidArgument, "", "the arguments hold %d bytes together; the most is %d", total, maxTotalBytes)
	}
	return env, nil
}

// runner returns the program and arguments that run a script with ext.
func (s *Sandbox) runner(sk *catalog.Skill, clean, ext string) (string, []string, error) {
	cmd := strings.Fields(s.opts.Runners[ext])
	if len(cmd) == 0 {
		return "", nil, failure.New(failure.FailedPrecondition, ReasonNoRunner,
			"script %s of skill %q cannot run: no runner is configured for %s files (scripts.runners)", clean, sk.Path, ext).
			With("skill_path", sk.Path).With("file", clean)
	}
	prog, err := lookPath(cmd[0], s.run.opts.Path)
	if err != nil {
		return "", nil, failure.New(failure.FailedPrecondition, ReasonNoRunner,
			"script %s of skill %q cannot run: its runner %q (scripts.runners %s) is not installed on the server: %s is not in the scripts' PATH",
			clean, sk.Path, s.opts.Runners[ext], ext, cmd[0]).
			With("skill_path", sk.Path).With("file", clean).With("runner", cmd[0]).Wrap(err)
	}
	return prog, cmd[1:], nil
}

// lookPath finds an executable program in the folders of pathList (absolute
// folders only: a relative one would depend on the working directory). A
// program given with a '/' must be an absolute path.
func lookPath(prog, pathList string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		if !filepath.IsAbs(prog) {
			return "", fmt.Errorf("%s: a runner given as a path must be absolute", prog)
		}
		if executable(prog) {
			return prog, nil
		}
		return "", fmt.Errorf("%s: not an executable file", prog)
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, prog); executable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found", prog)
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// workDir returns the working directory of a run: the skill's folder (the
// declaring skill's when sk has none) by default; a relative cwd is a folder
// inside it (confined like any file); an absolute one must lie inside the
// skill's folder or one of CwdAllow.
func (s *Sandbox) workDir(sk *catalog.Skill, ref catalog.ScriptRef, cwd string) (string, error) {
	base := sk
	if base.Dir == "" {
		base = ref.Owner
	}
	realBase, err := filepath.EvalSymlinks(base.Dir)
	if err != nil {
		return "", failure.New(failure.Internal, "", "resolving the folder of %s", base.Path).Wrap(err)
	}
	if cwd == "" {
		return realBase, nil
	}
	if filepath.IsAbs(cwd) {
		real, err := filepath.EvalSymlinks(filepath.Clean(cwd))
		if err != nil {
			return "", cwdError(sk, cwd, "does not exist")
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return "", cwdError(sk, cwd, "is not a folder")
		}
		for _, allowed := range append([]string{realBase}, s.opts.CwdAllow...) {
			if !filepath.IsAbs(allowed) {
				continue
			}
			realAllowed, err := filepath.EvalSymlinks(allowed)
			if err != nil {
				continue
			}
			if rel, err := filepath.Rel(realAllowed, real); err == nil && (rel == "." || filepath.IsLocal(rel)) {
				return real, nil
			}
		}
		return "", failure.New(failure.PermissionDenied, assets.ReasonInvalidPath,
			"cwd %s is outside the skill's folder and the folders the server allows (scripts.cwd_allow)", cwd).
			With("skill_path", sk.Path).With("cwd", cwd)
	}
	clean, err := assets.CheckPath("cwd", cwd)
	if err != nil {
		return "", withSkill(err, sk)
	}
	real, err := assets.ResolveDir(base.Source, base.Dir, clean)
	if err != nil {
		if failure.Is(err, failure.NotFound) {
			return "", cwdError(sk, cwd, "is not a folder of the skill")
		}
		return "", withSkill(err, sk)
	}
	return real, nil
}

func cwdError(sk *catalog.Skill, cwd, what string) error {
	return failure.New(failure.InvalidArgument, assets.ReasonInvalidPath, "cwd %s %s", strconv.Quote(cwd), what).
		With("skill_path", sk.Path).With("cwd", cwd)
}

func ownerPath(ref catalog.ScriptRef, sk *catalog.Skill) string {
	if ref.From != "" {
		return ref.From
	}
	return sk.Path
}

// withSkill adds the skill path to a failure's metadata.
func withSkill(err error, sk *catalog.Skill) error {
	if fe, ok := err.(*failure.Error); ok && fe.Kind != failure.Internal {
		fe.With("skill_path", sk.Path)
	}
	return err
}

// notStarted is Run's error when the Runner did not start a job: ctx's
// error once ctx has ended; else the Runner's refusal (a *failure.Error: no
// slot, no TMPDIR, no isolation) or else cannot's error wrapping err, either
// with the metadata attrs (key, value pairs) unless it is Internal. cannot
// is called only when its error is the answer.
func notStarted(ctx context.Context, err error, cannot func() *failure.Error, attrs ...string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	fe, refused := err.(*failure.Error)
	if !refused {
		fe = cannot().Wrap(err)
	}
	if fe.Kind != failure.Internal {
		for i := 0; i+1 < len(attrs); i += 2 {
			fe.With(attrs[i], attrs[i+1])
		}
	}
	return fe
}

func sortedExts(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

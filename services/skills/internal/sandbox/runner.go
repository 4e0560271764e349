package sandbox

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/defaults"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// ReasonIsolationUnavailable is the reason of the error a Runner returns
// when scripts.require_isolation is true and a kernel protection is missing.
const ReasonIsolationUnavailable = "ISOLATION_UNAVAILABLE"

// RunnerOptions configures a Runner: what every process the service starts
// shares, whether a script or a command. The zero value allows
// DefaultMaxConcurrent processes at once, with the default environment, no
// network for anyone and isolation reported rather than required.
type RunnerOptions struct {
	// MaxConcurrent caps the processes running at once, scripts and commands
	// together (scripts.max_concurrent); zero means DefaultMaxConcurrent.
	MaxConcurrent int
	// KillGrace is how long a process at its time limit has between SIGTERM
	// and SIGKILL; zero means DefaultKillGrace.
	KillGrace time.Duration
	// Path is the processes' PATH, where runners and commands are looked up;
	// empty means DefaultPath.
	Path string
	// Home is the processes' HOME; empty leaves HOME unset. It is not
	// readable under Landlock: a process keeps its files in TMPDIR.
	Home string
	// Lang is the processes' LANG; empty means DefaultLang.
	Lang string
	// TempDir holds each run's own TMPDIR; empty means os.TempDir().
	TempDir string
	// ReadPaths are absolute files and folders, besides the skill's folder
	// and the system's runtimes, that every process may read and execute
	// (scripts.read_paths): a toolchain installed outside /usr, say.
	ReadPaths []string
	// AllowNetwork lets a process whose skill declares network use open
	// connections (scripts.allow_network). Without it no process has a
	// network, whatever its skill declares.
	AllowNetwork bool
	// RequireIsolation refuses to start a process while a kernel protection
	// it should get is missing (scripts.require_isolation), instead of
	// starting it and saying what is missing.
	RequireIsolation bool
	// Logger receives the isolation found on this host, once; nil discards it.
	Logger *slog.Logger
}

// Runner starts every process of the service, scripts and commands alike:
// it takes one of its MaxConcurrent slots (refusing at once when none is
// free), gives the process a TMPDIR of its own and a minimal environment,
// confines it with what the kernel offers (see the package documentation),
// and runs it in a process group of its own. It is safe for concurrent use.
type Runner struct {
	opts RunnerOptions
	log  *slog.Logger
	sem  chan struct{}

	hostOnce sync.Once
	host     host
}

// NewRunner returns a Runner. The host's kernel is probed on first use.
func NewRunner(opts RunnerOptions) *Runner {
	defaults.Set(&opts.MaxConcurrent, DefaultMaxConcurrent)
	defaults.Set(&opts.KillGrace, DefaultKillGrace)
	if opts.Path == "" {
		opts.Path = DefaultPath
	}
	if opts.Lang == "" {
		opts.Lang = DefaultLang
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{opts: opts, log: log, sem: make(chan struct{}, opts.MaxConcurrent)}
}

// job is one process to start.
type job struct {
	// program is the program's absolute path; args its arguments (argv[1:]).
	program string
	args    []string
	// dir is the working directory.
	dir string
	// vars are the SKILL_ARG_* variables.
	vars map[string]string
	// read are the folders of the skill the process belongs to (real paths),
	// which it may read.
	read []string
	// network says the skill declares network use.
	network bool
	// timeout is the time limit; maxOutput caps stdout and stderr each.
	timeout   time.Duration
	maxOutput int64
}

// Isolation returns the protections a process without network use gets on
// this host, and the ones it lacks; Network says whether a skill that
// declares network use gets it (scripts.allow_network).
func (r *Runner) Isolation() Isolation {
	iso, _ := r.probed().plan(false)
	iso.Network = r.opts.AllowNetwork
	iso.Required = r.opts.RequireIsolation
	return iso
}

// probed returns the host's features, probing them on first use.
func (r *Runner) probed() *host {
	r.hostOnce.Do(func() {
		r.host = hostFeatures(r.opts.TempDir)
		iso, _ := r.host.plan(false)
		if len(iso.Missing) == 0 {
			r.log.Info("scripts and commands are isolated by the kernel", "protections", strings.Join(iso.InForce, ","))
			return
		}
		r.log.Warn("scripts and commands are not fully isolated on this host",
			"in_force", strings.Join(iso.InForce, ","), "missing", iso.missingText(), "require_isolation", r.opts.RequireIsolation)
	})
	return &r.host
}

// hostProbe is what the kernel under this process offers: a property of the
// host (and of whether the binary has the helper hook), probed once per
// process however many Runners it makes, since each probe starts two
// processes. Index 1 is the answer with the hook, 0 without.
var hostProbe struct {
	mu    sync.Mutex
	done  [2]bool
	hosts [2]host
}

// hostFeatures probes the host on the first call (tempDir is where the
// probe may write) and returns the same answer on every later one.
func hostFeatures(tempDir string) host {
	i := 0
	if hooked.Load() {
		i = 1
	}
	hostProbe.mu.Lock()
	defer hostProbe.mu.Unlock()
	if !hostProbe.done[i] {
		hostProbe.hosts[i], hostProbe.done[i] = probeHost(tempDir), true
	}
	return hostProbe.hosts[i]
}

// start runs j to its end and returns what happened, with the isolation it
// ran under. Errors are *failure.Error values for a refusal (no slot, no
// TMPDIR, isolation required but missing), or the error of a process that
// did not start.
func (r *Runner) start(ctx context.Context, j job) (*outcome, Isolation, error) {
	network := j.network && r.opts.AllowNetwork
	iso, mode := r.probed().plan(network)
	iso.Network = network
	iso.Required = r.opts.RequireIsolation
	if r.opts.RequireIsolation && len(iso.Missing) > 0 {
		return nil, iso, failure.New(failure.FailedPrecondition, ReasonIsolationUnavailable,
			"this server requires scripts and commands to be isolated by the kernel (scripts.require_isolation), and this host cannot give every protection: %s", iso.missingText()).
			With("missing", strings.Join(iso.MissingNames(), ","))
	}
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	default:
		return nil, iso, failure.New(failure.ResourceExhausted, "",
			"%d scripts and commands are already running, the most this server allows at once (scripts.max_concurrent); try again when one ends", cap(r.sem))
	}
	tmp, err := os.MkdirTemp(r.opts.TempDir, "skillsd-run-")
	if err != nil {
		return nil, iso, failure.New(failure.Internal, "", "creating the TMPDIR of a process").Wrap(err)
	}
	defer os.RemoveAll(tmp)
	c := command{
		path:       j.program,
		args:       j.args,
		dir:        j.dir,
		env:        minimalEnv(r.opts.Path, r.opts.Home, r.opts.Lang, tmp, j.vars),
		timeout:    j.timeout,
		grace:      r.opts.KillGrace,
		maxOutput:  j.maxOutput,
		cloneflags: mode.cloneflags,
	}
	if mode.helper {
		c.policy = r.policy(j, tmp, network, mode.abi)
	}
	o, err := run(ctx, c)
	return o, iso, err
}

// minimalEnv is the whole environment of every process the package starts
// (scripts and commands alike): PATH, HOME when known, LANG, the process's
// own TMPDIR, and vars (the SKILL_ARG_* variables) in a stable order.
// Nothing of the server's own environment is ever added here.
func minimalEnv(path, home, lang, tmp string, vars map[string]string) []string {
	env := []string{"PATH=" + path}
	if home != "" {
		env = append(env, "HOME="+home)
	}
	env = append(env, "LANG="+lang, "TMPDIR="+tmp)
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

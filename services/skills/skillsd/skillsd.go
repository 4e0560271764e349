// Package skillsd is the service's public entry point: it turns Options into a
// ready catalog and a gRPC server with every skills.v1 service, the standard
// health service and reflection, and serves it on a listener the caller owns.
// Binaries (skillsd, and the gateways in embedded mode) are thin wrappers over it.
// It reads no flags and, unless Options.Getenv is set, no environment.
package skillsd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/test/bufconn"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/accesslog"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/healthz"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/inproc"
	"github.com/skillsd/skillsd/services/skills/internal/refresh"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/search"
	"github.com/skillsd/skillsd/services/skills/internal/server"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
	"github.com/skillsd/skillsd/services/skills/logging"
)

// DefaultVersion is reported when Options.Version is empty.
const DefaultVersion = "0.1.0-dev"

// KindGit is the Kind of a source that is a git checkout.
const KindGit = refresh.KindGit

// Options configures a Server. The zero value serves the default discovery
// folders of the current directory and home directory, with no environment, no
// auth, and a discarded log.
type Options struct {
	// SkillsDirs are local source folders, in precedence order (on a name clash
	// the first wins). "~" and $VAR are expanded. Empty: SKILLS_DIR (through
	// Getenv), then the config file's sources, then default discovery
	// (./.agents/skills, ./.agent/skills, ./.claude/skills, then the same under
	// the home directory; see also Server.SetClientRoots).
	SkillsDirs []string
	// ConfigFile is a config.yaml to load; empty looks for config.yaml in the
	// first source folder and uses the defaults when there is none.
	ConfigFile string
	// Cwd is the directory default discovery starts from; empty is the process's
	// working directory.
	Cwd string
	// Home is the user's home directory; empty asks the OS.
	Home string
	// Getenv reads the environment (SKILLS_DIR, LOG_LEVEL, SKILLHUB_ENABLED_*,
	// …, and PATH, LANG and TMPDIR, which scripts receive); nil means no
	// environment at all (scripts then get the PATH /usr/local/bin:/usr/bin:/bin).
	Getenv func(string) string
	// Logger receives the log; nil discards it.
	Logger *slog.Logger
	// Version is the build's version, reported to clients; empty is DefaultVersion.
	Version string
	// AuthTokens are accepted bearer tokens given directly (a program or test
	// embedding the service): when set, calls need one of them, whatever the
	// configuration says. Empty: the configuration's authentication
	// (auth.*, then Edge.Flags; see Guard).
	AuthTokens []string
	// Edge guards the command's listener: Serve's, or a gateway's (Guard).
	Edge EdgeOptions
	// LogLevel, when not nil, is set to the configuration's log.level
	// (config.yaml, then LOG_LEVEL): a command passes the level of its log
	// handler, unless its --log-level flag fixed it.
	LogLevel *slog.LevelVar
	// LogFormat, when not nil, is set to the configuration's log.format
	// (config.yaml, then LOG_FORMAT): a command passes the format of its log
	// (package logging), unless its --log-format flag fixed it.
	LogFormat *logging.FormatVar
	// AgentsDir is the folder of agent profiles (seed 003); empty means
	// content.agents_dir (AGENTS_DIR), then the agents repository, else none.
	AgentsDir string
	// DocsDir is the documentation folder; empty means content.docs_dir
	// (DOCS_DIR), then the docs repository, else none.
	DocsDir string
	// NoWatch turns off the watching of local source folders (changes are
	// then seen only on RefreshSkills or skip_cache) and of the config file
	// (changes are then seen only at the next start). The zero value
	// watches both.
	NoWatch bool
	// WatchDebounce is how long local files must stay quiet after a change
	// before the catalog is rebuilt; 0 means 500 ms.
	WatchDebounce time.Duration
	// PollInterval is how often local folders are re-read where they cannot
	// be watched (inotify limits, network file systems); 0 means 30 s.
	PollInterval time.Duration
	// NoUsage turns usage analytics off whatever the configuration says: for
	// one-shot tools such as the skills CLI, whose searches and evaluation
	// runs are not anyone's usage. The zero value follows analytics.enabled
	// (on by default: the local store under the state folder).
	NoUsage bool
	// FollowExternalSymlinks lists folders outside the local skills folders
	// into which their symbolic links may lead (dotfiles set-ups such as
	// ~/.claude/skills/x -> ~/dotfiles/skills/x): the opt-in of the sources
	// given by SkillsDirs, SKILLS_DIR or default discovery ("~" and $VAR are
	// expanded; each must then be absolute). Empty: SKILLS_FOLLOW_EXTERNAL_SYMLINKS
	// (through Getenv, a path list like SKILLS_DIR); empty too, links are
	// followed only inside their source. The config file's sources have their
	// own key (sources[].follow_external_symlinks). Loops, devices and
	// anything outside the listed folders stay refused.
	FollowExternalSymlinks []string
	// RequireSkills makes New fail when the first catalog has no skills (a
	// missing or empty folder, a typo in its name), with the reason and the
	// folders searched: for services, which should not start serving
	// nothing. The zero value follows require_skills (off by default): an
	// empty catalog is then a warning on the log.
	RequireSkills bool
	// LoadInBackground makes New return before the first catalog is
	// built: it loads in the background, as during a first clone, while
	// the server already answers its health checks (NOT_SERVING) and its
	// RPCs refuse with "the catalog is loading". Callers that would rather
	// wait than be refused hold their calls with WaitScanned, which waits
	// for such a load (and not for a first clone). For a gateway in the
	// same process, such as skills-mcp, whose host lists the tools before
	// it needs a skill. Ignored with RequireSkills, whose empty catalog
	// must stop New.
	LoadInBackground bool
	// LoadAfter, when set, holds that background load until it is closed:
	// skills-mcp opens it once its host has listed the tools, so that the
	// load does not compete with the handshake for a busy machine's cores.
	// Calls waiting with WaitScanned wait for it too. Nil starts at once. A
	// warm start (Warm) does not wait for it: its load is short, and
	// starts in New (buildEarly).
	LoadAfter <-chan struct{}
	// WatchAfter, when set, holds the start of the file watcher until it
	// is closed: skills-mcp closes it once its host's first search is
	// answered, so that setting up a watch on every folder does not share
	// the cores with that search. The watcher looks for what changed
	// meanwhile once its watches are in place. Nil starts it with the
	// first catalog.
	WatchAfter <-chan struct{}
	// UsageAfter, when set, holds the opening of the local usage store
	// (SQLite under the state folder), and the delivery of what earlier
	// processes spooled, until it is closed or a call needs the store:
	// skills-mcp over stdio closes it once its host's first search is
	// answered, so that a start does not open a database before its first
	// answers. A store that then does not open turns analytics off, as it
	// does at start, and is logged. A PostgreSQL store or an endpoint
	// (analytics.store, analytics.endpoint) is opened in New whatever this
	// says: a server that cannot deliver them does not start. Nil opens the
	// store in New.
	UsageAfter <-chan struct{}
	// AccessLog writes one info line per call (package accesslog): for a
	// service on a network listener. The zero value logs calls at debug
	// level only, as a gateway's in-process calls and stdio MCP want.
	AccessLog bool
	// Metrics, when set, receives the service's metrics (package metrics:
	// per-call gRPC counts and latencies, the catalog's gauges, usage
	// spool and script counters); the command serves it on --metrics. Nil
	// measures nothing.
	Metrics prometheus.Registerer

	// scanGate, when set (tests, GateScans), holds each round of the
	// background security scan until it receives or is closed.
	scanGate <-chan struct{}
}

// Server is a ready catalog and the gRPC server that serves it.
type Server struct {
	opts    Options
	log     *slog.Logger
	cfg     config.Config
	cfgFile string
	getenv  func(string) string

	// guard is the listener's policy, resolved on first use (Guard).
	guardOnce sync.Once
	guard     *edge.Guard
	guardErr  error
	store     *catalog.Store
	grpc      *grpc.Server
	hs        *health.Server

	// cwd and home are where default discovery looks; sources are the
	// skill sources New resolved (Discovered: client roots apply).
	cwd, home string
	sources   refresh.Sources

	// fresh keeps the catalog current: the sources, their builds, git
	// repositories, watcher, periodic refresh.
	fresh *refresh.Refresher
	// scans is the background security scan (scanjob.go).
	scans scanJob
	// scanFlush writes the scan cache after builds (flushScansLater).
	scanFlush scanFlush
	// content serves agents and docs.
	content *contentSetup

	// ready is closed once the first catalog is loaded; until then loading
	// says why RPCs are refused. stopLoading ends a background load and
	// loadWG waits for it.
	ready chan struct{}
	// scanned is closed once the first catalog's skills are all scanned
	// (scannedOnce): at once when its build scanned them, after the background
	// scan otherwise (scanjob.go). Readiness waits for both (readyMu guards
	// isLoaded and isScanned, and the order of setReady's calls).
	scanned     chan struct{}
	scannedOnce sync.Once
	readyMu     sync.Mutex
	isLoaded    bool
	isScanned   bool
	loading     atomic.Pointer[string]
	stopLoading context.CancelFunc
	loadWG      sync.WaitGroup
	// early is the first catalog's build when New started it before the
	// rest of the service (a warm start, loaded in the background:
	// buildEarly); the load takes its result. Nil otherwise.
	early *earlyBuild
	// loadDone is closed when a load New left to the background
	// (Options.LoadInBackground) ends, loaded or not; nil otherwise.
	loadDone chan struct{}
	// config follows the config file loaded (nil without one).
	config *configWatch

	// usage records usage events; nil when analytics is off.
	usage *usage.Recorder
	// sem is the semantic search engine; nil with embedding.provider none.
	sem *embed.Engine
	// scanner scans every skill before it is served (security.*).
	scanner *scan.Scanner
	// held keeps what the builds parsed and hashed for the first build of
	// the next start (catalog.Cache); nil without a state folder.
	held *catalog.Cache
	// searchCache keeps the search index's text analysis (searchcache.go).
	searchCache *search.AnalysisCache

	// calls and unary answer ConnectTrusted's unary calls in process: the
	// services' handlers, and the interceptors every call runs through.
	calls *inproc.Registrar
	unary []grpc.UnaryServerInterceptor

	mu      sync.Mutex
	conns   []*grpc.ClientConn
	inproc  *bufconn.Listener
	trusted *bufconn.Listener
	closed  bool
	closeCh chan struct{}
}

// New loads the configuration and the catalog and prepares the gRPC server. A
// source folder that does not exist is a diagnostic, not an error: the server
// starts with whatever it could load. Invalid configuration is an error that
// names the key.
func New(ctx context.Context, opts Options) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	getenv, home, cwd, err := opts.environment()
	if err != nil {
		return nil, err
	}

	env := refresh.Env{Getenv: getenv, Cwd: cwd, Home: home}
	given := refresh.Dirs(opts.SkillsDirs, env)
	cfg, cfgFile, err := loadConfig(opts.ConfigFile, given, getenv)
	if err != nil {
		return nil, err
	}
	if opts.LogLevel != nil {
		level, _ := config.ParseLogLevel(cfg.Log.Level) // validated
		opts.LogLevel.Set(level)
	}
	if opts.LogFormat != nil {
		opts.LogFormat.Set(cfg.Log.Format) // validated
	}
	local := refresh.Local{Dirs: given, FollowKey: "FollowExternalSymlinks", Follow: opts.FollowExternalSymlinks}
	if len(local.Follow) == 0 {
		local.FollowKey, local.Follow = "SKILLS_FOLLOW_EXTERNAL_SYMLINKS", filepath.SplitList(getenv("SKILLS_FOLLOW_EXTERNAL_SYMLINKS"))
	}
	// One syncer per repository, for the skills, agents and docs alike.
	gitRepos := refresh.ReposOf(cfg, env, log)
	sources, err := refresh.Resolve(cfg, env, gitRepos, local)
	if err != nil {
		return nil, err
	}

	opts.Logger = log
	sc, err := newScanner(cfg, cwd, home, getenv)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, log: log, cfg: cfg, cfgFile: cfgFile, getenv: getenv, store: &catalog.Store{}, closeCh: make(chan struct{}),
		cwd: cwd, home: home, sources: sources, scanner: sc, held: newCatalogCache(cfg, getenv, home, opts.Version, log),
	}
	if cfgFile != "" {
		s.config = newConfigWatch(cfgFile, cfg, opts, getenv, log)
	}
	s.ready = make(chan struct{})
	s.scanned = make(chan struct{})
	// What the last process kept is read from now on, beside the rest of
	// the start, for the first build: a start with caches then walks the
	// sources as soon as it loads, with nothing left to read in front of
	// the walk. The files are read one after the other, in the order the
	// build needs them: the catalog (its walk checks the files against
	// it), the scans (taken at the build's end), the search index (taken
	// after the build). Read all at once, on two cores, the catalog's
	// decode shared them with the other two and the walk started later: a
	// warm start of 387 skills answered its first search 9 ms later
	// (alternated, 12 starts each).
	s.searchCache = openSearchCache(cfg, getenv, home, opts.Version)
	go func() {
		s.held.Preload()
		s.scanner.Preload()
		s.searchCache.Preload()
	}()

	cont, err := newContent(opts, cfg, cwd, home, getenv, gitRepos, log)
	if err != nil {
		return nil, err
	}
	s.content = cont
	var interval time.Duration
	if cfg.Refresh.Enabled {
		interval = cfg.Refresh.Interval()
	}
	s.fresh = refresh.New(refresh.Options{
		Store:         s.store,
		Roots:         sources.Roots,
		Git:           sources.Git,
		Content:       cont.syncers,
		OnContent:     cont.store.Reload,
		Interval:      interval,
		NoWatch:       opts.NoWatch,
		WatchAfter:    opts.WatchAfter,
		WatchDebounce: opts.WatchDebounce,
		PollInterval:  opts.PollInterval,
		Build: func(ctx context.Context, roots []*source.Root, dirty []string) (*catalog.Snapshot, error) {
			snap, err := catalog.Build(ctx, roots, s.buildOptions(dirty))
			if err == nil {
				s.held.Keep(snap) // written in the background
			}
			return snap, err
		},
		AfterBuild: func() {
			s.flushScansLater()
			s.scanLater()
		},
		Logger: log,
	})
	// A warm start that loads in the background builds its first catalog
	// from here on, beside the rest of its start (the usage store, the
	// service, the host's handshake): its build mostly checks the files
	// against what the last process kept, and the host's first search
	// waits for it. A first start waits for LoadAfter instead, so that its
	// longer build does not compete with the handshake.
	if opts.LoadInBackground && !s.requireSkills() && s.Warm() && len(s.fresh.FirstClones()) == 0 {
		s.early = s.buildEarly()
	}
	if s.sem, err = openSemantic(cfg, getenv, home, log); err != nil {
		s.early.stop()
		return nil, err
	}
	if !opts.NoUsage {
		if s.usage, err = openUsage(ctx, cfg, getenv, home, opts.UsageAfter, log); err != nil {
			s.early.stop()
			if s.sem != nil {
				s.sem.Close()
			}
			return nil, err
		}
	}
	run := processRunner(cfg, home, cwd, getenv, log)
	svc := server.New(server.Options{
		Store:            s.store,
		Refresher:        s.fresh,
		Filter:           catalog.Filter{EnabledSkills: cfg.Filters.EnabledSkills, EnabledCategories: cfg.Filters.EnabledCategories},
		Version:          opts.Version,
		MatchingStrategy: cfg.Matching.Strategy,
		Routing:          routing(cfg),
		Files:            fileReader(cfg),
		Scripts:          scriptSandbox(cfg, home, cwd, getenv, run, log),
		Commands:         commandRunner(cfg, run, log),
		Content:          cont.store,
		Usage:            s.usage,
		Logger:           log,
		Semantic:         s.sem,
		PrivateDirs:      privateDirs(cfg, cfgFile, getenv, home),
		Scanner:          s.scanner,
		SearchCache:      s.searchCache,
		Config:           s.configState(),
	})
	unary, stream := svc.Interceptors(log, server.Policy{Check: s.checkCall, Hide: s.hideCall})
	// While the first catalog loads, RPCs answer UNAVAILABLE, saying so.
	readyUnary, readyStream := server.ReadinessInterceptors(s.loadingMessage)
	unary, stream = append(unary, readyUnary), append(stream, readyStream)
	if opts.AccessLog {
		// Outermost, so that refused calls are logged too.
		unary = append([]grpc.UnaryServerInterceptor{accesslog.UnaryServerInterceptor(log)}, unary...)
		stream = append([]grpc.StreamServerInterceptor{accesslog.StreamServerInterceptor(log)}, stream...)
	}
	if opts.Metrics != nil {
		// Outermost of all, so that every call is counted and timed.
		mu, ms := s.metricsInterceptors(opts.Metrics, svc)
		unary, stream = append(mu, unary...), append(ms, stream...)
	}
	s.grpc = grpc.NewServer(grpc.ChainUnaryInterceptor(unary...), grpc.ChainStreamInterceptor(stream...))
	s.calls, s.unary = inproc.NewRegistrar(s.grpc), unary
	skillsv1.RegisterCatalogServiceServer(s.calls, svc)
	skillsv1.RegisterRoutingServiceServer(s.calls, svc)
	skillsv1.RegisterFileServiceServer(s.calls, svc)
	skillsv1.RegisterScriptServiceServer(s.calls, svc)
	skillsv1.RegisterUsageServiceServer(s.calls, svc)
	skillsv1.RegisterContentServiceServer(s.calls, svc)
	s.hs = health.NewServer()
	healthpb.RegisterHealthServer(s.calls, s.hs)
	reflection.Register(s.grpc)
	// Liveness: SERVING for as long as the server serves; readiness (""
	// and every skills.v1 service) once the catalog is loaded (setReady).
	s.hs.SetServingStatus(healthz.LivenessService, healthpb.HealthCheckResponse_SERVING)

	// Load the first catalog. A git repository that was never cloned is
	// cloned in the background: the server can serve at once, its health
	// NOT_SERVING and its RPCs UNAVAILABLE ("the catalog is loading") until
	// the catalog is in, instead of keeping its ports closed for the whole
	// clone. Otherwise (local folders, or clones to update) it loads here.
	if clones := s.fresh.FirstClones(); len(clones) > 0 {
		msg := "the catalog is loading (cloning " + strings.Join(clones, ", ") + " for the first time); try again in a moment"
		log.Info("serving while the catalog loads: cloning the git sources for the first time", "repositories", clones)
		s.loadLater(svc, msg, nil)
		return s, nil
	}
	if opts.LoadInBackground && !s.requireSkills() {
		s.loadDone = make(chan struct{})
		s.loadLater(svc, "the catalog is loading; try again in a moment", s.loadDone)
		return s, nil
	}
	if err := s.load(ctx, svc); err != nil {
		s.closeParts()
		return nil, err
	}
	s.setLoaded()
	return s, nil
}

// Warm reports whether this start has the catalog cache of an earlier one:
// its first load then mostly reads what that one kept, and is short.
func (s *Server) Warm() bool { return s.held.Exists() }

// earlyBuild is a first catalog build started by New (buildEarly).
type earlyBuild struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
}

// buildEarly starts the first catalog's build (the git sources' start-up
// sync, then the build) in the background.
func (s *Server) buildEarly() *earlyBuild {
	ctx, cancel := context.WithCancel(context.Background())
	e := &earlyBuild{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(e.done)
		defer cancel()
		s.fresh.SyncAtStart(ctx)
		e.err = s.fresh.Rebuild(ctx)
	}()
	return e
}

// wait waits for the build and returns its error; when ctx ends first, it
// stops the build and returns ctx's error.
func (e *earlyBuild) wait(ctx context.Context) error {
	select {
	case <-e.done:
		return e.err
	case <-ctx.Done():
		e.stop()
		return ctx.Err()
	}
}

// stop stops the build and waits for it to end (nothing on a nil build).
func (e *earlyBuild) stop() {
	if e == nil {
		return
	}
	e.cancel()
	<-e.done
}

// loadLater loads the first catalog in the background, its RPCs refused
// with msg until it is in; done, when not nil, is closed when the load ends.
func (s *Server) loadLater(svc *server.Service, msg string, done chan struct{}) {
	s.loading.Store(&msg)
	s.setReady(false)
	lctx, cancel := context.WithCancel(context.Background())
	s.stopLoading = cancel
	s.loadWG.Go(func() {
		defer cancel()
		if done != nil {
			defer close(done)
		}
		if s.opts.LoadAfter != nil && s.early == nil {
			select {
			case <-s.opts.LoadAfter:
			case <-lctx.Done():
				return
			}
		}
		if err := s.load(lctx, svc); err != nil {
			if lctx.Err() == nil {
				s.log.Error("loading the catalog failed", "error", err)
			}
			return
		}
		s.setLoaded()
	})
}

// load synchronises the git sources and the content repositories, builds
// the first catalog, and starts what keeps it fresh; then the server is
// ready (WaitReady).
func (s *Server) load(ctx context.Context, svc *server.Service) error {
	start := time.Now()
	if e := s.early; e != nil {
		if err := e.wait(ctx); err != nil {
			return err
		}
	} else {
		s.fresh.SyncAtStart(ctx)
		if err := s.fresh.Rebuild(ctx); err != nil {
			return err
		}
	}
	snap := s.store.Current()
	s.log.Info("catalog loaded", "skills", len(snap.Skills()), "sources", len(s.fresh.Roots()), "diagnostics", len(snap.Diagnostics()), "duration", time.Since(start))
	// Empty: a warning saying why, or the error that stops the start
	// (--require-skills); after a first clone in the background, the error
	// is logged and the server stays not ready.
	if err := s.checkNotEmpty(snap); err != nil {
		return err
	}
	// The search index (and, with semantic search, the embeddings) of each
	// catalog is built as it comes, not inside the first search after it.
	s.prepareRouting(svc)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("skillsd: closed while loading")
	}
	s.fresh.Start()
	if s.config != nil && !s.opts.NoWatch {
		s.fresh.Go(s.config.run)
	}
	s.scanLater() // the first scan, when the build left skills pending
	s.loading.Store(nil)
	close(s.ready)
	return nil
}

// loadingMessage says why RPCs cannot be answered yet; "" once the first
// catalog is loaded.
func (s *Server) loadingMessage() string {
	if m := s.loading.Load(); m != nil {
		return *m
	}
	return ""
}

// WaitReady waits until the server is ready, as its readiness reports it:
// the first catalog is loaded (at once when New loaded it itself; after the
// first clone of a git source otherwise) and its skills are scanned (at once
// when the build scanned them; after the background scan of a large catalog
// the scanner never saw otherwise). It returns ctx's error when ctx ends
// first, and an error when the server is closed.
func (s *Server) WaitReady(ctx context.Context) error {
	for _, ch := range []chan struct{}{s.ready, s.scanned} {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closeCh:
			return errors.New("skillsd: server is closed")
		}
	}
	return nil
}

// setReady sets the readiness the health service reports: for the overall
// server ("") and for the name of every skills.v1 service, SERVING once the
// catalog is loaded and its skills scanned, NOT_SERVING before (during a
// first clone, or the first background scan: setLoaded, firstScanDone). Liveness
// (healthz.LivenessService) is apart: it stays SERVING until the server
// stops.
func (s *Server) setReady(ready bool) {
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if ready {
		st = healthpb.HealthCheckResponse_SERVING
	}
	s.hs.SetServingStatus("", st)
	for name := range s.grpc.GetServiceInfo() {
		if strings.HasPrefix(name, "skills.v1.") {
			s.hs.SetServingStatus(name, st)
		}
	}
}

// configState reports the config file's state to the service; nil without
// a config file.
func (s *Server) configState() func() server.ConfigState {
	if s.config == nil {
		return nil
	}
	return s.config.State
}

// routing is the search and match configuration of cfg.
func routing(cfg config.Config) server.Routing {
	cut := cfg.Search.Threshold
	if cut == 0 {
		cut = -1 // search.threshold 0 keeps every hit; the index reads 0 as "its default"
	}
	return server.Routing{
		Match: search.Thresholds{
			MinScore:           cfg.Matching.MinScore,
			AmbiguityThreshold: cfg.Matching.AmbiguityThreshold,
			MaxResults:         cfg.Matching.MaxResults,
		},
		SearchLimit:     cfg.Search.Limit,
		SearchThreshold: cut,
		StopWords:       cfg.Search.StopWords,
	}
}

// environment returns what Options says of the process's environment:
// Getenv (else one that finds nothing), Home (else the user's home folder)
// and Cwd (else the working directory).
func (opts Options) environment() (getenv func(string) string, home, cwd string, err error) {
	getenv = opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	home = opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	cwd = opts.Cwd
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, "", "", fmt.Errorf("finding the working directory: %w", err)
		}
	}
	return getenv, home, cwd, nil
}

// loadConfig applies defaults < config file < environment. It returns the
// file it loaded ("" for none).
func loadConfig(file string, dirs []string, getenv func(string) string) (config.Config, string, error) {
	cfg := config.Default()
	if file == "" && len(dirs) > 0 {
		if p, ok := config.Find(dirs[0]); ok {
			file = p
		}
	}
	if file != "" {
		var err error
		if cfg, err = config.Load(file); err != nil {
			return cfg, file, err
		}
	}
	if err := cfg.ApplyEnv(getenv); err != nil {
		return cfg, file, err
	}
	return cfg, file, nil
}

// SetClientRoots tells the server which folders the client declares as its
// roots (an MCP client's roots/list answer, as absolute local paths: callers
// convert file:// URIs). When the sources come from default discovery, the
// skills folders of those roots (.agents/skills, .agent/skills and
// .claude/skills) go before the working directory's, which go before the home
// directory's; each call replaces the previous call's roots, and an empty list
// goes back to the working and home directories alone. If that changes the
// sources, the catalog is rebuilt and swapped in; if the build fails (ctx ends),
// the previous sources and catalog stay and the error is returned.
//
// Paths that are not absolute are ignored. When the sources were configured
// (Options.SkillsDirs, SKILLS_DIR or the config file's sources), client roots
// do not apply: SetClientRoots does nothing and returns nil. It is safe for
// concurrent use, with itself and with reloads.
func (s *Server) SetClientRoots(ctx context.Context, roots []string) error {
	if !s.sources.Discovered {
		s.log.Debug("ignoring the client's roots: the skill sources are configured", "roots", roots)
		return nil
	}
	next, dirs, ignored := s.sources.ClientRoots(roots)
	for _, r := range ignored {
		s.log.Debug("ignoring a client root that is not an absolute path", "root", r)
	}
	start := time.Now()
	changed, err := s.fresh.SetRoots(ctx, next)
	if err != nil {
		return err
	}
	if !changed {
		s.log.Debug("client roots leave the skill sources unchanged", "roots", dirs)
		return nil
	}
	snap := s.store.Current()
	s.log.Info("catalog reloaded for the client's roots", "roots", dirs, "sources", len(next),
		"skills", len(snap.Skills()), "diagnostics", len(snap.Diagnostics()), "duration", time.Since(start))
	return nil
}

// Serve serves gRPC on lis until ctx is done or Close is called, then stops
// gracefully (waiting up to 5 s for calls in flight). It returns nil after such
// a stop. The caller owns lis's address; Serve closes lis.
//
// lis goes through Guard first: Serve refuses an address that is not
// loopback when no authentication is configured (an *edge.UnsafeError),
// serves TLS when a certificate is configured, and hides absolute paths from
// the answers on lis when the policy asks.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	lis, err := s.serveListener(lis)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- s.grpc.Serve(lis) }()
	select {
	case err := <-errc:
		if errors.Is(err, grpc.ErrServerStopped) {
			return nil
		}
		return err
	case <-ctx.Done():
	case <-s.closeCh:
	}
	s.stop()
	<-errc
	return nil
}

// DialInProcess serves the server on an in-memory listener and returns a client
// connection to it: the embedded mode of the gateways. The connection is closed
// by Close.
func (s *Server) DialInProcess(ctx context.Context) (*grpc.ClientConn, error) {
	return s.dialMemory(&s.inproc, nil)
}

// dialMemory serves the server on the in-memory listener *lis (made on
// first use; mark, when not nil, gives its connections a local address of
// their own) and returns a connection to it, closed by Close.
func (s *Server) dialMemory(lis **bufconn.Listener, mark func(net.Addr) net.Addr, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("skillsd: server is closed")
	}
	if *lis == nil {
		*lis = bufconn.Listen(1 << 20)
		var served net.Listener = *lis
		if mark != nil {
			served = markedListener{Listener: *lis, mark: mark}
		}
		go func() { _ = s.grpc.Serve(served) }()
	}
	l := *lis
	conn, err := grpc.NewClient("passthrough:///skillsd-inprocess", append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return l.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("skillsd: dialing in-process: %w", err)
	}
	s.conns = append(s.conns, conn)
	return conn, nil
}

// Close stops serving and releases the server's resources. It is safe to call
// more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closeCh)
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	if s.stopLoading != nil {
		s.stopLoading()
	}
	s.loadWG.Wait()
	for _, c := range conns {
		_ = c.Close()
	}
	s.stop()
	s.closeParts()
	s.closeSearchCache()
	return nil
}

// closeParts writes the scan cache, closes the semantic engine and the usage
// recorder, and writes the catalog cache. No build runs any more.
func (s *Server) closeParts() {
	s.closeScanFlush()
	if s.sem != nil {
		s.sem.Close()
	}
	if err := s.held.Close(); err != nil {
		s.log.Warn("could not keep the catalog for the next start", "error", err)
	}
	if err := s.usage.Close(); err != nil {
		s.log.Warn("closing the usage recorder", "err", err)
	}
}

func (s *Server) stop() {
	// End the change streams first: a graceful stop waits for every stream.
	s.store.Close()
	s.fresh.Stop()
	s.hs.Shutdown()
	done := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.grpc.Stop()
	}
}

// ParseLogLevel reads a log level the way every binary accepts it (the flag, or
// LOG_LEVEL): debug, info, warn (or warning) or error, in any case; empty is info.
func ParseLogLevel(s string) (slog.Level, error) {
	if strings.TrimSpace(s) == "" {
		return slog.LevelInfo, nil
	}
	return config.ParseLogLevel(s)
}

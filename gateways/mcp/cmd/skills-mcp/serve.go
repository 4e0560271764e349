package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/upstream"
	"github.com/skillsd/skillsd/services/skills/userpath"
)

// serve connects to the service, builds the MCP server and serves it until
// the client leaves (stdio) or ctx ends. Over HTTP the listener is opened
// first, through the guard (http.go), so that the connection to the service
// knows whether answers hide paths.
func serve(ctx context.Context, o options, stdin io.Reader, stdout io.Writer, getenv func(string) string, log *slog.Logger, lv logVars) error {
	o.metrics = newMetrics(o.metricsAddr)
	o.handshake = newHandshake(handshakeWait)
	defer o.handshake.open()
	svc, err := connect(ctx, o, getenv, log, lv)
	if err != nil {
		return err
	}
	defer svc.close()
	// What waits for the embedded catalog (it loads in the background) ends
	// with the session, loaded or not.
	bg, stopBG := context.WithCancel(ctx)
	var bgDone sync.WaitGroup
	defer func() { stopBG(); bgDone.Wait() }()
	var web *httpEdge
	if o.httpAddr != "" {
		if web, err = openHTTP(o, svc, getenv, log); err != nil {
			return err
		}
		defer web.lis.Close()
	}
	var conn gatewayConn
	if web == nil && svc.connectLocal != nil {
		conn, err = svc.connectLocal()
	} else {
		conn, err = svc.dial(web.dialOptions()...)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	// The status line (skills, errors, version) is only logged: it is read
	// beside serving, not before it, and statusDelay after the catalog is
	// ready, so that neither the host's first requests nor the first answers
	// wait for it (GetCatalogStatus probes the kernel's script isolation,
	// starting processes).
	start := time.Now()
	bgDone.Go(func() {
		if svc.waitScanned(bg) != nil {
			return
		}
		took := time.Since(start).Round(time.Millisecond)
		select {
		case <-bg.Done():
			return
		case <-time.After(statusDelay):
		}
		logStatus(bg, conn, log, svc.remote, append(svc.ready, "took", took)...)
	})
	mopts := mcpgw.Options{Logger: log, Version: buildVersion()}
	if err := applyProfile(&mopts, o, svc, getenv, log); err != nil {
		return err
	}
	if svc.setClientRoots != nil {
		mopts.OnClientRoots = func(ctx context.Context, roots []string) {
			if err := svc.setClientRoots(ctx, roots); err != nil && ctx.Err() == nil {
				log.Warn("reloading the skills for the MCP client's roots", "roots", roots, "error", err)
			}
		}
	}
	// Catalog changes become MCP notifications for as long as we serve.
	changes := mcpgw.NewCatalogWatch()
	mopts.CatalogWatch = changes
	server, err := mcpgw.New(conn, mopts)
	if err != nil {
		return err
	}
	o.handshake.ready = svc.waitScanned
	server.AddReceivingMiddleware(o.handshake.middleware)
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		if err := changes.Run(watchCtx); err != nil {
			log.Warn("following catalog changes", "error", err)
		}
	}()
	defer func() { stopWatch(); <-watchDone }()
	if web != nil {
		return serveHTTP(ctx, server, conn, web, log)
	}
	log.Info("serving MCP on stdio")
	err = server.Run(ctx, mcpgw.StdioTransport(stdin, stdout))
	if ctx.Err() != nil {
		return nil // stopped by a signal
	}
	return err
}

// statusDelay is how long after the catalog is ready its status line is
// read and logged.
const statusDelay = time.Second

// handshakeWait is how long the embedded catalog's load waits for the MCP
// host to list the tools before it starts anyway.
const handshakeWait = 200 * time.Millisecond

// handshake opens once the MCP host has listed the tools (or sent any
// other request but initialize), or handshakeWait after the start: the
// embedded catalog loads then (skillsd.Options.LoadAfter), so that on a busy
// machine its load does not compete with the host's first requests, which
// need no catalog. (A warm start does not wait for it: skillsd.Options.LoadAfter.)
type handshake struct {
	done chan struct{}
	// mu guards opened and timer (the timer's own goroutine opens it too).
	mu     sync.Mutex
	opened bool
	timer  *time.Timer
	// ready, when set, waits for the catalog (loaded and scanned): a
	// request that needs it waits here, before its tool or handler starts
	// the time it has for its calls (a first scan of a large catalog can
	// take longer than one call may).
	ready func(ctx context.Context) error
	// answered is closed once the first request that needed the catalog
	// has been answered.
	answered     chan struct{}
	answeredOnce sync.Once
	// busy counts the requests in progress, and last is when the last one
	// ended (Unix nanoseconds): quiet reads them.
	busy atomic.Int64
	last atomic.Int64
}

func newHandshake(wait time.Duration) *handshake {
	h := &handshake{done: make(chan struct{}), answered: make(chan struct{})}
	h.last.Store(time.Now().UnixNano())
	h.mu.Lock()
	defer h.mu.Unlock()
	h.timer = time.AfterFunc(wait, h.open)
	return h
}

// open lets the load start; it may be called any number of times.
func (h *handshake) open() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.opened {
		return
	}
	h.opened = true
	h.timer.Stop()
	close(h.done)
}

// middleware opens the handshake after answering tools/list, and before
// any other request but initialize; a request other than those and ping
// then waits for the catalog (ready), which must be loading.
func (h *handshake) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		h.busy.Add(1)
		defer func() {
			h.last.Store(time.Now().UnixNano())
			h.busy.Add(-1)
		}()
		switch method {
		case "initialize", "notifications/initialized", "ping":
			return next(ctx, method, req)
		case "tools/list":
			res, err := next(ctx, method, req)
			h.open()
			return res, err
		}
		h.open()
		if h.ready == nil || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		if err := h.ready(ctx); err != nil {
			return nil, err
		}
		defer h.answeredOnce.Do(func() { close(h.answered) })
		return next(ctx, method, req)
	}
}

// quiet says how long no request has been in progress: 0 while one is.
func (h *handshake) quiet() time.Duration {
	if h.busy.Load() > 0 {
		return 0
	}
	return max(time.Since(time.Unix(0, h.last.Load())), 0)
}

// startGrace is how long after the embedded catalog is in the start ends
// (endStart) when no request has needed it yet, and how long after that the
// start's later work waits at most for a quiet moment (quietGap).
const startGrace = time.Second

// quietGap is how long the host must have had no request in progress for
// the start's later work (a watch on every folder, the usage store's
// opening) to run after the first answer. A host's first searches often
// come in a burst: that work then waits for its end, instead of sharing
// the two cores with it. Between two calls of a burst the host waits for
// nothing but the answer (under a millisecond); a model reading one takes
// seconds. The start's tuning (its collections, its heap) ends with the
// first answer all the same: left on, the collector would run only at the
// memory limit through the burst.
const quietGap = 20 * time.Millisecond

// endStart runs ends once the start is over: the embedded catalog is loaded
// and scanned (wait) and the first request that needed it has been answered
// (answered closed), or grace (startGrace) has passed since the catalog came
// in; at once when ctx ends or the wait fails. It then runs later once no
// request has been in progress for gap (quiet, nil for no such wait;
// quietGap), or grace has passed since the start's end. Ended with the
// catalog, the start's tuning (the collector off, huge pages) brought a
// collection, and the file watcher a watch on every folder, that shared the
// two cores with the host's first search: at 387 skills that answer came
// 87 -> 72 ms after the start when the tuning ends after it, and 79 -> 76
// ms when the watcher starts after it too (alternated, 16 warm starts
// each).
func endStart(ctx context.Context, wait func(context.Context) error, answered <-chan struct{}, grace time.Duration, ends []func(),
	quiet func() time.Duration, gap time.Duration, later []func()) {
	waited := wait(ctx) == nil
	if waited {
		t := time.NewTimer(grace)
		select {
		case <-answered:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	for _, end := range ends {
		end()
	}
	if waited {
		t := time.NewTimer(grace)
		waitQuiet(ctx, quiet, gap, t.C)
		t.Stop()
	}
	for _, end := range later {
		end()
	}
}

// waitQuiet returns once quiet reports gap or more (at once for a nil
// quiet), deadline fires or ctx ends.
func waitQuiet(ctx context.Context, quiet func() time.Duration, gap time.Duration, deadline <-chan time.Time) {
	if quiet == nil {
		return
	}
	for {
		q := quiet()
		if q >= gap {
			return
		}
		t := time.NewTimer(max(gap-q, time.Millisecond))
		select {
		case <-t.C:
		case <-deadline:
			t.Stop()
			return
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// logVars are the log level and format the embedded service sets from its
// configuration; nil when a flag fixed them.
type logVars struct {
	level  *slog.LevelVar
	format *logging.FormatVar
}

// gatewayConn is the MCP server's connection to the service.
type gatewayConn interface {
	grpc.ClientConnInterface
	Close() error
}

// service is the skills service the MCP server talks to.
type service struct {
	// dial connects to it (the options mark calls whose answers hide paths).
	dial func(opts ...grpc.DialOption) (*grpc.ClientConn, error)
	// connectLocal, set for an embedded service, connects to it in process
	// (skillsd.Server.ConnectTrusted: unary calls run its handlers behind
	// its interceptors, without encoding or transport); over stdio it is
	// used instead of dial, whose answers it gives.
	connectLocal func() (gatewayConn, error)
	// ready is what logStatus says once connected.
	ready []any
	// remote says the service is a skillsd elsewhere (--server): its empty
	// catalog is reported here, an embedded one's by the service itself.
	remote bool
	// close stops the service when it is embedded.
	close func()
	// waitScanned waits until an embedded service's first catalog is
	// loaded and scanned; nil at once for a remote one.
	waitScanned func(ctx context.Context) error
	// setClientRoots hands the MCP client's roots to the embedded service's
	// default discovery (it does nothing when folders are configured); nil for
	// a remote service, whose folders are its own. With several HTTP sessions,
	// the last roots listed win.
	setClientRoots func(ctx context.Context, roots []string) error
	// settings are the MCP settings of the embedded service's configuration
	// (mcp.profile, commands.enabled); nil for a remote service.
	settings *skillsd.MCPSettings
	// guard is the HTTP listener's policy: the embedded service's
	// configuration and the flags, or the environment and the flags (http.go).
	guard func() (*edge.Guard, error)
	// http is the mcp.http settings of the configuration (or environment).
	http func() (skillsd.MCPHTTPSettings, error)
}

// connect returns the service: an embedded one, or a remote one with --server.
func connect(ctx context.Context, o options, getenv func(string) string, log *slog.Logger, lv logVars) (service, error) {
	if o.server != "" {
		return dialRemote(o, getenv, log)
	}
	return startEmbedded(ctx, o, getenv, log, lv)
}

// startEmbedded starts skillsd in this process; dial connects to it over
// bufconn, as a trusted caller (the HTTP listener authenticates callers).
func startEmbedded(ctx context.Context, o options, getenv func(string) string, log *slog.Logger, lv logVars) (service, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return service{}, fmt.Errorf("finding the working directory: %w", err)
	}
	home, _ := os.UserHomeDir() // empty: the service goes without the home folders
	for _, d := range o.skillsDirs {
		p := "" // the service skips an empty --skills-dir: warn about it
		if d != "" {
			p = userpath.Abs(d, cwd, home, getenv) // the folder the service reads
		}
		if _, err := os.Stat(p); err != nil {
			log.Warn("skills folder not readable; serving without it", "dir", d, "error", err)
		}
	}
	// What waits for the start to end (endStart): the start's tuning, its
	// heap (hugeheap.go) and, in a warm start, its collections
	// (memlimit.go); then, at the first quiet moment, the file watcher,
	// which starts then, and over stdio the local usage store's opening.
	watchAfter := make(chan struct{})
	var ends []func()
	later := []func(){func() { close(watchAfter) }}
	// Over HTTP the store opens in New: the port opens on a server whose
	// every part is up, as its readiness probe expects.
	var usageAfter <-chan struct{}
	if o.httpAddr == "" {
		usageAfter = watchAfter
	}
	if startHeap != nil {
		ends = append(ends, startHeap())
	}
	srv, err := skillsd.New(ctx, skillsd.Options{
		SkillsDirs: o.skillsDirs,
		ConfigFile: o.configFile,
		Cwd:        cwd,
		Home:       home,
		Getenv:     getenv,
		Logger:     log,
		LogLevel:   lv.level,
		LogFormat:  lv.format,
		// An empty catalog is a warning (or, with --require-skills, an
		// error) on stderr, saying why and where it looked.
		RequireSkills: o.requireSkills,
		// Over stdio, the MCP server answers initialize and tools/list
		// while the catalog loads, and its tool calls wait for it
		// (waitScanned): a host that times out slow servers sees one at
		// once. With --require-skills the catalog loads first, as an empty
		// one must stop the start; over HTTP too, so that the port opens
		// on a ready server, as its readiness probe expects.
		LoadInBackground: o.httpAddr == "",
		LoadAfter:        o.handshake.done,
		WatchAfter:       watchAfter,
		UsageAfter:       usageAfter,
		Version:          buildVersion(),
		Edge:             skillsd.EdgeOptions{Flags: o.guard, Surface: "MCP over HTTP", LegacyTokensEnv: authEnvDefault, Realm: "skills-mcp"},
		Metrics:          o.metricsRegisterer(),
	})
	if err != nil {
		for _, end := range append(ends, later...) {
			end()
		}
		return service{}, fmt.Errorf("starting the embedded skills service: %w", err)
	}
	if collectAtLimit != nil && srv.Warm() {
		ends = append(ends, collectAtLimit())
	}
	go endStart(ctx, srv.WaitScanned, o.handshake.answered, startGrace, ends, o.handshake.quiet, quietGap, later)
	return service{
		dial: func(opts ...grpc.DialOption) (*grpc.ClientConn, error) {
			return srv.DialTrusted(ctx, append(opts, grpc.WithChainUnaryInterceptor(waitScanned(srv)),
				grpc.WithChainStreamInterceptor(waitScannedStream(srv)))...)
		},
		connectLocal: func() (gatewayConn, error) {
			return srv.ConnectTrusted(ctx, []grpc.UnaryClientInterceptor{waitScanned(srv)},
				grpc.WithChainStreamInterceptor(waitScannedStream(srv)))
		},
		ready:          []any{"embedded skills service ready"},
		close:          func() { _ = srv.Close() },
		waitScanned:    settledAfterLoad(srv.WaitScanned, time.Now(), settleLoad),
		setClientRoots: srv.SetClientRoots,
		settings:       new(srv.MCPSettings()),
		guard:          srv.Guard,
		http:           func() (skillsd.MCPHTTPSettings, error) { return srv.MCPHTTP(), nil },
	}, nil
}

// settledAfterLoad is wait (the embedded catalog's load and first scan)
// that, the first time it returns without an error, tells settle how long
// the load took from start, and returns once settle has (memlimit.go). A
// nil settle leaves wait as it is.
func settledAfterLoad(wait func(context.Context) error, start time.Time, settle func(time.Duration)) func(context.Context) error {
	if settle == nil {
		return wait
	}
	// The load's end, seen by a goroutine of its own: the first call may
	// come long after it.
	loaded := make(chan time.Duration, 1)
	go func() {
		if wait(context.Background()) == nil {
			loaded <- time.Since(start)
		}
	}()
	var once sync.Once
	return func(ctx context.Context) error {
		if err := wait(ctx); err != nil {
			return err
		}
		once.Do(func() {
			select {
			case took := <-loaded:
				settle(took)
			case <-ctx.Done():
			}
		})
		return nil
	}
}

// waitScanned holds the calls to the embedded service, but its health
// checks (the probes), until its first catalog is loaded (in the
// background, while the MCP server already answers initialize and
// tools/list) and the first security scan of a catalog it never saw is
// done: an MCP host reads the list of skills once and trusts it, so it
// should not be told of a catalog without the skills still loading or
// waiting for their scan. A start whose skills are all in the scan cache
// does not wait for a scan.
func waitScanned(srv *skillsd.Server) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if !strings.HasPrefix(method, "/grpc.health.v1.Health/") {
			if err := srv.WaitScanned(ctx); err != nil {
				return err
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// waitScanned's hold for streaming calls (the catalog's change feed).
func waitScannedStream(srv *skillsd.Server) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		if !strings.HasPrefix(method, "/grpc.health.v1.Health/") {
			if err := srv.WaitScanned(ctx); err != nil {
				return nil, err
			}
		}
		return streamer(ctx, desc, cc, method, opts...)
	}
}

// dialRemote prepares the connection to the skillsd at o.server.
func dialRemote(o options, getenv func(string) string, log *slog.Logger) (service, error) {
	dialOpts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if o.tokenEnv != "" {
		token := strings.TrimSpace(getenv(o.tokenEnv))
		if token == "" {
			return service{}, usagef("--token-env %s: the environment variable %s is empty or unset", o.tokenEnv, o.tokenEnv)
		}
		dialOpts = append(dialOpts, grpc.WithPerRPCCredentials(bearerToken(token)))
	}
	tlsCfg, err := o.serverTLS.Config()
	if err != nil {
		return service{}, usagef("--server-ca/--client-cert: %v", err)
	}
	if tlsCfg != nil {
		dialOpts = append(dialOpts, grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg)))
	}
	return service{
		dial: func(opts ...grpc.DialOption) (*grpc.ClientConn, error) {
			conn, err := upstream.Dial(o.server, append(dialOpts, opts...)...)
			if err != nil {
				return nil, usagef("--server: %v", err)
			}
			return conn, nil
		},
		ready:       []any{"connected to skillsd", "server", o.server},
		remote:      true,
		close:       func() {},
		waitScanned: func(context.Context) error { return nil },
		guard:       func() (*edge.Guard, error) { return remoteGuard(o, getenv, log) },
		http:        func() (skillsd.MCPHTTPSettings, error) { return skillsd.MCPHTTPFromEnv(getenv) },
	}, nil
}

// logStatus logs the catalog's status (msg and attrs are the first item of
// ready and the rest), or a warning when the service does not answer (a
// remote one may come up later: tool calls then say it is unreachable).
func logStatus(ctx context.Context, conn grpc.ClientConnInterface, log *slog.Logger, remote bool, ready ...any) {
	msg, _ := ready[0].(string)
	attrs := ready[1:]
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		log.Warn("skills service not answering yet", append(attrs, "error", err)...)
		return
	}
	log.Info(msg, append(attrs,
		"skills", st.GetSkillCount(),
		"errors", st.GetErrorCount(),
		"warnings", st.GetWarningCount(),
		"version", st.GetVersion())...)
	if remote && st.GetSkillCount() == 0 {
		log.Warn("the catalog has no skills: every query will answer no match", "sources", len(st.GetSources()))
	}
}

// bearerToken sends "authorization: Bearer <token>" with every call.
type bearerToken string

func (t bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

// RequireTransportSecurity is false: a token may go to a skillsd on loopback
// or a private network without TLS (--server-tls, --server-ca turn it on).
func (bearerToken) RequireTransportSecurity() bool { return false }

// buildVersion is the version reported to clients.
func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return skillsd.DefaultVersion
}

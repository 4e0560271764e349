package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
	"github.com/skillsd/skillsd/gateways/rest/ui"
	"github.com/skillsd/skillsd/services/skills/accesslog"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/upstream"
)

// options is the parsed command line.
type options struct {
	server, httpAddr, configFile, tokenEnv, logLevel, logFormat string
	dirs, corsOrigins                                           []string
	ui, requireSkills                                           bool
	serverTLS                                                   edge.ClientTLS
	guard                                                       edge.Flags
	metricsAddr                                                 string
}

// check checks the flags against each other.
func (o options) check(getenv func(string) string) error {
	remote := o.server != ""
	switch {
	case remote && len(o.dirs) > 0:
		return errors.New("give either --server (remote mode) or --skills-dir (embedded mode), not both")
	case remote && o.configFile != "":
		return errors.New("--config configures the in-process service; it cannot be used with --server")
	case !remote && o.tokenEnv != "":
		return errors.New("--token-env is the token sent to --server; it needs --server")
	case !remote && o.serverTLS.On():
		return errors.New("--server-tls, --server-ca, --client-cert and --client-key configure the connection to --server; they need --server")
	case remote && o.requireSkills:
		return errors.New("--require-skills checks the in-process service's catalog; with --server, give it to that skillsd")
	case remote && o.tokenEnv != "" && strings.TrimSpace(getenv(o.tokenEnv)) == "":
		return fmt.Errorf("--token-env %s: the variable is empty; set it to the token", o.tokenEnv)
	}
	if remote {
		if _, err := upstream.Parse(o.server); err != nil {
			return fmt.Errorf("--server: %w", err)
		}
	}
	if _, err := skillsd.ParseLogLevel(o.level(getenv)); err != nil {
		return fmt.Errorf("log level: %w", err)
	}
	if _, err := logging.ParseFormat(o.format(getenv)); err != nil {
		return fmt.Errorf("log format: %w", err)
	}
	return o.guard.Check(getenv)
}

// level is --log-level, else LOG_LEVEL.
func (o options) level(getenv func(string) string) string {
	if o.logLevel != "" {
		return o.logLevel
	}
	return getenv("LOG_LEVEL")
}

// format is --log-format, else LOG_FORMAT.
func (o options) format(getenv func(string) string) string {
	if o.logFormat != "" {
		return o.logFormat
	}
	return getenv("LOG_FORMAT")
}

// restOpen are the requests served without credentials: the health probes, the API's
// description and the web console's static files (its API calls go to /v1,
// which needs a token like any other caller's).
func restOpen(r *http.Request) bool {
	return restgw.PublicPath(r.URL.Path)
}

// serve connects to the service (remote or embedded), guards the listener
// and serves until ctx ends.
func serve(ctx context.Context, o options, getenv func(string) string, stderr io.Writer) error {
	l, _ := skillsd.ParseLogLevel(o.level(getenv)) // checked
	f, _ := logging.ParseFormat(o.format(getenv))  // checked
	level, format := new(slog.LevelVar), new(logging.FormatVar)
	level.Set(l)
	format.Set(f)
	log := logging.New(stderr, level, format)
	reg, registerer := newMetrics(o.metricsAddr)

	var (
		guard   *edge.Guard
		dial    func(...grpc.DialOption) (*grpc.ClientConn, error)
		err     error
		corsKey = "--cors-origin"
	)
	if o.server != "" {
		if guard, dial, err = remote(o, getenv, log); err != nil {
			return err
		}
	} else {
		logLevel, logFormat := level, format
		if o.logLevel != "" {
			logLevel = nil // the flag wins over log.level
		}
		if o.logFormat != "" {
			logFormat = nil // and over log.format
		}
		srv, err := skillsd.New(ctx, skillsd.Options{
			SkillsDirs: o.dirs, ConfigFile: o.configFile, Getenv: getenv, Logger: log, LogLevel: logLevel, LogFormat: logFormat, Version: version,
			Edge:          skillsd.EdgeOptions{Flags: o.guard, Surface: "REST", Realm: "skills-rest"},
			RequireSkills: o.requireSkills,
			Metrics:       registerer,
			// No access log of the in-process calls: the HTTP line covers them.
		})
		if err != nil {
			return err
		}
		defer srv.Close() // also closes the connection
		if guard, err = srv.Guard(); err != nil {
			return err
		}
		dial = func(opts ...grpc.DialOption) (*grpc.ClientConn, error) { return srv.DialTrusted(ctx, opts...) }
		if len(o.corsOrigins) == 0 {
			o.corsOrigins, corsKey = srv.RESTSettings().CORSOrigins, "rest.cors_origins"
		}
	}
	origins, err := restgw.ParseCORSOrigins(corsKey, o.corsOrigins)
	if err != nil {
		return usageError{Err: err}
	}

	lis, err := guard.Listen(o.httpAddr)
	if err != nil {
		return err
	}
	defer lis.Close()
	var dialOpts []grpc.DialOption
	if guard.HidePaths(lis.Addr()) {
		dialOpts = edge.HidePathsDialOptions()
	}
	// Each call carries the request id of the HTTP request it serves.
	dialOpts = append(dialOpts, accesslog.DialOptions()...)
	conn, err := dial(dialOpts...)
	if err != nil {
		return err
	}
	defer conn.Close()
	gwOpts := restgw.Options{Logger: log}
	if o.ui {
		gwOpts.UI = ui.FS()
	}
	h, err := restgw.New(ctx, conn, gwOpts)
	if err != nil {
		return err
	}
	hs := &http.Server{
		// The access log outermost: refused requests are logged too; then
		// CORS: a browser's preflight carries no credentials.
		Handler:           withMetrics(reg, accesslog.HTTP(log, restgw.CORS(origins, guard.HTTP(h, edge.HTTPOptions{Open: restOpen})))),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		// No WriteTimeout: GET /v1/catalog:watch streams for as long as the
		// client stays.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	mode := "embedded"
	if o.server != "" {
		mode = "remote " + o.server
	}
	fmt.Fprintf(stderr, "skills-rest: listening on %s://%s\n", guard.Scheme(), lis.Addr())
	if o.ui {
		fmt.Fprintf(stderr, "skills-rest: console at %s://%s%s\n", guard.Scheme(), lis.Addr(), restgw.UIPrefix)
	}
	log.Info("serving REST", append([]any{"addr", lis.Addr().String(), "mode", mode, "version", version, "paths_hidden", guard.HidePaths(lis.Addr()),
		"ui", o.ui, "cors_origins", strings.Join(origins, ",")}, guard.Attrs()...)...)
	if err := startMetrics(ctx, guard, o.metricsAddr, reg, log); err != nil {
		return err
	}

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lis) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		// Open streams (watch) keep Shutdown waiting: cut them.
		_ = hs.Close()
	}
	return nil
}

// remote resolves the guard of a gateway in front of a remote skillsd (the
// environment, then the flags) and how to dial it. A gateway that sends its
// own token upstream must authenticate its callers, or be told --auth none:
// else it would lend its token to anyone who reaches it.
func remote(o options, getenv func(string) string, log *slog.Logger) (*edge.Guard, func(...grpc.DialOption) (*grpc.ClientConn, error), error) {
	settings, err := edge.FromEnv(getenv)
	if err != nil {
		return nil, nil, err
	}
	guard, err := edge.New(edge.Options{Surface: "REST", Settings: o.guard.Over(settings), Getenv: getenv, Logger: log, Realm: "skills-rest"})
	if err != nil {
		return nil, nil, err
	}
	if o.tokenEnv != "" && guard.Unset() {
		return nil, nil, usageError{Err: fmt.Errorf("--token-env %s sends this gateway's own token to --server, and no caller authentication is configured: "+
			"anyone reaching skills-rest would act with that token. Ask callers for credentials (--auth token with --auth-token-env NAME, or --auth github), "+
			"or pass --auth none to share the token on purpose", o.tokenEnv)}
	}
	tlsCfg, err := o.serverTLS.Config()
	if err != nil {
		return nil, nil, usageError{Err: fmt.Errorf("--server-ca/--client-cert: %w", err)}
	}
	token := strings.TrimSpace(getenv(o.tokenEnv))
	return guard, func(opts ...grpc.DialOption) (*grpc.ClientConn, error) {
		if tlsCfg != nil {
			opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(tlsCfg)))
		}
		return restgw.Dial(o.server, token, opts...)
	}, nil
}

// Command skills-rest serves the skillsd REST/JSON API (grpc-gateway over the
// skills.v1 gRPC services), its OpenAPI document at /openapi.json and /healthz.
//
//	skills-rest (--server ADDR | --skills-dir DIR...) [--http ADDR] [--config FILE]
//	            [--token-env NAME] [--auth none|github] [--log-level LEVEL] [--version]
//
// With --server it forwards to a running skillsd (remote mode; --token-env names
// the environment variable holding the bearer token to send). Otherwise it
// starts the service in-process on the given folders, or on SKILLS_DIR and the
// default discovery when none is given (embedded mode). It prints the address
// it listens on to stderr ("--http 127.0.0.1:0" picks a free port); logs go to
// stderr. SIGINT or SIGTERM stops it gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = skillsd.DefaultVersion

const usageLine = "usage: skills-rest (--server ADDR | --skills-dir DIR...) [--http ADDR] [--config FILE] [--token-env NAME] [--auth none|github] [--log-level LEVEL] [--version]"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "skills-rest:", err)
		fmt.Fprintln(os.Stderr, usageLine)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "skills-rest:", err)
		os.Exit(1)
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ error }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills-rest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs multiFlag
	server := fs.String("server", "", "address of a running skillsd to forward to (remote mode)")
	fs.Var(&dirs, "skills-dir", "a skills folder to serve in-process (repeatable, in precedence order; default: SKILLS_DIR, then discovery)")
	httpAddr := fs.String("http", "127.0.0.1:8080", "HTTP listen address (port 0 picks a free port)")
	cfgFile := fs.String("config", "", "config.yaml for the in-process service")
	tokenEnv := fs.String("token-env", "", "environment variable holding the bearer token sent to --server")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (default: LOG_LEVEL, else info)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	authMode := fs.String("auth", "", "how HTTP callers authenticate: none, or github (each caller's GitHub token; docs/github.md); default: the config's auth.mode when github, else none")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *showVersion {
		fmt.Fprintln(stdout, version)
		return nil
	}
	remote := *server != ""
	switch {
	case remote && len(dirs) > 0:
		return usageError{errors.New("give either --server (remote mode) or --skills-dir (embedded mode), not both")}
	case remote && *cfgFile != "":
		return usageError{errors.New("--config configures the in-process service; it cannot be used with --server")}
	case !remote && *tokenEnv != "":
		return usageError{errors.New("--token-env is the token sent to --server; it needs --server")}
	}
	level, err := parseLevel(*logLevel, getenv("LOG_LEVEL"))
	if err != nil {
		return usageError{err}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	var conn *grpc.ClientConn
	var githubAuth *skillsd.GitHubAuth // the embedded service's (auth.go)
	if remote {
		var token string
		if *tokenEnv != "" {
			if token = strings.TrimSpace(getenv(*tokenEnv)); token == "" {
				return usageError{fmt.Errorf("--token-env %s: the variable is empty; set it to the token", *tokenEnv)}
			}
		}
		if conn, err = restgw.Dial(*server, token); err != nil {
			return err
		}
		defer conn.Close()
	} else {
		srv, err := skillsd.New(ctx, skillsd.Options{
			SkillsDirs: dirs,
			ConfigFile: *cfgFile,
			Getenv:     getenv,
			Logger:     log,
			Version:    version,
		})
		if err != nil {
			return err
		}
		defer srv.Close() // also closes conn
		githubAuth = new(srv.GitHubAuth())
		if conn, err = srv.DialInProcess(ctx); err != nil {
			return err
		}
	}

	h, err := restgw.New(ctx, conn, restgw.Options{Logger: log})
	if err != nil {
		return err
	}
	handler, auth, err := authHandler(*authMode, h, githubAuth, getenv, log)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *httpAddr, err)
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		// No WriteTimeout: GET /v1/catalog:watch streams for as long as the
		// client stays.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	mode := "embedded"
	if remote {
		mode = "remote " + *server
	}
	fmt.Fprintf(stderr, "skills-rest: listening on http://%s\n", lis.Addr())
	log.Info("serving REST", "addr", lis.Addr().String(), "mode", mode, "auth", auth, "version", version)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lis) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		// Open streams (watch) keep Shutdown waiting: cut them.
		_ = hs.Close()
	}
	return nil
}

func parseLevel(flagValue, envValue string) (slog.Level, error) {
	v := flagValue
	if v == "" {
		v = envValue
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log level %q: want debug, info, warn or error", v)
}

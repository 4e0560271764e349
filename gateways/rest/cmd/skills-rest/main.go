// Command skills-rest serves the skillsd REST/JSON API (grpc-gateway over the
// skills.v1 gRPC services), its OpenAPI document at /openapi.json, and the
// probes /healthz (liveness) and /readyz (readiness: the catalog is loaded).
//
//	skills-rest (--server ADDR | --skills-dir DIR...) [--http ADDR] [--config FILE]
//	            [--token-env NAME] [--server-tls] [--server-ca FILE] [--client-cert FILE --client-key FILE]
//	            [--auth none|token|github] [--auth-token-env NAME]
//	            [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--hide-paths auto|always|never]
//	            [--ui=false] [--cors-origin ORIGIN]... [--log-level LEVEL] [--log-format text|json] [--require-skills] [--version]
//
// With --server it forwards to a running skillsd (remote mode; --token-env names
// the environment variable holding the bearer token to send, --server-tls and
// --server-ca reach it over TLS). Otherwise it starts the service in-process on
// the given folders, or on SKILLS_DIR and the default discovery when none is
// given (embedded mode). Callers authenticate as --auth says (package edge;
// /healthz, /readyz, /openapi.json and the static files under /ui/ stay open; see
// docs/operations.md). The web console is served at /ui/ unless --ui=false
// (docs/console.md); --cors-origin (or the config's rest.cors_origins) lets
// pages of other origins call the API. It prints the address it listens on,
// and the console's, to stderr ("--http 127.0.0.1:0" picks a free port); logs
// go to stderr, with one access-log line per request at info level.
// --metrics ADDR serves Prometheus metrics at /metrics on a second listener
// (off unless given). SIGINT or SIGTERM stops it gracefully.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/skillsd/skillsd/services/skills/metrics"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = skillsd.DefaultVersion

const usageLine = "usage: skills-rest (--server ADDR | --skills-dir DIR...) [--http ADDR] [--config FILE] [--token-env NAME] [--auth none|token|github] [--auth-token-env NAME] [--tls-cert FILE --tls-key FILE] [--ui=false] [--cors-origin ORIGIN]... [--log-level LEVEL] [--log-format text|json] [--require-skills] [--metrics ADDR] [--version]"

func main() {
	skillsd.SandboxHelper() // first: a re-executed binary becomes the confined script here
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if status := skillsd.ExitStatus(err); status != 0 {
		fmt.Fprintln(os.Stderr, "skills-rest:", err)
		if status == 2 {
			fmt.Fprintln(os.Stderr, usageLine)
		}
		os.Exit(status)
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError = skillsd.UsageError

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills-rest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.server, "server", "", "address of a running skillsd to forward to (remote mode): host:port; replicas: dns:///host:port or a comma-separated list, balanced round-robin over the healthy ones")
	fs.Var((*skillsd.Strings)(&o.dirs), "skills-dir", "a skills folder to serve in-process (repeatable, in precedence order; default: SKILLS_DIR, then discovery)")
	fs.StringVar(&o.httpAddr, "http", "127.0.0.1:8080", "HTTP listen address (port 0 picks a free port)")
	fs.StringVar(&o.configFile, "config", "", "config.yaml for the in-process service")
	fs.StringVar(&o.metricsAddr, "metrics", "", "serve Prometheus metrics at /metrics on this `ADDR` (host:port; off unless given; not loopback needs --auth; docs/operations.md)")
	fs.StringVar(&o.tokenEnv, "token-env", "", "environment variable holding the bearer token sent to --server")
	o.serverTLS.Register(fs)
	o.guard.Register(fs, "auth-token-env")
	fs.StringVar(&o.logLevel, "log-level", "", "debug, info, warn or error (default: LOG_LEVEL, log.level, else info)")
	fs.BoolVar(&o.ui, "ui", true, "serve the web console at /ui/")
	fs.Var((*skillsd.Strings)(&o.corsOrigins), "cors-origin", "an origin (scheme://host[:port], or * for any) whose pages may call the API from a browser (repeatable; replaces the config's rest.cors_origins; default: none)")
	fs.StringVar(&o.logFormat, "log-format", "", "text or json (default: LOG_FORMAT, log.format, else text)")
	fs.BoolVar(&o.requireSkills, "require-skills", false, "embedded mode: fail to start when the catalog has no skills (default: SKILLSD_REQUIRE_SKILLS, require_skills, else a warning)")
	if done, err := skillsd.ParseFlags(fs, args, version, stdout); done || err != nil {
		return err
	}
	if err := o.check(getenv); err != nil {
		return usageError{Err: err}
	}
	if err := metrics.CheckAddr("--metrics", o.metricsAddr); err != nil {
		return usageError{Err: err}
	}
	return serve(ctx, o, getenv, stderr)
}

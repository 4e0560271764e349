// Command skillsd serves a skills catalog over gRPC: the skills.v1 services, the
// standard health service and reflection.
//
//	skillsd [--skills-dir DIR]... [--grpc ADDR] [--config FILE] [--token-env NAME]
//	        [--auth none|token|github] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
//	        [--hide-paths auto|always|never] [--agents-dir DIR] [--docs-dir DIR]
//	        [--log-level LEVEL] [--log-format text|json] [--require-skills] [--metrics ADDR] [--version]
//	        [--check-config]
//
// The listener is guarded by package edge: an address that is not loopback
// needs authentication (or --auth none, on purpose); see docs/operations.md.
// Logs go to stderr (--log-format json for one JSON object a line), with one
// access-log line per call at info level. An empty catalog is a warning
// saying why; --require-skills makes it an error that stops the start.
// --metrics ADDR serves Prometheus metrics at /metrics on a second listener
// (off unless given; docs/operations.md, Metrics). --check-config loads the
// configuration (config.yaml, the environment, the flags) as a start would,
// prints the file it checked and exits, 0 when skillsd would accept it: it
// reads no skill, clones nothing and opens no port (docs/deploy.md).
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/metrics"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = skillsd.DefaultVersion

func main() {
	skillsd.SandboxHelper() // first: a re-executed binary becomes the confined script here
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	if status := skillsd.ExitStatus(err); status != 0 {
		fmt.Fprintln(os.Stderr, "skillsd:", err)
		os.Exit(status)
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError = skillsd.UsageError

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("skillsd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs skillsd.Strings
	fs.Var(&dirs, "skills-dir", "a skills folder to serve (repeatable, in precedence order; default: SKILLS_DIR, then discovery)")
	addr := fs.String("grpc", "127.0.0.1:50051", "gRPC listen address")
	cfgFile := fs.String("config", "", "config.yaml to load")
	var guard edge.Flags
	guard.Register(fs, "token-env", "auth-token-env")
	agentsDir := fs.String("agents-dir", "", "a folder of agent profiles (*.md) for ContentService (default: AGENTS_DIR, content.agents_dir, then the agents repository)")
	docsDir := fs.String("docs-dir", "", "a documentation folder (.md, .mdx) for ContentService (default: DOCS_DIR, content.docs_dir, then the docs repository)")
	var follow skillsd.Strings
	fs.Var(&follow, "follow-external-symlinks", "a folder outside the skills folders that their symbolic links may lead into, such as ~/dotfiles/skills (repeatable; default: SKILLS_FOLLOW_EXTERNAL_SYMLINKS, else none)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (default: LOG_LEVEL, log.level, else info)")
	logFormat := fs.String("log-format", "", "text or json (default: LOG_FORMAT, log.format, else text)")
	requireSkills := fs.Bool("require-skills", false, "fail to start when the catalog has no skills (default: SKILLSD_REQUIRE_SKILLS, require_skills, else a warning)")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at /metrics on this `ADDR` (host:port; off unless given; not loopback needs --auth; docs/operations.md)")
	checkConfig := fs.Bool("check-config", false, "check the configuration (config.yaml, environment, flags) as a start would, without serving, and exit")
	if done, err := skillsd.ParseFlags(fs, args, version, os.Stdout); done || err != nil {
		return err
	}
	if err := guard.Check(getenv); err != nil {
		return usageError{Err: err}
	}
	if err := metrics.CheckAddr("--metrics", *metricsAddr); err != nil {
		return usageError{Err: err}
	}
	log, level, format, err := logger(stderr, *logLevel, *logFormat, getenv)
	if err != nil {
		return usageError{Err: err}
	}
	if *checkConfig {
		file, err := skillsd.CheckConfig(skillsd.Options{
			SkillsDirs: dirs,
			ConfigFile: *cfgFile,
			Getenv:     getenv,
			Logger:     log,
			Edge:       skillsd.EdgeOptions{Flags: guard},
		})
		if err != nil {
			return err
		}
		if file == "" {
			file = "no config file"
		}
		fmt.Fprintf(stderr, "configuration ok (%s)\n", file)
		return nil
	}
	var reg *prometheus.Registry
	var registerer prometheus.Registerer // nil unless --metrics: an untyped nil
	if *metricsAddr != "" {
		reg = metrics.NewRegistry()
		registerer = reg
	}
	srv, err := skillsd.New(ctx, skillsd.Options{
		SkillsDirs:             dirs,
		ConfigFile:             *cfgFile,
		Getenv:                 getenv,
		Logger:                 log,
		LogLevel:               level,
		LogFormat:              format,
		Version:                version,
		Edge:                   skillsd.EdgeOptions{Flags: guard},
		AgentsDir:              *agentsDir,
		DocsDir:                *docsDir,
		FollowExternalSymlinks: follow,
		// One access-log line per call (method, code, duration, request id).
		AccessLog:     true,
		RequireSkills: *requireSkills,
		Metrics:       registerer,
	})
	if err != nil {
		if ctx.Err() != nil {
			// SIGTERM during start-up (a first clone, a large first build):
			// a stop asked for, not a failure. Nothing was served.
			log.Info("stopped before serving", "reason", context.Cause(ctx), "during", err)
			return nil
		}
		return err
	}
	defer srv.Close()
	g, err := srv.Guard()
	if err != nil {
		return err
	}
	lis, err := g.Listen(*addr)
	if err != nil {
		return err
	}
	if reg != nil {
		mlis, err := g.ListenMetrics("--metrics", *metricsAddr)
		if err != nil {
			_ = lis.Close()
			return err
		}
		metrics.Start(ctx, mlis, reg, log)
		log.Info("serving metrics", "addr", mlis.Addr().String(), "path", metrics.Path)
	}
	log.Info("serving gRPC", append([]any{"addr", lis.Addr().String(), "version", version, "paths_hidden", g.HidePaths(lis.Addr())}, g.Attrs()...)...)
	return srv.Serve(ctx, lis)
}

// logger is the log to stderr at --log-level, else LOG_LEVEL, in
// --log-format, else LOG_FORMAT (info and text until the configuration's
// log.level and log.format are read: level and format are then nil when
// their flag fixed them).
func logger(stderr io.Writer, flagLevel, flagFormat string, getenv func(string) string) (*slog.Logger, *slog.LevelVar, *logging.FormatVar, error) {
	l, err := skillsd.ParseLogLevel(cmp.Or(flagLevel, getenv("LOG_LEVEL")))
	if err != nil {
		return nil, nil, nil, err
	}
	format, err := logging.ParseFormat(cmp.Or(flagFormat, getenv("LOG_FORMAT")))
	if err != nil {
		return nil, nil, nil, err
	}
	level, formatVar := new(slog.LevelVar), new(logging.FormatVar)
	level.Set(l)
	formatVar.Set(format)
	log := logging.New(stderr, level, formatVar)
	if flagLevel != "" {
		level = nil // the flag wins over the configuration
	}
	if flagFormat != "" {
		formatVar = nil
	}
	return log, level, formatVar, nil
}

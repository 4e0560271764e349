// Command skillsd serves a skills catalog over gRPC: the skills.v1 services, the
// standard health service and reflection.
//
//	skillsd [--skills-dir DIR]... [--grpc ADDR] [--config FILE] [--token-env NAME]
//	        [--agents-dir DIR] [--docs-dir DIR]
//
// Logs go to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = skillsd.DefaultVersion

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		var usage usageError
		if errors.As(err, &usage) {
			fmt.Fprintln(os.Stderr, "skillsd:", err)
			os.Exit(2)
		}
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "skillsd:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("skillsd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs multiFlag
	fs.Var(&dirs, "skills-dir", "a skills folder to serve (repeatable, in precedence order; default: SKILLS_DIR, then discovery)")
	addr := fs.String("grpc", "127.0.0.1:50051", "gRPC listen address")
	cfgFile := fs.String("config", "", "config.yaml to load")
	tokenEnv := fs.String("token-env", "", "environment variable holding the accepted bearer tokens (comma-separated); empty: no auth")
	agentsDir := fs.String("agents-dir", "", "a folder of agent profiles (*.md) for ContentService (default: AGENTS_DIR, content.agents_dir, then the agents repository)")
	docsDir := fs.String("docs-dir", "", "a documentation folder (.md, .mdx) for ContentService (default: DOCS_DIR, content.docs_dir, then the docs repository)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (default: LOG_LEVEL, else info)")
	showVersion := fs.Bool("version", false, "print the version and exit")
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
		fmt.Fprintln(os.Stdout, version)
		return nil
	}
	if *logLevel == "" {
		*logLevel = getenv("LOG_LEVEL")
	}
	level, err := skillsd.ParseLogLevel(*logLevel)
	if err != nil {
		return usageError{err}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	var tokens []string
	if *tokenEnv != "" {
		for _, t := range strings.Split(getenv(*tokenEnv), ",") {
			if t = strings.TrimSpace(t); t != "" {
				tokens = append(tokens, t)
			}
		}
		if len(tokens) == 0 {
			return usageError{fmt.Errorf("--token-env %s: the variable is empty; set it to the accepted tokens", *tokenEnv)}
		}
	}

	srv, err := skillsd.New(ctx, skillsd.Options{
		SkillsDirs: dirs,
		ConfigFile: *cfgFile,
		Getenv:     getenv,
		Logger:     log,
		Version:    version,
		AuthTokens: tokens,
		AgentsDir:  *agentsDir,
		DocsDir:    *docsDir,
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	log.Info("serving gRPC", "addr", lis.Addr().String(), "version", version)
	return srv.Serve(ctx, lis)
}

// Command skills-mcp serves Agent Skills to AI agents over MCP: on stdio by
// default (for hosts that spawn it, like Claude Code), or over Streamable HTTP
// with --http. By default it embeds the skillsd service, loading the catalog
// from --skills-dir folders (or SKILLS_DIR, or the default discovery folders);
// with --server it talks to a shared skillsd over gRPC instead. Default
// discovery also looks in the folders the MCP client declares as its roots,
// before the working directory (hosts may start the server from anywhere).
//
// Usage:
//
//	skills-mcp [--skills-dir DIR]... [--config FILE]   embedded service (default)
//	skills-mcp --server ADDR [--token-env NAME]        remote skillsd over gRPC
//	skills-mcp ... --http ADDR                         Streamable HTTP on ADDR (/mcp; legacy SSE at /sse; /healthz, /readyz)
//
// Over HTTP, callers authenticate as --auth says (package edge;
// docs/operations.md), sessions idle for --session-idle-timeout close, at
// most --max-sessions live at once, and pages of origins outside
// --allowed-origin are refused.
//
// Logs go to stderr only; on stdio, stdout carries nothing but the protocol.
// It exits with status 0 when stdin closes (stdio) or on SIGINT/SIGTERM, 1 when
// it cannot start, and 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// version is the build's version, set with -ldflags "-X main.version=…"; empty
// falls back to the module version of the build, then to skillsd's default.
var version string

func main() {
	skillsd.SandboxHelper() // first: a re-executed binary becomes the confined script here
	// The soft memory limit follows the live heap from the start, through
	// the catalog's load (memlimit.go); tests leave the runtime's limit
	// alone.
	trackMemoryLimit(os.Getenv)
	// The embedded service's start fills a heap asked for in huge pages
	// (hugeheap.go).
	if hugeHeapWanted(os.Getenv) && hugePagesOffered() {
		startHeap = func() func() {
			end, _, _ := hugeStartHeap(startHeapBytes)
			return end
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// run is the whole command: it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	o, err := parseArgs(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "skills-mcp: %v\nRun 'skills-mcp -h' for usage.\n", err)
		}
		// The flag package has already reported its own errors.
		return exitUsage
	}
	if o.version {
		fmt.Fprintf(stdout, "skills-mcp %s\n", buildVersion())
		return exitOK
	}
	level, format := new(slog.LevelVar), new(logging.FormatVar)
	level.Set(o.logLevel)
	format.Set(o.logFormat)
	log := logging.New(stderr, level, format)
	// The embedded service sets them to log.level and log.format, unless a
	// flag fixed them.
	lv := logVars{level: level, format: format}
	if o.logLevelSet {
		lv.level = nil
	}
	if o.logFormatSet {
		lv.format = nil
	}
	if err := serve(ctx, o, stdin, stdout, getenv, log, lv); err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "skills-mcp: %v\n", err)
			return exitUsage
		}
		log.Error("skills-mcp stopped", "error", err)
		return exitFailure
	}
	return exitOK
}

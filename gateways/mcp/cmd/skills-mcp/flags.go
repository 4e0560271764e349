package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/upstream"
)

// options is the parsed command line.
type options struct {
	skillsDirs []string
	configFile string
	server     string
	tokenEnv   string
	httpAddr   string
	// metricsAddr is --metrics (with --http; metrics.go), and metrics its
	// registry, made by serve (nil when off).
	metricsAddr string
	metrics     *prometheus.Registry
	// handshake holds the embedded catalog's load until the MCP host has
	// listed the tools (serve.go); set by serve.
	handshake *handshake
	// guard holds --auth, --auth-token-env, --tls-* and --hide-paths: how
	// HTTP callers authenticate and what they see (http.go, package edge).
	guard edge.Flags
	// serverTLS is how --server is reached (--server-tls, --server-ca, …).
	serverTLS edge.ClientTLS
	// sessions are --session-idle-timeout, --max-sessions and
	// --allowed-origin (http.go).
	sessions sessionFlags
	logLevel slog.Level
	// logLevelSet says --log-level was given: it then wins over log.level.
	logLevelSet bool
	// logFormat is text or json; logFormatSet says --log-format was given.
	logFormat    string
	logFormatSet bool
	// requireSkills makes an embedded service with no skills fail to start.
	requireSkills bool
	version       bool
	// profile and runSkillCommand choose the MCP tool set (profile.go).
	profile         string
	runSkillCommand bool
}

// usageError is a command-line mistake: reported with a hint, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// stringList is a flag that may repeat.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, string(os.PathListSeparator)) }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// parseArgs parses the command line; getenv supplies LOG_LEVEL.
func parseArgs(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var (
		o         options
		dirs      stringList
		logLevel  string
		logFormat string
	)
	fs := flag.NewFlagSet("skills-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var(&dirs, "skills-dir", "a skills `folder` (repeat for more, first wins on a name clash); default SKILLS_DIR, then discovery")
	fs.StringVar(&o.configFile, "config", "", "the config.yaml `file` of the embedded service")
	fs.StringVar(&o.server, "server", "", "use the skillsd gRPC server at `ADDR` (host:port) instead of an embedded one; replicas: dns:///host:port or a comma-separated list, balanced round-robin over the healthy ones")
	fs.StringVar(&o.tokenEnv, "token-env", "", "with --server: the environment variable `NAME` holding the bearer token to send")
	fs.StringVar(&o.httpAddr, "http", "", "serve Streamable HTTP on `ADDR` (/mcp, the legacy HTTP+SSE transport at /sse, and the probes /healthz and /readyz) instead of stdio")
	fs.StringVar(&o.metricsAddr, "metrics", "", "with --http: serve Prometheus metrics at /metrics on this `ADDR` (host:port; off unless given; not loopback needs --auth; docs/operations.md)")
	o.serverTLS.Register(fs)
	o.guard.Register(fs, "auth-token-env")
	o.sessions.register(fs)
	fs.StringVar(&logLevel, "log-level", "", "log level: debug, info, warn or error (default LOG_LEVEL, then info)")
	fs.StringVar(&logFormat, "log-format", "", "log format: text or json (default LOG_FORMAT, then log.format, then text)")
	fs.BoolVar(&o.requireSkills, "require-skills", false, "embedded service: fail to start when the catalog has no skills (default SKILLSD_REQUIRE_SKILLS, require_skills, else a warning)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	profileFlags(fs, &o)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage:\n"+
			"  skills-mcp [--skills-dir DIR]... [--config FILE]   embedded service (default)\n"+
			"  skills-mcp --server ADDR [--token-env NAME]        remote skillsd over gRPC\n"+
			"  skills-mcp ... --http ADDR                         Streamable HTTP instead of stdio\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument %q", fs.Arg(0))
	}
	o.skillsDirs = dirs
	if o.server != "" {
		if _, err := upstream.Parse(o.server); err != nil {
			return o, usagef("--server: %v", err)
		}
		if len(o.skillsDirs) > 0 {
			return o, usagef("--skills-dir and --server exclude each other: --skills-dir starts an embedded service, --server uses a remote one")
		}
		if o.configFile != "" {
			return o, usagef("--config and --server exclude each other: --config configures the embedded service")
		}
	} else if o.tokenEnv != "" {
		return o, usagef("--token-env needs --server: the token is sent to a remote skillsd")
	} else if o.serverTLS.On() {
		return o, usagef("--server-tls, --server-ca, --client-cert and --client-key configure the connection to --server; they need --server")
	}
	if err := checkProfileArgs(o); err != nil {
		return o, err
	}
	if err := checkHTTPArgs(o, getenv); err != nil {
		return o, err
	}
	o.logLevelSet = logLevel != ""
	source := "--log-level"
	if logLevel == "" {
		logLevel, source = getenv("LOG_LEVEL"), "LOG_LEVEL"
	}
	level, err := parseLevel(logLevel)
	if err != nil {
		return o, usagef("%s: %v", source, err)
	}
	o.logLevel = level
	o.logFormatSet = logFormat != ""
	source = "--log-format"
	if logFormat == "" {
		logFormat, source = getenv("LOG_FORMAT"), "LOG_FORMAT"
	}
	if o.logFormat, err = logging.ParseFormat(logFormat); err != nil {
		return o, usagef("%s: %v", source, err)
	}
	if o.requireSkills && o.server != "" {
		return o, usagef("--require-skills checks the embedded service's catalog; with --server, give it to that skillsd")
	}
	return o, nil
}

// parseLevel parses a log level name; empty is info.
func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("invalid log level %q: want debug, info, warn or error", s)
}

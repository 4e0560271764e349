package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/healthz"
	"github.com/skillsd/skillsd/services/skills/metrics"
)

// checkMetricsArgs checks --metrics: host:port, and only with --http (on
// stdio the process lives as long as one host's session).
func checkMetricsArgs(o options) error {
	if o.metricsAddr == "" {
		return nil
	}
	if o.httpAddr == "" {
		return usagef("--metrics needs --http: metrics are served beside MCP over HTTP, not beside stdio")
	}
	if err := metrics.CheckAddr("--metrics", o.metricsAddr); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// newMetrics is the registry of --metrics; nil when metrics are off.
func newMetrics(addr string) *prometheus.Registry {
	if addr == "" {
		return nil
	}
	return metrics.NewRegistry()
}

// metricsRegisterer is o's registry for the embedded service: an untyped
// nil when metrics are off.
func (o options) metricsRegisterer() prometheus.Registerer {
	if o.metrics == nil {
		return nil
	}
	return o.metrics
}

// listenMetrics opens the --metrics listener through the guard; nil when
// metrics are off.
func listenMetrics(guard *edge.Guard, o options) (net.Listener, error) {
	if o.metrics == nil {
		return nil, nil
	}
	return guard.ListenMetrics("--metrics", o.metricsAddr)
}

// startMetrics serves the registry on the listener until ctx ends, and
// returns h counted and timed by route; h as it is when metrics are off.
func startMetrics(ctx context.Context, web *httpEdge, h http.Handler, log *slog.Logger) http.Handler {
	if web.metrics == nil || web.metricsLis == nil {
		return h
	}
	metrics.Start(ctx, web.metricsLis, web.metrics, log)
	log.Info("serving metrics", "addr", web.metricsLis.Addr().String(), "path", metrics.Path)
	return metrics.HTTP(web.metrics, "mcp", mcpRoute, h)
}

// mcpRoute names a request's route for the metrics' labels.
func mcpRoute(r *http.Request) string {
	switch p := r.URL.Path; p {
	case "/mcp", "/sse", healthz.LivePath, healthz.ReadyPath:
		return p
	}
	return "other"
}

package main

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/metrics"
)

// newMetrics is the registry of --metrics, and the same as a Registerer
// for the embedded service: both nil when metrics are off.
func newMetrics(addr string) (*prometheus.Registry, prometheus.Registerer) {
	if addr == "" {
		return nil, nil
	}
	reg := metrics.NewRegistry()
	return reg, reg
}

// withMetrics counts and times the requests h serves, by route (none when
// metrics are off).
func withMetrics(reg *prometheus.Registry, h http.Handler) http.Handler {
	if reg == nil {
		return h
	}
	return metrics.HTTP(reg, "rest", restRoute, h)
}

// startMetrics serves reg at /metrics on addr (listener from the guard)
// until ctx ends; nothing when metrics are off.
func startMetrics(ctx context.Context, guard *edge.Guard, addr string, reg *prometheus.Registry, log *slog.Logger) error {
	if reg == nil {
		return nil
	}
	lis, err := guard.ListenMetrics("--metrics", addr)
	if err != nil {
		return err
	}
	metrics.Start(ctx, lis, reg, log)
	log.Info("serving metrics", "addr", lis.Addr().String(), "path", metrics.Path)
	return nil
}

// restRoutes are the API's routes without a parameter (http_rules.yaml).
var restRoutes = map[string]bool{
	"skills": true, "skills:tree": true, "diagnostics": true, "status": true, "skills:refresh": true,
	"catalog:watch": true, "skills:search": true, "skills:match": true, "scripts:run": true,
	"commands:run": true, "usage:report": true, "agents": true, "docs": true, "docs:get": true,
}

// restRoute names a request's route for the metrics' labels: the API's
// pattern (never a skill's path), /ui/, a probe, or "other".
func restRoute(r *http.Request) string {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, restgw.UIPrefix):
		return restgw.UIPrefix
	case p == "/healthz", p == "/readyz", p == "/openapi.json":
		return p
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(parts) < 2 || parts[0] != "v1" {
		return "other"
	}
	switch {
	case len(parts) == 2 && restRoutes[parts[1]]:
		return p
	case parts[1] == "skills" || parts[1] == "files":
		return "/v1/" + parts[1] + "/{skill_path}"
	case parts[1] == "agents" && len(parts) == 3:
		return "/v1/agents/{name}"
	case parts[1] == "usage" && len(parts) == 3 && (parts[2] == "stats" || parts[2] == "events"):
		return p
	}
	return "other"
}

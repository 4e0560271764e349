package skillsd

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/server"
	"github.com/skillsd/skillsd/services/skills/metrics"
)

// metricsInterceptors registers the service's metrics with reg (the gRPC
// server's, the catalog's, the usage spool's and the scripts') and returns
// the interceptors that feed the per-call ones: outermost, so that refused
// calls are counted too.
func (s *Server) metricsInterceptors(reg prometheus.Registerer, svc *server.Service) ([]grpc.UnaryServerInterceptor, []grpc.StreamServerInterceptor) {
	unary, stream := metrics.GRPCServer(reg)
	reg.MustRegister(&catalogCollector{svc: svc, loaded: func() bool { return s.loadingMessage() == "" }})
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "skillsd_usage_events_delivered_total",
			Help: "Usage events the publisher delivered from the spool.",
		}, func() float64 { return float64(s.usage.Delivered()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "skillsd_usage_events_dropped_total",
			Help: "Usage events refused because the spool was full.",
		}, func() float64 { return float64(s.usage.Dropped()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "skillsd_usage_spool_bytes",
			Help: "Bytes of usage events in the spool, waiting for the publisher.",
		}, func() float64 { return float64(s.usage.SpoolBytes()) }),
	)
	runs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "skillsd_script_runs_total",
		Help: "RunScript calls that ran a script, by outcome: ok (exit 0), failed (another exit status) or timed_out.",
	}, []string{"outcome"})
	reg.MustRegister(runs)
	for _, o := range []string{"ok", "failed", "timed_out"} {
		runs.WithLabelValues(o) // every outcome shows, at 0
	}
	scripts := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		resp, err := next(ctx, req)
		if r, ok := resp.(*skillsv1.RunScriptResponse); ok && err == nil {
			switch {
			case r.GetTimedOut():
				runs.WithLabelValues("timed_out").Inc()
			case r.GetSuccess():
				runs.WithLabelValues("ok").Inc()
			default:
				runs.WithLabelValues("failed").Inc()
			}
		}
		return resp, err
	}
	return []grpc.UnaryServerInterceptor{unary, scripts}, []grpc.StreamServerInterceptor{stream}
}

// catalogCollector reads the catalog's gauges at each scrape from what
// GetCatalogStatus answers, so that the two never disagree. While the first
// catalog loads (loaded is false) there is none to describe: a scrape then
// has no catalog gauges, and the rest of the metrics as usual.
type catalogCollector struct {
	svc    *server.Service
	loaded func() bool
}

// The descriptions of the catalog's gauges.
var (
	descInfo         = catalogDesc("skillsd_catalog_info", "The catalog served: 1, with its identity (catalog_id: equal on every replica serving the same content), the server's version and the matching strategy as labels.", "catalog_id", "version", "matching_strategy")
	descGeneration   = catalogDesc("skillsd_catalog_generation", "The catalog's generation: it goes up at each rebuild.")
	descBuilt        = catalogDesc("skillsd_catalog_built_timestamp_seconds", "When the catalog served was built (Unix time).")
	descSkills       = catalogDesc("skillsd_catalog_skills", "Skills served, and of them the routable ones (state).", "state")
	descUnserved     = catalogDesc("skillsd_catalog_unserved_skills", "Skills found but not served (filtered, invalid, waiting for their scan).")
	descQuarantined  = catalogDesc("skillsd_catalog_quarantined_skills", "Skills held back by the security scan's quarantine.")
	descDiagnostics  = catalogDesc("skillsd_catalog_diagnostics", "Diagnostics of the catalog and the configuration, by severity.", "severity")
	descSourceSkills = catalogDesc("skillsd_source_skills", "Skills each source contributes.", "source", "kind")
	descSourceSync   = catalogDesc("skillsd_source_last_sync_timestamp_seconds", "When each source was last read (local) or synchronised (git), Unix time: time() minus it is the time since.", "source", "kind")
	descSourceError  = catalogDesc("skillsd_source_error", "1 while a source's last read or synchronisation failed, else 0.", "source", "kind")
	descSourceInfo   = catalogDesc("skillsd_source_info", "Each source: 1, with its content identity (content_id: a git source's commit, a folder's digest) as a label.", "source", "kind", "content_id")
)

// catalogDescs lists every description catalogDesc made, for Describe.
var catalogDescs []*prometheus.Desc

// catalogDesc describes a gauge of the catalog with variable labels, and
// lists it in catalogDescs.
func catalogDesc(name, help string, labels ...string) *prometheus.Desc {
	d := prometheus.NewDesc(name, help, labels, nil)
	catalogDescs = append(catalogDescs, d)
	return d
}

func (c *catalogCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range catalogDescs {
		ch <- d
	}
}

func (c *catalogCollector) Collect(ch chan<- prometheus.Metric) {
	if !c.loaded() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.svc.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descInfo, err)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descInfo, 1, st.GetCatalogId(), st.GetVersion(), st.GetMatchingStrategy())
	gauge(descGeneration, float64(st.GetGeneration()))
	if st.GetBuiltAt() != nil {
		gauge(descBuilt, float64(st.GetBuiltAt().AsTime().UnixNano())/1e9)
	}
	gauge(descSkills, float64(st.GetSkillCount()), "served")
	gauge(descSkills, float64(st.GetRoutableCount()), "routable")
	gauge(descUnserved, float64(st.GetUnservedCount()))
	gauge(descQuarantined, float64(st.GetSecurity().GetQuarantinedCount()))
	gauge(descDiagnostics, float64(st.GetErrorCount()), "error")
	gauge(descDiagnostics, float64(st.GetWarningCount()), "warning")
	for _, src := range st.GetSources() {
		gauge(descSourceSkills, float64(src.GetSkillCount()), src.GetName(), src.GetKind())
		gauge(descSourceInfo, 1, src.GetName(), src.GetKind(), src.GetContentId())
		if src.GetLastSync() != nil {
			gauge(descSourceSync, float64(src.GetLastSync().AsTime().UnixNano())/1e9, src.GetName(), src.GetKind())
		}
		failed := 0.0
		if src.GetError() != "" {
			failed = 1
		}
		gauge(descSourceError, failed, src.GetName(), src.GetKind())
	}
}

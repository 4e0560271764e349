// Package metrics is the Prometheus side of every skillsd binary: a
// registry of our own (never the global default) with the Go runtime and
// process collectors, the /metrics handler and its server, the gRPC server
// interceptors (go-grpc-middleware's prometheus provider) and a small HTTP
// middleware for the gateways. It opens no listener: the command asks
// package edge for one (Guard.ListenMetrics) and hands it to Serve.
// Metrics are off unless a command is given --metrics ADDR.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
)

// Path is where the handler is served.
const Path = "/metrics"

// CheckAddr checks a --metrics value before anything starts: empty (off)
// or host:port; the error names flag.
func CheckAddr(flag, addr string) error {
	if addr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("%s %q: want host:port, such as 127.0.0.1:9090: %v", flag, addr, err)
	}
	return nil
}

// NewRegistry is a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg's metrics in the Prometheus text format at Path (and
// answers 404 elsewhere).
func Handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	opts := promhttp.HandlerOpts{Registry: reg}
	if log != nil {
		opts.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	mux.Handle("GET "+Path, promhttp.HandlerFor(reg, opts))
	return mux
}

// Serve serves reg's metrics on lis until ctx is done, then shuts the
// server down. The listener comes from edge (Guard.ListenMetrics).
func Serve(ctx context.Context, lis net.Listener, reg *prometheus.Registry, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hs := &http.Server{
		Handler:           Handler(reg, log),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = hs.Shutdown(sctx)
		case <-done:
		}
	}()
	if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Start serves reg's metrics on lis in the background until ctx is done;
// an error of the server (not its shutdown) goes to the log.
func Start(ctx context.Context, lis net.Listener, reg *prometheus.Registry, log *slog.Logger) {
	go func() {
		if err := Serve(ctx, lis, reg, log); err != nil && log != nil {
			log.Error("metrics server stopped", "addr", lis.Addr().String(), "err", err)
		}
	}()
}

// GRPCServer registers the gRPC server metrics (grpc_server_started_total,
// grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code},
// grpc_server_msg_received_total, grpc_server_msg_sent_total and the
// grpc_server_handling_seconds histogram) with reg and returns their
// interceptors.
func GRPCServer(reg prometheus.Registerer) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	m := grpcprom.NewServerMetrics(grpcprom.WithServerHandlingTimeHistogram(
		grpcprom.WithHistogramBuckets([]float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}),
	))
	reg.MustRegister(m)
	return m.UnaryServerInterceptor(), m.StreamServerInterceptor()
}

// HTTP counts and times the requests h serves:
// http_requests_total{surface,route,method,code} and the
// http_request_duration_seconds{surface,route,method} histogram. route
// names a request's route with few values (never a raw path, whose skill
// names would make a series each); nil routes every request as "other".
// Register it once per surface and registry.
func HTTP(reg prometheus.Registerer, surface string, route func(*http.Request) string, h http.Handler) http.Handler {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "http_requests_total",
		Help:        "HTTP requests served, by route, method and status code.",
		ConstLabels: prometheus.Labels{"surface": surface},
	}, []string{"route", "method", "code"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:        "http_request_duration_seconds",
		Help:        "Time to serve an HTTP request, by route and method.",
		ConstLabels: prometheus.Labels{"surface": surface},
		Buckets:     []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route", "method"})
	reg.MustRegister(requests, duration)
	if route == nil {
		route = func(*http.Request) string { return "other" }
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		rt, method := route(r), methodLabel(r.Method)
		requests.WithLabelValues(rt, method, strconv.Itoa(rec.code)).Inc()
		duration.WithLabelValues(rt, method).Observe(time.Since(start).Seconds())
	})
}

// methodLabel bounds the method label to the standard methods.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// statusRecorder remembers the status code written through it.
type statusRecorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Flush lets streaming answers (MCP's server-sent events) through.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the writer underneath.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Package accesslog writes one info line per request a service answers: per
// gRPC call (skillsd) and per HTTP request (skills-rest, skills-mcp --http),
// with the method or route, the outcome (gRPC code or HTTP status), the
// duration and the request id when the request carries one (x-request-id).
// It is kept apart from the other interceptors so that it can be switched
// on where a line per request is wanted (network services) and left off
// where it is not (stdio MCP, the command line, a gateway's in-process calls,
// which its own HTTP line already covers).
package accesslog

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Message is the message of every access-log line.
const Message = "access"

// RequestIDHeader is the header (and, lower-cased, the gRPC metadata key)
// whose value is logged as request_id.
const RequestIDHeader = "X-Request-Id"

// maxPath bounds the path logged for an HTTP request.
const maxPath = 200

// UnaryServerInterceptor logs each unary call when it returns.
func UnaryServerInterceptor(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		logCall(ctx, log, info.FullMethod, start, err)
		return resp, err
	}
}

// StreamServerInterceptor logs each streaming call when it ends.
func StreamServerInterceptor(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		logCall(ss.Context(), log, info.FullMethod, start, err)
		return err
	}
}

func logCall(ctx context.Context, log *slog.Logger, method string, start time.Time, err error) {
	attrs := []slog.Attr{
		slog.String("protocol", "grpc"),
		slog.String("method", method),
		slog.String("code", status.Code(err).String()),
		slog.Duration("duration", time.Since(start)),
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if ids := md.Get("x-request-id"); len(ids) > 0 && ids[0] != "" {
			attrs = append(attrs, slog.String("request_id", clip(ids[0], 128)))
		}
	}
	log.LogAttrs(ctx, slog.LevelInfo, Message, attrs...)
}

// HTTP wraps next so that each request is logged when it is answered.
func HTTP(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			st := rec.status
			if st == 0 {
				st = http.StatusOK // nothing written: net/http answers 200
			}
			attrs := []slog.Attr{
				slog.String("protocol", "http"),
				slog.String("method", r.Method),
				slog.String("path", clip(r.URL.Path, maxPath)),
				slog.Int("status", st),
				slog.Duration("duration", time.Since(start)),
				slog.Int64("bytes", rec.bytes),
			}
			id := r.Header.Get(RequestIDHeader)
			if id == "" {
				id = w.Header().Get(RequestIDHeader) // one the server gave it
			}
			if id != "" {
				attrs = append(attrs, slog.String("request_id", clip(id, 128)))
			}
			log.LogAttrs(r.Context(), slog.LevelInfo, Message, attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder remembers the status and counts the bytes written; it unwraps
// to the original writer, so that streaming answers can still flush.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 && code >= 200 { // 1xx answers are not the final one
		rec.status = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	n, err := rec.ResponseWriter.Write(p)
	rec.bytes += int64(n)
	return n, err
}

// Flush implements http.Flusher.
func (rec *recorder) Flush() {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	_ = http.NewResponseController(rec.ResponseWriter).Flush()
}

// Unwrap returns the original writer, for http.ResponseController.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

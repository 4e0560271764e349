// Package accesslog writes one info line per request a service answers: per
// gRPC call (skillsd) and per HTTP request (skills-rest, skills-mcp --http),
// with the method or route, the outcome (gRPC code or HTTP status), the
// duration and the request id: the caller's (x-request-id), else a new
// one, answered back in the same header; gateways pass it on to the service.
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
		ctx, made := callID(ctx)
		if made { // a caller's own id it knows already
			_ = grpc.SetHeader(ctx, metadata.Pairs(metadataKey, RequestID(ctx)))
		}
		resp, err := handler(ctx, req)
		logCall(ctx, log, info.FullMethod, start, err)
		return resp, err
	}
}

// StreamServerInterceptor logs each streaming call when it ends.
func StreamServerInterceptor(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		ctx, made := callID(ss.Context())
		if made {
			_ = ss.SetHeader(metadata.Pairs(metadataKey, RequestID(ctx)))
		}
		err := handler(srv, &idStream{ServerStream: ss, ctx: ctx})
		logCall(ctx, log, info.FullMethod, start, err)
		return err
	}
}

// callID is ctx with the call's request id: the caller's x-request-id,
// else a new one (made), which the call then answers in its header.
func callID(ctx context.Context) (context.Context, bool) {
	if id := RequestID(ctx); id != "" {
		return WithRequestID(ctx, id), false
	}
	return WithRequestID(ctx, NewRequestID()), true
}

// idStream is a server stream whose context carries the request id.
type idStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *idStream) Context() context.Context { return s.ctx }

func logCall(ctx context.Context, log *slog.Logger, method string, start time.Time, err error) {
	attrs := []slog.Attr{
		slog.String("protocol", "grpc"),
		slog.String("method", method),
		slog.String("code", status.Code(err).String()),
		slog.Duration("duration", time.Since(start)),
	}
	if id := RequestID(ctx); id != "" {
		attrs = append(attrs, slog.String("request_id", id))
	}
	log.LogAttrs(ctx, slog.LevelInfo, Message, attrs...)
}

// HTTP wraps next so that each request is logged when it is answered.
func HTTP(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// The caller's X-Request-Id, else a new one: answered back, and
		// passed on to the service by the gateways (DialOptions).
		id := callerID(r.Header.Get(RequestIDHeader))
		if id == "" {
			id = NewRequestID()
		}
		r.Header.Set(RequestIDHeader, id) // what the gateways pass on
		w.Header().Set(RequestIDHeader, id)
		r = r.WithContext(WithRequestID(r.Context(), id))
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
			attrs = append(attrs, slog.String("request_id", id))
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

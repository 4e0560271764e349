package server

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Policy is what the interceptors ask of the server that owns the listener.
type Policy struct {
	// Check authenticates a call (edge.Guard.CheckGRPC, or nothing for the
	// calls of the process itself); nil lets every call through.
	Check func(ctx context.Context, method string) error
	// Hide reports whether a call's answer leaves the server's absolute paths
	// out (network.hide_paths); nil never hides them.
	Hide func(ctx context.Context) bool
}

// Interceptors returns the unary and stream interceptors every skillsd server
// uses, outermost first: panic recovery, logging, authentication, then the
// hiding of absolute paths.
func (s *Service) Interceptors(log *slog.Logger, p Policy) ([]grpc.UnaryServerInterceptor, []grpc.StreamServerInterceptor) {
	recoverUnary, recoverStream := recovered(log)
	logUnary, logStream := logged(log)
	unary := []grpc.UnaryServerInterceptor{recoverUnary, logUnary, p.unary, s.HidePathsUnary}
	stream := []grpc.StreamServerInterceptor{recoverStream, logStream, p.stream, s.HidePathsStream}
	return unary, stream
}

// interceptors makes the unary and the stream interceptor of around, which
// runs a call (call, the handler) knowing its context and method, and
// whether it is a stream.
func interceptors(around func(ctx context.Context, method string, stream bool, call func() error) error) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		err = around(ctx, info.FullMethod, false, func() error {
			var herr error
			resp, herr = handler(ctx, req)
			return herr
		})
		return resp, err
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return around(ss.Context(), info.FullMethod, true, func() error { return handler(srv, ss) })
	}
	return unary, stream
}

// recovered answers a handler's panic with Internal, and logs it with its
// stack.
func recovered(log *slog.Logger) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	return interceptors(func(ctx context.Context, method string, stream bool, call func() error) (err error) {
		defer func() {
			if p := recover(); p != nil {
				msg := "panic in handler"
				if stream {
					msg = "panic in stream handler"
				}
				log.ErrorContext(ctx, msg, "method", method, "panic", p, "stack", string(debug.Stack()))
				err = status.Error(codes.Internal, "internal error; the server log has the details")
			}
		}()
		return call()
	})
}

// logged logs each call when it returns (logCall).
func logged(log *slog.Logger) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	return interceptors(func(ctx context.Context, method string, _ bool, call func() error) error {
		start := time.Now()
		err := call()
		logCall(ctx, log, method, start, err)
		return err
	})
}

func logCall(ctx context.Context, log *slog.Logger, method string, start time.Time, err error) {
	code := status.Code(err)
	level := slog.LevelDebug
	if code == codes.Internal || code == codes.Unknown || code == codes.DataLoss {
		level = slog.LevelError
	}
	log.Log(ctx, level, "rpc", "method", method, "code", code.String(), "duration", time.Since(start))
}

func (p Policy) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if p.Check != nil {
		if err := p.Check(ctx, info.FullMethod); err != nil {
			return nil, err
		}
	}
	if p.Hide != nil && p.Hide(ctx) {
		ctx = WithHiddenPaths(ctx)
	}
	return handler(ctx, req)
}

func (p Policy) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if p.Check != nil {
		if err := p.Check(ss.Context(), info.FullMethod); err != nil {
			return err
		}
	}
	if p.Hide != nil && p.Hide(ss.Context()) {
		ss = &contextStream{ServerStream: ss, ctx: WithHiddenPaths(ss.Context())}
	}
	return handler(srv, ss)
}

// contextStream is a stream with another context.
type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *contextStream) Context() context.Context { return c.ctx }

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
	unary := []grpc.UnaryServerInterceptor{recoverUnary(log), logUnary(log), p.unary, s.HidePathsUnary}
	stream := []grpc.StreamServerInterceptor{recoverStream(log), logStream(log), p.stream, s.HidePathsStream}
	return unary, stream
}

func recoverUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if p := recover(); p != nil {
				log.ErrorContext(ctx, "panic in handler", "method", info.FullMethod, "panic", p, "stack", string(debug.Stack()))
				err = status.Error(codes.Internal, "internal error; the server log has the details")
			}
		}()
		return handler(ctx, req)
	}
}

func recoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if p := recover(); p != nil {
				log.ErrorContext(ss.Context(), "panic in stream handler", "method", info.FullMethod, "panic", p, "stack", string(debug.Stack()))
				err = status.Error(codes.Internal, "internal error; the server log has the details")
			}
		}()
		return handler(srv, ss)
	}
}

func logUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		logCall(ctx, log, info.FullMethod, start, err)
		return resp, err
	}
}

func logStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		err := handler(srv, ss)
		logCall(ss.Context(), log, info.FullMethod, start, err)
		return err
	}
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

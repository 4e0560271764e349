package server

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// healthPrefix is the method prefix of the standard health service, which
// answers without credentials so that load balancers can probe it.
const healthPrefix = "/grpc.health.v1.Health/"

// Interceptors returns the unary and stream interceptors every skillsd server
// uses, outermost first: panic recovery, logging, then bearer-token auth (when
// tokens is not empty).
func Interceptors(log *slog.Logger, tokens []string) ([]grpc.UnaryServerInterceptor, []grpc.StreamServerInterceptor) {
	a := &auth{tokens: tokens}
	unary := []grpc.UnaryServerInterceptor{recoverUnary(log), logUnary(log), a.unary}
	stream := []grpc.StreamServerInterceptor{recoverStream(log), logStream(log), a.stream}
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

// auth checks "authorization: Bearer <token>" against the accepted tokens in
// constant time. With no tokens configured every call is let through.
type auth struct{ tokens []string }

func (a *auth) check(ctx context.Context, method string) error {
	if len(a.tokens) == 0 || strings.HasPrefix(method, healthPrefix) {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		scheme, tok, ok := strings.Cut(v, " ")
		if !ok || !strings.EqualFold(scheme, "bearer") {
			continue
		}
		tok = strings.TrimSpace(tok)
		matched := 0
		for _, want := range a.tokens {
			matched |= subtle.ConstantTimeCompare([]byte(tok), []byte(want))
		}
		if matched == 1 {
			return nil
		}
		return status.Error(codes.Unauthenticated, "the bearer token was refused")
	}
	return status.Error(codes.Unauthenticated, "a bearer token is required (authorization: Bearer <token>)")
}

func (a *auth) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := a.check(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (a *auth) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := a.check(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

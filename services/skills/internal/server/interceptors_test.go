package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// panicStream is a server stream whose context is ctx.
type panicStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s panicStream) Context() context.Context { return s.ctx }

func TestRecoveredAnswersPanicsWithInternal(t *testing.T) {
	var buf bytes.Buffer
	unary, stream := recovered(slog.New(slog.NewTextHandler(&buf, nil)))
	info := &grpc.UnaryServerInfo{FullMethod: "/skills.v1.X/Unary"}
	resp, err := unary(t.Context(), nil, info, func(context.Context, any) (any, error) { panic("boom") })
	if resp != nil || status.Code(err) != codes.Internal {
		t.Errorf("unary after a panic = %v, %v; want nil, Internal", resp, err)
	}
	if out := buf.String(); !strings.Contains(out, `msg="panic in handler"`) || !strings.Contains(out, "/skills.v1.X/Unary") {
		t.Errorf("unary panic log = %q", out)
	}
	buf.Reset()
	sinfo := &grpc.StreamServerInfo{FullMethod: "/skills.v1.X/Stream"}
	err = stream(nil, panicStream{ctx: t.Context()}, sinfo, func(any, grpc.ServerStream) error { panic("boom") })
	if status.Code(err) != codes.Internal {
		t.Errorf("stream after a panic = %v; want Internal", err)
	}
	if out := buf.String(); !strings.Contains(out, `msg="panic in stream handler"`) || !strings.Contains(out, "/skills.v1.X/Stream") {
		t.Errorf("stream panic log = %q", out)
	}
}

func TestLoggedPassesCallsThrough(t *testing.T) {
	var buf bytes.Buffer
	unary, stream := logged(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	info := &grpc.UnaryServerInfo{FullMethod: "/skills.v1.X/Unary"}
	resp, err := unary(t.Context(), "req", info, func(_ context.Context, req any) (any, error) { return req.(string) + "!", nil })
	if resp != "req!" || err != nil {
		t.Errorf("unary = %v, %v; want req!, nil", resp, err)
	}
	failed := status.Error(codes.NotFound, "no such skill")
	sinfo := &grpc.StreamServerInfo{FullMethod: "/skills.v1.X/Stream"}
	if err := stream(nil, panicStream{ctx: t.Context()}, sinfo, func(any, grpc.ServerStream) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("stream = %v; want %v", err, failed)
	}
	out := buf.String()
	for _, want := range []string{"method=/skills.v1.X/Unary code=OK", "method=/skills.v1.X/Stream code=NotFound"} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
}

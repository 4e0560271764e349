package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestRunRejectsBadInput(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		name  string
		args  []string
		env   map[string]string
		usage bool
		want  string
	}{
		{"unknown flag", []string{"--nope"}, nil, true, "nope"},
		{"stray argument", []string{"extra"}, nil, true, "unexpected argument"},
		{"bad log level flag", []string{"--log-level", "loud"}, nil, true, "loud"},
		{"bad LOG_LEVEL", nil, map[string]string{"LOG_LEVEL": "chatty"}, true, "chatty"},
		{"bad log format flag", []string{"--log-format", "yaml"}, nil, true, "yaml"},
		{"bad LOG_FORMAT", nil, map[string]string{"LOG_FORMAT": "logfmt"}, true, "logfmt"},
		{"empty token variable", []string{"--token-env", "TOKENS"}, nil, true, "TOKENS"},
		{"bad listen address", []string{"--skills-dir", t.TempDir(), "--grpc", "256.0.0.1:http"}, nil, false, "listening"},
		{"bad config value", []string{"--skills-dir", t.TempDir(), "--config", "/does/not/exist.yaml"}, nil, false, "exist.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			vars := map[string]string{"SKILLSD_HOME": t.TempDir()} // state (the usage store) stays out of the real home
			for k, v := range tc.env {
				vars[k] = v
			}
			err := run(t.Context(), tc.args, env(vars), &stderr)
			if err == nil {
				t.Fatal("got nil error")
			}
			var usage usageError
			if got := errors.As(err, &usage); got != tc.usage {
				t.Errorf("usage error: got %v, want %v (%v)", got, tc.usage, err)
			}
			if !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Errorf("got %q, want it to mention %q", err.Error()+stderr.String(), tc.want)
			}
		})
	}
}

func TestRunServesUntilCancelled(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	home := t.TempDir() // state (the usage store) stays out of the real home
	go func() {
		done <- run(ctx, []string{"--skills-dir", "../../../../examples/skills", "--grpc", addr}, func(k string) string {
			return map[string]string{"SKILLSD_HOME": home}[k]
		}, &stderr)
	}()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became healthy: %v\n%s", err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: got %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

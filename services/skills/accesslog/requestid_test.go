package accesslog

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
)

// TestCallerRequestIDs: a caller's id is kept when it can travel on as gRPC
// metadata and be logged as is; anything else (too long, non-ASCII, spaces,
// control characters) is replaced by an id of ours, which the answer, the
// log and what the gateways pass on all carry.
func TestCallerRequestIDs(t *testing.T) {
	cases := []struct {
		sent string
		keep bool
	}{
		{"", false},
		{"4bf92f3577b34da6a3ce929d0e0e4736", true},
		{"123e4567-e89b-12d3-a456-426614174000", true},
		{"trace:abc/def+g==", true},
		{strings.Repeat("a", maxID), true},
		{strings.Repeat("a", maxID+1), false},
		{"héllo", false},
		{"a b", false},
		{"x\" level=ERROR msg=forged", false},
		{"a\tb", false},
	}
	for _, c := range cases {
		var seen string
		h := HTTP(slog.New(slog.NewTextHandler(io.Discard, nil)), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = RequestID(r.Context())
			if got := r.Header.Get(RequestIDHeader); got != seen {
				t.Errorf("sent %q: the request's header says %q, its context %q", c.sent, got, seen)
			}
		}))
		req := httptest.NewRequest(http.MethodGet, "/v1/skills", nil)
		if c.sent != "" {
			req.Header[RequestIDHeader] = []string{c.sent}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		answered := rec.Header().Get(RequestIDHeader)
		if answered != seen {
			t.Errorf("sent %q: answered %q, handled as %q", c.sent, answered, seen)
		}
		if c.keep && seen != c.sent {
			t.Errorf("sent %q: handled as %q, want it kept", c.sent, seen)
		}
		if !c.keep && (seen == c.sent || callerID(seen) != seen || len(seen) != 32) {
			t.Errorf("sent %q: handled as %q, want a fresh id of ours", c.sent, seen)
		}
		// What a gateway passes on is valid gRPC metadata, and the service
		// reads the same id back.
		out, _ := metadata.FromOutgoingContext(outgoing(WithRequestID(t.Context(), seen)))
		in := metadata.NewIncomingContext(t.Context(), out)
		if got := RequestID(in); got != seen {
			t.Errorf("sent %q: the service reads %q, want %q", c.sent, got, seen)
		}
	}
	bad := metadata.NewIncomingContext(t.Context(), metadata.Pairs(metadataKey, "a b"))
	if got := RequestID(bad); got != "" {
		t.Errorf("a service call with request id %q: read %q, want none (one of ours is made)", "a b", got)
	}
}

// TestCallID: a call keeps the request id its outgoing metadata has, else
// takes its context's, else a fresh one of its own.
func TestCallID(t *testing.T) {
	base := t.Context()
	if got := outgoingIDs(CallID(metadata.AppendToOutgoingContext(base, metadataKey, "given"))); len(got) != 1 || got[0] != "given" {
		t.Errorf("with an outgoing id: %q, want [given]", got)
	}
	if got := outgoingIDs(CallID(WithRequestID(base, "mine"))); len(got) != 1 || got[0] != "mine" {
		t.Errorf("with the context's id: %q, want [mine]", got)
	}
	a, b := outgoingIDs(CallID(base)), outgoingIDs(CallID(base))
	if len(a) != 1 || len(b) != 1 || a[0] == "" || a[0] == b[0] {
		t.Errorf("fresh ids of two calls: %q and %q, want two different ones", a, b)
	}
}

// outgoingIDs are the request ids in ctx's outgoing metadata.
func outgoingIDs(ctx context.Context) []string {
	md, _ := metadata.FromOutgoingContext(ctx)
	return md.Get(metadataKey)
}

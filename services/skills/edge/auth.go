package edge

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/githubauth"
)

// healthPrefix is the standard gRPC health service, which answers without
// credentials so that load balancers can probe it.
const healthPrefix = "/grpc.health.v1.Health/"

// authenticator checks a caller's Authorization value.
type authenticator struct {
	mode   string
	tokens [][sha256.Size]byte // digests: compared in constant time, lengths included
	github *githubauth.Authenticator
}

// splitTokens reads a comma-separated list of tokens.
func splitTokens(v string) []string {
	var out []string
	for t := range strings.SplitSeq(v, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// check returns nil when header (the Authorization value) is accepted, else
// a *githubauth.Error (the one vocabulary of refusals: UNAUTHORIZED,
// FORBIDDEN, NOT_FOUND, UPSTREAM_ERROR).
func (a *authenticator) check(ctx context.Context, header string) *githubauth.Error {
	switch a.mode {
	case ModeToken:
		scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
		if header == "" || !ok || !strings.EqualFold(scheme, "bearer") {
			return &githubauth.Error{Code: githubauth.CodeUnauthorized, Message: "a bearer token is required: send Authorization: Bearer <token>"}
		}
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		matched := 0
		for _, want := range a.tokens {
			matched |= subtle.ConstantTimeCompare(got[:], want[:])
		}
		if matched != 1 {
			return &githubauth.Error{Code: githubauth.CodeUnauthorized, Message: "the bearer token was refused"}
		}
		return nil
	case ModeGitHub:
		token, err := githubauth.DecodeBearer(header)
		if err == nil {
			err = a.github.Check(ctx, token)
		}
		if err == nil {
			return nil
		}
		var e *githubauth.Error
		if !errors.As(err, &e) {
			e = &githubauth.Error{Code: githubauth.CodeUpstreamError, Message: "checking the token failed"}
		}
		return e
	}
	return nil
}

// grpcCode maps a refusal to its gRPC code.
func grpcCode(e *githubauth.Error) codes.Code {
	switch e.HTTPStatus() {
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	}
	return codes.Unavailable
}

// CheckGRPC authenticates a gRPC call from its "authorization" metadata. The
// health service is always open. It returns nil or a status error
// (Unauthenticated, PermissionDenied, or Unavailable when GitHub cannot be
// asked).
func (g *Guard) CheckGRPC(ctx context.Context, method string) error {
	if g.auth == nil || strings.HasPrefix(method, healthPrefix) {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	values := md.Get("authorization")
	if len(values) == 0 {
		values = []string{""}
	}
	var refused *githubauth.Error
	for _, v := range values {
		if refused = g.auth.check(ctx, v); refused == nil {
			return nil
		}
	}
	g.log.InfoContext(ctx, "call refused", "surface", g.surface, "method", method, "code", refused.Code, "repo", refused.Repo)
	return status.Error(grpcCode(refused), refused.Message)
}

// Refusal writes a refused HTTP request: the status, and a body in the
// surface's own error shape.
type Refusal func(w http.ResponseWriter, r *http.Request, e *githubauth.Error)

// HTTPOptions says which requests need no credentials and how refusals look.
type HTTPOptions struct {
	// Open reports requests served without credentials (health, static
	// files); nil opens none. CORS preflights (OPTIONS with
	// Access-Control-Request-Method) are always let through: they carry no
	// credentials by design and reach no API.
	Open func(*http.Request) bool
	// Refuse writes a refusal; nil writes {"error": {"code", "message",
	// "details"}} (the REST shape).
	Refuse Refusal
}

// HTTP guards next: requests that are not open must carry credentials the
// mode accepts, or get 401 (with a WWW-Authenticate challenge), 403 or 502
// and never reach next. Accepted requests reach next without their
// Authorization header, so that a gateway sends its own credential upstream
// and never the caller's.
func (g *Guard) HTTP(next http.Handler, opts HTTPOptions) http.Handler {
	if g.auth == nil {
		return next
	}
	refuse := opts.Refuse
	if refuse == nil {
		refuse = RESTRefusal
	}
	realm := g.realm
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (opts.Open != nil && opts.Open(r)) || (r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "") {
			next.ServeHTTP(w, r)
			return
		}
		if e := g.auth.check(r.Context(), r.Header.Get("Authorization")); e != nil {
			g.log.InfoContext(r.Context(), "request refused", "surface", g.surface, "path", clip(r.URL.Path), "code", e.Code, "repo", e.Repo)
			if e.Code == githubauth.CodeUnauthorized {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="invalid_token"`, realm))
			}
			w.Header().Set("Cache-Control", "no-store")
			refuse(w, r, e)
			return
		}
		r2 := r.Clone(r.Context())
		r2.Header.Del("Authorization")
		next.ServeHTTP(w, r2)
	})
}

// RESTRefusal writes e as {"error": {"code", "message", "details"}}, the
// shape of every REST error.
func RESTRefusal(w http.ResponseWriter, _ *http.Request, e *githubauth.Error) {
	details := map[string]any{}
	if e.Repo != "" {
		details["repo"] = e.Repo
	}
	if e.GitHubStatus != 0 {
		details["githubStatus"] = e.GitHubStatus
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.HTTPStatus())
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "details": details}})
}

// clip shortens a request path for the log.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

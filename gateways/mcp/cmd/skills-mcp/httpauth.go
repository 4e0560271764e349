package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// authEnvDefault is the environment variable read for the HTTP bearer token
// when --auth-token-env is not given.
const authEnvDefault = "SKILLS_MCP_AUTH_TOKEN"

// httpToken returns the bearer token Streamable HTTP clients must send:
// from the variable --auth-token-env names (which must then be set), else
// from SKILLS_MCP_AUTH_TOKEN; "" means no authentication.
func httpToken(o options, getenv func(string) string) (string, error) {
	if o.authTokenEnv != "" {
		token := strings.TrimSpace(getenv(o.authTokenEnv))
		if token == "" {
			return "", usagef("--auth-token-env %s: the environment variable %s is empty or unset", o.authTokenEnv, o.authTokenEnv)
		}
		return token, nil
	}
	return strings.TrimSpace(getenv(authEnvDefault)), nil
}

// requireBearer wraps next so that only requests carrying
// "Authorization: Bearer <token>" reach it; others get 401 with a
// WWW-Authenticate challenge. Tokens are compared in constant time (of their
// digests, so that the length does not leak either).
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		gotSum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(gotSum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="skills-mcp"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized: send Authorization: Bearer <token> (the token skills-mcp reads from --auth-token-env or SKILLS_MCP_AUTH_TOKEN)"}}` + "\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

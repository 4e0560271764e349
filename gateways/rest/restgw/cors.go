package restgw

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// corsMaxAge is how long (seconds) a browser may cache a preflight answer.
const corsMaxAge = "600"

// corsAllowedHeaders are the request headers a cross-origin caller may send.
var corsAllowedHeaders = []string{"authorization", "content-type"}

// ParseCORSOrigins checks a list of allowed origins: each "*" (any origin)
// or scheme://host[:port] with scheme http or https and nothing else (no
// path, query, user or trailing slash), compared case-insensitively. key
// names the setting in errors (--cors-origin, rest.cors_origins).
func ParseCORSOrigins(key string, origins []string) ([]string, error) {
	var out []string
	for _, o := range origins {
		o = strings.TrimSpace(o)
		if o == "*" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(o)
		switch {
		case o == "":
			return nil, fmt.Errorf("%s: an empty origin; give scheme://host[:port] or *", key)
		case err != nil:
			return nil, fmt.Errorf("%s: origin %q: %v", key, o, err)
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, fmt.Errorf("%s: origin %q: want http:// or https://", key, o)
		case u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#"):
			return nil, fmt.Errorf("%s: origin %q: want scheme://host[:port] and nothing else (no path, not even /)", key, o)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return out, nil
}

// CORS lets pages served from the given origins (ParseCORSOrigins' output)
// call next from a browser: it answers preflight requests itself, before any
// authentication (browsers send no credentials in a preflight), and marks
// the answers to allowed origins. With no origins it returns next as is:
// cross-origin calls stay off. Answers carry no Access-Control-Allow-
// Credentials: callers authenticate with a bearer token, never a cookie.
func CORS(origins []string, next http.Handler) http.Handler {
	if len(origins) == 0 {
		return next
	}
	anyOrigin := slices.Contains(origins, "*")
	allowed := func(origin string) bool {
		return anyOrigin || slices.Contains(origins, strings.ToLower(origin))
	}
	errs := &errorWriter{log: slog.New(slog.DiscardHandler)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if !allowed(origin) {
			if preflight {
				errs.write(w, http.StatusForbidden, errorBody{Error: errorDetail{
					Code: "FORBIDDEN", Message: "cross-origin requests from " + clip(origin, 200) + " are not allowed (--cors-origin, rest.cors_origins)",
					Details: map[string]string{"grpc_code": "PermissionDenied"},
				}})
				return
			}
			// No CORS headers: the browser keeps the answer from the page.
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		if !preflight {
			h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Content-Type")
			next.ServeHTTP(w, r)
			return
		}
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
		method := r.Header.Get("Access-Control-Request-Method")
		if method != http.MethodGet && method != http.MethodPost && method != http.MethodHead {
			h.Del("Access-Control-Allow-Origin")
			errs.write(w, http.StatusMethodNotAllowed, errorBody{Error: errorDetail{
				Code: "METHOD_NOT_ALLOWED", Message: "cross-origin " + clip(method, 20) + " requests are not allowed: the API uses GET and POST",
				Details: map[string]string{"grpc_code": "Unimplemented"},
			}})
			return
		}
		for _, name := range strings.Split(r.Header.Get("Access-Control-Request-Headers"), ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "" && !slices.Contains(corsAllowedHeaders, name) {
				h.Del("Access-Control-Allow-Origin")
				errs.write(w, http.StatusForbidden, errorBody{Error: errorDetail{
					Code: "FORBIDDEN", Message: "cross-origin requests may not send the header " + clip(name, 100) + " (allowed: Authorization, Content-Type)",
					Details: map[string]string{"grpc_code": "PermissionDenied"},
				}})
				return
			}
		}
		h.Set("Access-Control-Allow-Methods", "GET, POST, HEAD")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		h.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
	})
}

package restgw_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
)

func TestParseCORSOrigins(t *testing.T) {
	good := map[string]string{
		"*":                          "*",
		"https://dash.example.com":   "https://dash.example.com",
		"HTTP://Localhost:5173":      "http://localhost:5173",
		" https://a.example.com:443": "https://a.example.com:443",
		"http://[::1]:8080":          "http://[::1]:8080",
	}
	for in, want := range good {
		got, err := restgw.ParseCORSOrigins("--cors-origin", []string{in})
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("ParseCORSOrigins(%q) = %v, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "dash.example.com", "https://dash.example.com/", "https://dash.example.com/app", "ftp://x.example.com",
		"https://user:pw@x.example.com", "https://x.example.com?a=1", "https://x.example.com#top", "null", "https://", "javascript:alert(1)", "http://a b"} {
		if got, err := restgw.ParseCORSOrigins("rest.cors_origins", []string{bad}); err == nil {
			t.Errorf("ParseCORSOrigins(%q) = %v, want an error", bad, got)
		} else if !strings.Contains(err.Error(), "rest.cors_origins") {
			t.Errorf("ParseCORSOrigins(%q): error %q does not name the setting", bad, err)
		}
	}
}

// corsServer is the gateway behind CORS for the given origins, with an
// "authentication" layer inside that refuses requests without a token, as
// skills-rest composes them.
func corsServer(t *testing.T, origins ...string) *httptest.Server {
	t.Helper()
	gw := serve(t, t.TempDir())
	authed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		gw.Config.Handler.ServeHTTP(w, r)
	})
	parsed, err := restgw.ParseCORSOrigins("test", origins)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(restgw.CORS(parsed, authed))
	t.Cleanup(srv.Close)
	return srv
}

func preflight(t *testing.T, srv *httptest.Server, origin, method, headers string) response {
	t.Helper()
	h := []string{"Origin", origin, "Access-Control-Request-Method", method}
	if headers != "" {
		h = append(h, "Access-Control-Request-Headers", headers)
	}
	return do(t, srv, http.MethodOptions, "/v1/skills", nil, h...)
}

func TestCORS(t *testing.T) {
	srv := corsServer(t, "https://dash.example.com", "http://localhost:5173")

	// A preflight is answered before authentication.
	p := preflight(t, srv, "https://dash.example.com", "GET", "authorization, content-type")
	if p.status != http.StatusNoContent {
		t.Fatalf("preflight: %d %s", p.status, p.raw)
	}
	for k, want := range map[string]string{
		"Access-Control-Allow-Origin":  "https://dash.example.com",
		"Access-Control-Allow-Methods": "GET, POST, HEAD",
		"Access-Control-Allow-Headers": "Authorization, Content-Type",
		"Access-Control-Max-Age":       "600",
	} {
		if got := p.header.Get(k); got != want {
			t.Errorf("preflight %s = %q, want %q", k, got, want)
		}
	}
	if p.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight allows credentials (cookies): nothing here uses them")
	}
	if !strings.Contains(strings.Join(p.header.Values("Vary"), ","), "Origin") {
		t.Errorf("preflight: no Vary: Origin")
	}

	// The actual request: marked for the allowed origin, still authenticated.
	r := get(t, srv, "/v1/skills", "Origin", "http://localhost:5173", "Authorization", "Bearer t")
	wantOK(t, "cross-origin GET", r)
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "http://localhost:5173" {
		t.Errorf("Allow-Origin %q", got)
	}
	if got := r.header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "WWW-Authenticate") {
		t.Errorf("Expose-Headers %q: a page must see the auth challenge", got)
	}
	un := get(t, srv, "/v1/skills", "Origin", "https://dash.example.com")
	if un.status != http.StatusUnauthorized || un.header.Get("Access-Control-Allow-Origin") != "https://dash.example.com" {
		t.Errorf("cross-origin GET without a token: %d, Allow-Origin %q; want 401 readable by the page", un.status, un.header.Get("Access-Control-Allow-Origin"))
	}

	// Other origins get no CORS headers; their preflights are refused.
	other := get(t, srv, "/v1/skills", "Origin", "https://evil.example.com", "Authorization", "Bearer t")
	if other.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an unlisted origin got Allow-Origin %q", other.header.Get("Access-Control-Allow-Origin"))
	}
	wantError(t, "preflight from an unlisted origin", preflight(t, srv, "https://evil.example.com", "GET", ""), http.StatusForbidden, "FORBIDDEN", "PermissionDenied")
	wantError(t, "preflight for DELETE", preflight(t, srv, "https://dash.example.com", "DELETE", ""), http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "Unimplemented")
	bad := preflight(t, srv, "https://dash.example.com", "POST", "x-evil")
	wantError(t, "preflight with another header", bad, http.StatusForbidden, "FORBIDDEN", "PermissionDenied")
	if bad.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a refused preflight carries Allow-Origin")
	}
	// A suffix or prefix of an allowed origin is another origin.
	for _, o := range []string{"https://dash.example.com.evil.com", "https://evil-dash.example.com", "http://dash.example.com"} {
		if got := get(t, srv, "/v1/skills", "Origin", o, "Authorization", "Bearer t").header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("origin %s got Allow-Origin %q", o, got)
		}
	}
}

func TestCORSAnyOrigin(t *testing.T) {
	srv := corsServer(t, "*")
	r := get(t, srv, "/v1/skills", "Origin", "https://anything.example", "Authorization", "Bearer t")
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "https://anything.example" {
		t.Errorf("Allow-Origin %q", got)
	}
}

func TestCORSOffByDefault(t *testing.T) {
	srv := corsServer(t)
	r := get(t, srv, "/v1/skills", "Origin", "https://dash.example.com", "Authorization", "Bearer t")
	wantOK(t, "GET", r)
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("without origins: Allow-Origin %q", got)
	}
	if p := preflight(t, srv, "https://dash.example.com", "GET", ""); p.status == http.StatusNoContent || p.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("without origins a preflight was allowed: %d", p.status)
	}
}

package githubauth_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/githubauth"
)

// Tokens the fake GitHub knows (made up, in the real formats).
const (
	readerToken    = "ghp_R3aderR3aderR3aderR3aderR3ader0001"
	fineToken      = "github_pat_11AAAAAAA0FineGrainedTokenReader_0000000000000000000000000000000000"
	oauthToken     = "gho_OAuthAppTokenReaderOAuthAppToken01"
	revokedToken   = "ghp_RevokedRevokedRevokedRevokedRevo02"
	samlToken      = "ghp_SamlBlockedSamlBlockedSamlBlocke03"
	blindToken     = "ghp_CannotSeeCannotSeeCannotSeeCanno04"
	limitedToken   = "ghp_RateLimitedRateLimitedRateLimite05"
	noPullToken    = "ghp_NoPullNoPullNoPullNoPullNoPullNo06"
	docsOnlyToken  = "ghp_DocsOnlyDocsOnlyDocsOnlyDocsOnly07"
	brokenGHToken  = "ghp_GitHubDownGitHubDownGitHubDownGi08"
	allowedRepo    = "octo-org/skills"
	allowedDocRepo = "octo-org/docs"
)

// fakeGitHub serves GET {prefix}/repos/{owner}/{repo} on 127.0.0.1 with
// GitHub's recorded answers (testdata), and counts the calls.
type fakeGitHub struct {
	*httptest.Server
	calls atomic.Int64
	mu    sync.Mutex
	seen  []string // Authorization headers received
}

func newFakeGitHub(t testing.TB, prefix string) *fakeGitHub {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ok, e401, e403, e403rl, e404 := read("repo_200.json"), read("repo_401.json"), read("repo_403.json"), read("repo_403_ratelimit.json"), read("repo_404.json")
	var noPull map[string]any
	if err := json.Unmarshal(ok, &noPull); err != nil {
		t.Fatal(err)
	}
	noPull["permissions"].(map[string]any)["pull"] = false
	noPullBody, _ := json.Marshal(noPull)

	f := &fakeGitHub{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		auth := r.Header.Get("Authorization")
		f.mu.Lock()
		f.seen = append(f.seen, auth)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
		if r.Method != http.MethodGet || r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		repo, found := strings.CutPrefix(r.URL.Path, prefix+"/repos/")
		if !found {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write(e404)
			return
		}
		token := strings.TrimPrefix(auth, "Bearer ")
		write := func(code int, body []byte) {
			w.WriteHeader(code)
			_, _ = w.Write(body)
		}
		switch token {
		case readerToken, fineToken, oauthToken:
			if repo == allowedRepo || repo == allowedDocRepo {
				write(http.StatusOK, ok)
				return
			}
			write(http.StatusNotFound, e404)
		case docsOnlyToken:
			if repo == allowedDocRepo {
				write(http.StatusOK, ok)
				return
			}
			write(http.StatusNotFound, e404)
		case samlToken:
			write(http.StatusForbidden, e403)
		case blindToken:
			write(http.StatusNotFound, e404)
		case limitedToken:
			w.Header().Set("X-RateLimit-Limit", "5000")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", "1893456000")
			write(http.StatusForbidden, e403rl)
		case noPullToken:
			write(http.StatusOK, noPullBody)
		case brokenGHToken:
			write(http.StatusBadGateway, []byte("<html>unicorn</html>"))
		default:
			write(http.StatusUnauthorized, e401)
		}
	}))
	f.Server.Listener = lis
	f.Start()
	t.Cleanup(f.Close)
	return f
}

func bearer(token string) string { return "Bearer " + githubauth.EncodeToken(token) }

// serve runs one request through the middleware and reports what the
// wrapped handler saw.
type recorded struct {
	code    int
	body    map[string]any
	reached bool
	auth    string // the Authorization header next saw
	header  http.Header
}

func serve(t *testing.T, a *githubauth.Authenticator, authHeader string) recorded {
	t.Helper()
	var rec recorded
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.reached = true
		rec.auth = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusTeapot)
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	if authHeader != "" {
		req.Header.Set("Authorization", authHeader)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	rec.code = w.Code
	rec.header = w.Header()
	if w.Code != http.StatusTeapot {
		if err := json.Unmarshal(w.Body.Bytes(), &rec.body); err != nil {
			t.Fatalf("error body %q is not JSON: %v", w.Body.String(), err)
		}
	}
	return rec
}

func errCode(r recorded) string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func newAuth(t *testing.T, gh *fakeGitHub, api string, log *slog.Logger, repos ...string) *githubauth.Authenticator {
	t.Helper()
	if len(repos) == 0 {
		repos = []string{allowedRepo}
	}
	a, err := githubauth.New(githubauth.Options{APIURL: api, Repos: repos, Client: gh.Client(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMiddleware(t *testing.T) {
	gh := newFakeGitHub(t, "")
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := newAuth(t, gh, gh.URL, log, allowedRepo, allowedDocRepo)

	tests := []struct {
		name             string
		header           string
		wantStatus       int
		wantCode         string
		wantGitHub       bool // GitHub is asked
		wantStatusDetail float64
	}{
		{"classic PAT", bearer(readerToken), http.StatusTeapot, "", true, 0},
		{"fine-grained PAT", bearer(fineToken), http.StatusTeapot, "", true, 0},
		{"OAuth token", bearer(oauthToken), http.StatusTeapot, "", true, 0},
		{"padded base64", "Bearer " + base64.URLEncoding.EncodeToString([]byte(oauthToken+"x")), http.StatusUnauthorized, "UNAUTHORIZED", true, 401},
		{"missing header", "", http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"not bearer", "Basic " + githubauth.EncodeToken(readerToken), http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"empty bearer", "Bearer ", http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"not base64", "Bearer ghp_!!notbase64!!", http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"standard base64 alphabet", "Bearer " + base64.StdEncoding.EncodeToString([]byte("ghp_a?>b?>c")), http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"raw token, not encoded", "Bearer " + readerToken, http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"unknown prefix", bearer("xoxb-slack-token-0000"), http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"installation token prefix", bearer("ghs_0000000000000000000000000000000000"), http.StatusUnauthorized, "UNAUTHORIZED", false, 0},
		{"revoked", bearer(revokedToken), http.StatusUnauthorized, "UNAUTHORIZED", true, 401},
		{"SAML", bearer(samlToken), http.StatusForbidden, "FORBIDDEN", true, 403},
		{"cannot see", bearer(blindToken), http.StatusForbidden, "NOT_FOUND", true, 404},
		{"no pull permission", bearer(noPullToken), http.StatusForbidden, "FORBIDDEN", true, 200},
		{"reads only one of two", bearer(docsOnlyToken), http.StatusForbidden, "NOT_FOUND", true, 404},
		{"rate limited", bearer(limitedToken), http.StatusBadGateway, "UPSTREAM_ERROR", true, 403},
		{"GitHub down", bearer(brokenGHToken), http.StatusBadGateway, "UPSTREAM_ERROR", true, 502},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := gh.calls.Load()
			r := serve(t, a, tt.header)
			if r.code != tt.wantStatus || errCode(r) != tt.wantCode {
				t.Fatalf("status %d code %q (body %v), want %d %q", r.code, errCode(r), r.body, tt.wantStatus, tt.wantCode)
			}
			if asked := gh.calls.Load() > before; asked != tt.wantGitHub {
				t.Errorf("GitHub asked: %v, want %v", asked, tt.wantGitHub)
			}
			if tt.wantStatus == http.StatusTeapot {
				if !r.reached || r.auth != "" {
					t.Errorf("next reached %v with Authorization %q; want reached without it", r.reached, r.auth)
				}
				return
			}
			if r.reached {
				t.Errorf("next ran for a refused request")
			}
			details, _ := r.body["error"].(map[string]any)["details"].(map[string]any)
			if details == nil {
				t.Fatalf("no details in %v", r.body)
			}
			if tt.wantStatusDetail != 0 && details["githubStatus"] != tt.wantStatusDetail {
				t.Errorf("details.githubStatus = %v, want %v", details["githubStatus"], tt.wantStatusDetail)
			}
			if tt.wantGitHub && details["repo"] == nil {
				t.Errorf("details.repo missing: %v", details)
			}
			if tt.wantCode == "UNAUTHORIZED" && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer ") {
				t.Errorf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
			}
		})
	}
	// GitHub saw each token as a bearer token, never the encoded form.
	gh.mu.Lock()
	for _, s := range gh.seen {
		if !strings.HasPrefix(s, "Bearer ghp_") && !strings.HasPrefix(s, "Bearer github_pat_") && !strings.HasPrefix(s, "Bearer gho_") {
			t.Errorf("GitHub received Authorization %q", s)
		}
	}
	gh.mu.Unlock()
	// No token, encoded or not, in the log.
	for _, tok := range []string{readerToken, fineToken, oauthToken, revokedToken, samlToken, blindToken, limitedToken, noPullToken, docsOnlyToken, brokenGHToken} {
		if strings.Contains(logs.String(), tok) || strings.Contains(logs.String(), githubauth.EncodeToken(tok)) {
			t.Errorf("the log holds token %s", tok[:8])
		}
	}
	if !strings.Contains(logs.String(), "request refused") {
		t.Errorf("refusals were not logged at all: %q", logs.String())
	}
}

func TestCache(t *testing.T) {
	gh := newFakeGitHub(t, "")
	now := time.Unix(1_000_000, 0)
	a, err := githubauth.New(githubauth.Options{APIURL: gh.URL, Repos: []string{allowedRepo}, Client: gh.Client(), CacheTTL: time.Minute, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for range 3 {
		if err := a.Check(ctx, readerToken); err != nil {
			t.Fatal(err)
		}
		if err := a.Check(ctx, blindToken); err == nil {
			t.Fatal("blind token allowed")
		}
	}
	if n := gh.calls.Load(); n != 2 {
		t.Errorf("GitHub asked %d times for 2 tokens checked 3 times each, want 2", n)
	}
	// Upstream failures are not cached.
	for range 2 {
		_ = a.Check(ctx, limitedToken)
	}
	if n := gh.calls.Load(); n != 4 {
		t.Errorf("GitHub asked %d times, want 4 (rate-limit answers are not cached)", n)
	}
	now = now.Add(61 * time.Second)
	if err := a.Check(ctx, readerToken); err != nil {
		t.Fatal(err)
	}
	if n := gh.calls.Load(); n != 5 {
		t.Errorf("GitHub asked %d times, want 5 (the cached answer expired)", n)
	}
}

func TestEnterpriseAPIPath(t *testing.T) {
	gh := newFakeGitHub(t, "/api/v3")
	a := newAuth(t, gh, gh.URL+"/api/v3/", nil)
	if err := a.Check(t.Context(), readerToken); err != nil {
		t.Errorf("Check through /api/v3: %v", err)
	}
}

func TestUnreachableGitHub(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now
	var logs bytes.Buffer
	a, err := githubauth.New(githubauth.Options{APIURL: "http://" + addr, Repos: []string{allowedRepo}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Check(t.Context(), readerToken)
	var e *githubauth.Error
	if !asError(err, &e) || e.Code != githubauth.CodeUpstreamError || e.HTTPStatus() != http.StatusBadGateway {
		t.Errorf("Check: %v, want UPSTREAM_ERROR", err)
	}
	if strings.Contains(logs.String(), readerToken) {
		t.Errorf("the log holds the token")
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []githubauth.Options{
		{Repos: nil},
		{Repos: []string{"octo"}},
		{Repos: []string{"octo/a/b"}},
		{APIURL: "api.github.com", Repos: []string{"o/r"}},
	} {
		if _, err := githubauth.New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestDecodeBearer(t *testing.T) {
	got, err := githubauth.DecodeBearer("bearer  " + base64.URLEncoding.EncodeToString([]byte(fineToken)))
	if err != nil || got != fineToken {
		t.Errorf("DecodeBearer(padded, lower-case scheme) = %q, %v", got, err)
	}
}

func FuzzDecodeBearer(f *testing.F) {
	f.Add("Bearer " + githubauth.EncodeToken(readerToken))
	f.Add("Bearer Z2hwX18=")
	f.Add("Bearer ====")
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		token, err := githubauth.DecodeBearer(header)
		if err != nil {
			var e *githubauth.Error
			if !asError(err, &e) || e.Code != githubauth.CodeUnauthorized || e.HTTPStatus() != http.StatusUnauthorized {
				t.Fatalf("DecodeBearer(%q): %v", header, err)
			}
			return
		}
		if !strings.HasPrefix(token, "ghp_") && !strings.HasPrefix(token, "github_pat_") && !strings.HasPrefix(token, "gho_") {
			t.Fatalf("DecodeBearer(%q) accepted %q", header, token)
		}
		if strings.ContainsAny(token, " \t\r\n") {
			t.Fatalf("token with blanks accepted: %q", token)
		}
	})
}

func asError(err error, e **githubauth.Error) bool {
	x, ok := err.(*githubauth.Error)
	*e = x
	return ok
}

// Package githubauth is delegated GitHub authentication for the HTTP surfaces
// (seed 003 REQ-AUTH-001..004, REQ-SEC-002): every caller sends its own
// GitHub token, URL-safe base64 encoded, as a bearer token, and may read only
// if that token can read the configured repositories, as GitHub's REST API
// answers (GET /repos/{owner}/{repo}).
//
// The token is held in memory for the duration of the check only. It is
// never logged, never written to disk and never passed on: the middleware
// removes the Authorization header before the wrapped handler runs. The
// answer is cached briefly in memory under a keyed hash of the token (HMAC
// with a key drawn at start), so a process dump does not even hold a plain
// hash of it.
//
// It does not fetch content with the caller's token: the server serves the
// content it synchronised with its own credential (see docs/github.md).
package githubauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Error codes (REQ-ERR-002).
const (
	CodeUnauthorized  = "UNAUTHORIZED"
	CodeForbidden     = "FORBIDDEN"
	CodeNotFound      = "NOT_FOUND"
	CodeUpstreamError = "UPSTREAM_ERROR"
)

// DefaultAPIURL is GitHub's public REST API.
const DefaultAPIURL = "https://api.github.com"

// DefaultCacheTTL is how long an answer for one token is reused.
const DefaultCacheTTL = time.Minute

// TokenPrefixes are the GitHub token kinds accepted (REQ-AUTH-003a): classic
// and fine-grained personal access tokens, and OAuth app tokens.
var TokenPrefixes = []string{"ghp_", "github_pat_", "gho_"}

// Options configures an Authenticator.
type Options struct {
	// APIURL is the GitHub REST API base: DefaultAPIURL, or a GitHub
	// Enterprise Server's https://HOST/api/v3. Empty means DefaultAPIURL.
	APIURL string
	// Repos are the repositories ("owner/name") a token must be able to read.
	// Required: at least one.
	Repos []string
	// CacheTTL is how long an answer (allowed or refused) for one token is
	// reused; zero means DefaultCacheTTL, negative disables the cache.
	// Upstream failures are never cached.
	CacheTTL time.Duration
	// Client calls GitHub; nil means a client with a 10 s timeout.
	Client *http.Client
	// Logger receives the log (never a token); nil discards it.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Realm names the server in the WWW-Authenticate challenge; empty means "skillsd".
	Realm string
}

// Error is a refused or failed authentication.
type Error struct {
	// Code is CodeUnauthorized, CodeForbidden, CodeNotFound or CodeUpstreamError.
	Code string
	// Message says what went wrong and what to do, without the token.
	Message string
	// Repo is the repository checked ("owner/name"), when one was.
	Repo string
	// GitHubStatus is GitHub's HTTP status, when GitHub answered.
	GitHubStatus int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// HTTPStatus is the HTTP status the caller gets: 401 for UNAUTHORIZED, 403
// for FORBIDDEN and NOT_FOUND (the token cannot see the repository; a 404
// on an MCP endpoint would read as "session gone"), 502 for UPSTREAM_ERROR.
func (e *Error) HTTPStatus() int {
	switch e.Code {
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case CodeForbidden, CodeNotFound:
		return http.StatusForbidden
	}
	return http.StatusBadGateway
}

// Authenticator checks callers' GitHub tokens.
type Authenticator struct {
	api    *url.URL
	repos  []string
	ttl    time.Duration
	client *http.Client
	log    *slog.Logger
	now    func() time.Time
	realm  string
	key    []byte

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	err     *Error // nil: allowed
	expires time.Time
}

// maxCached bounds the cache; past it, expired entries are dropped, then all.
const maxCached = 10000

// New returns an Authenticator. It fails on a malformed API URL or
// repository, or when no repository is given.
func New(opts Options) (*Authenticator, error) {
	if opts.APIURL == "" {
		opts.APIURL = DefaultAPIURL
	}
	api, err := url.Parse(strings.TrimRight(opts.APIURL, "/"))
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, fmt.Errorf("githubauth: API URL %q: want an http:// or https:// URL such as %s", opts.APIURL, DefaultAPIURL)
	}
	if len(opts.Repos) == 0 {
		return nil, errors.New("githubauth: no repository to check tokens against: name at least one (owner/name)")
	}
	for _, r := range opts.Repos {
		owner, name, ok := strings.Cut(r, "/")
		if !ok || owner == "" || name == "" || strings.ContainsAny(r, " \t?#") || strings.Count(r, "/") != 1 {
			return nil, fmt.Errorf("githubauth: repository %q: want owner/name", r)
		}
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Realm == "" {
		opts.Realm = "skillsd"
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("githubauth: drawing the cache key: %w", err)
	}
	return &Authenticator{
		api: api, repos: append([]string(nil), opts.Repos...), ttl: opts.CacheTTL, client: opts.Client,
		log: opts.Logger, now: opts.Now, realm: opts.Realm, key: key, cache: map[string]cached{},
	}, nil
}

// Repos returns the repositories tokens are checked against.
func (a *Authenticator) Repos() []string { return append([]string(nil), a.repos...) }

// DecodeBearer extracts the GitHub token from an Authorization header value
// (REQ-AUTH-001..003a): "Bearer " then the URL-safe base64 (RFC 4648 §5,
// padded or not) of a token with a recognised prefix.
func DecodeBearer(header string) (string, error) {
	scheme, enc, ok := strings.Cut(strings.TrimSpace(header), " ")
	if header == "" {
		return "", &Error{Code: CodeUnauthorized, Message: "missing Authorization header: send Authorization: Bearer <URL-safe base64 of your GitHub token>"}
	}
	enc = strings.TrimSpace(enc)
	if !ok || !strings.EqualFold(scheme, "Bearer") || enc == "" {
		return "", &Error{Code: CodeUnauthorized, Message: "the Authorization header is not a bearer token: send Authorization: Bearer <URL-safe base64 of your GitHub token>"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
	if err != nil || len(raw) == 0 {
		return "", &Error{Code: CodeUnauthorized, Message: "the bearer token is not URL-safe base64 (RFC 4648 §5): encode your GitHub token, e.g. printf %s \"$TOKEN\" | basenc --base64url"}
	}
	token := string(raw)
	known := false
	for _, p := range TokenPrefixes {
		if strings.HasPrefix(token, p) {
			known = true
			break
		}
	}
	if !known || strings.ContainsAny(token, " \t\r\n") {
		return "", &Error{Code: CodeUnauthorized, Message: "the decoded bearer token is not a GitHub token (want a token starting with ghp_, github_pat_ or gho_)"}
	}
	return token, nil
}

// Check reports whether token can read every configured repository: nil, or
// an *Error. Answers are cached per token for the cache TTL; upstream
// failures are not.
func (a *Authenticator) Check(ctx context.Context, token string) error {
	key := a.cacheKey(token)
	now := a.now()
	if a.ttl > 0 {
		a.mu.Lock()
		c, ok := a.cache[key]
		a.mu.Unlock()
		if ok && now.Before(c.expires) {
			if c.err != nil {
				return c.err
			}
			return nil
		}
	}
	var denied *Error
	for _, repo := range a.repos {
		if err := a.checkRepo(ctx, token, repo); err != nil {
			if err.Code == CodeUpstreamError {
				return err
			}
			denied = err
			break
		}
	}
	if a.ttl > 0 {
		a.mu.Lock()
		if len(a.cache) >= maxCached {
			for k, c := range a.cache {
				if !now.Before(c.expires) {
					delete(a.cache, k)
				}
			}
			if len(a.cache) >= maxCached {
				clear(a.cache)
			}
		}
		a.cache[key] = cached{err: denied, expires: now.Add(a.ttl)}
		a.mu.Unlock()
	}
	if denied != nil {
		return denied
	}
	return nil
}

// cacheKey is the keyed hash a token's answer is cached under.
func (a *Authenticator) cacheKey(token string) string {
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(token))
	return string(m.Sum(nil))
}

// repoAnswer is the part of GitHub's repository object that is read.
type repoAnswer struct {
	FullName    string `json:"full_name"`
	Permissions *struct {
		Pull bool `json:"pull"`
	} `json:"permissions"`
}

// checkRepo asks GitHub whether token can read repo.
func (a *Authenticator) checkRepo(ctx context.Context, token, repo string) *Error {
	u := *a.api
	u.Path = strings.TrimRight(u.Path, "/") + "/repos/" + repo
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return &Error{Code: CodeUpstreamError, Message: "building the GitHub request failed", Repo: repo}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "skillsd-githubauth")
	resp, err := a.client.Do(req)
	if err != nil {
		// The error names the URL, never the token (it is in a header).
		a.log.WarnContext(ctx, "GitHub API unreachable", "repo", repo, "api", a.api.Redacted(), "error", err)
		return &Error{Code: CodeUpstreamError, Message: "GitHub could not be reached to check the token; try again later", Repo: repo}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ghMsg := githubMessage(body)
	switch {
	case resp.StatusCode == http.StatusOK:
		var ans repoAnswer
		if err := json.Unmarshal(body, &ans); err != nil {
			return &Error{Code: CodeUpstreamError, Message: "GitHub's answer about the repository could not be read", Repo: repo, GitHubStatus: resp.StatusCode}
		}
		if ans.Permissions != nil && !ans.Permissions.Pull {
			return &Error{Code: CodeForbidden, Message: fmt.Sprintf("this GitHub token cannot read %s", repo), Repo: repo, GitHubStatus: resp.StatusCode}
		}
		return nil
	case resp.StatusCode == http.StatusUnauthorized:
		return &Error{Code: CodeUnauthorized, Message: "GitHub refused the token (" + ghMsg + "): it is invalid, expired or revoked", Repo: repo, GitHubStatus: resp.StatusCode}
	case resp.StatusCode == http.StatusForbidden && (resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""),
		resp.StatusCode == http.StatusTooManyRequests:
		return &Error{Code: CodeUpstreamError, Message: "GitHub's rate limit for this token is exhausted; try again later", Repo: repo, GitHubStatus: resp.StatusCode}
	case resp.StatusCode == http.StatusForbidden:
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("GitHub forbids this token to read %s (%s)", repo, ghMsg), Repo: repo, GitHubStatus: resp.StatusCode}
	case resp.StatusCode == http.StatusNotFound:
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("GitHub answered 404 for %s: the repository does not exist or this token cannot see it", repo), Repo: repo, GitHubStatus: resp.StatusCode}
	default:
		a.log.WarnContext(ctx, "GitHub API error", "repo", repo, "status", resp.StatusCode, "message", ghMsg)
		return &Error{Code: CodeUpstreamError, Message: fmt.Sprintf("GitHub answered %d while checking the token; try again later", resp.StatusCode), Repo: repo, GitHubStatus: resp.StatusCode}
	}
}

// githubMessage is the "message" of a GitHub error body, shortened.
func githubMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == "" {
		return "no message"
	}
	if len(e.Message) > 200 {
		return e.Message[:200]
	}
	return e.Message
}

// Middleware checks every request before next runs: a missing or malformed
// token, or one GitHub does not let read the repositories, gets the error
// as JSON ({"error": {code, message, details}}) with status 401, 403 or 502
// and next never sees the request. Allowed requests reach next without
// their Authorization header.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, err := DecodeBearer(r.Header.Get("Authorization"))
		if err == nil {
			err = a.Check(r.Context(), token)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{Code: CodeUpstreamError, Message: "checking the token failed"}
			}
			a.log.InfoContext(r.Context(), "request refused", "code", e.Code, "repo", e.Repo, "github_status", e.GitHubStatus, "path", r.URL.Path)
			a.writeError(w, e)
			return
		}
		r2 := r.Clone(r.Context())
		r2.Header.Del("Authorization")
		next.ServeHTTP(w, r2)
	})
}

// writeError writes e as seed 003's error shape (REQ-ERR-001).
func (a *Authenticator) writeError(w http.ResponseWriter, e *Error) {
	details := map[string]any{}
	if e.Repo != "" {
		details["repo"] = e.Repo
	}
	if e.GitHubStatus != 0 {
		details["githubStatus"] = e.GitHubStatus
	}
	if e.Code == CodeUnauthorized {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="invalid_token"`, a.realm))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(e.HTTPStatus())
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "details": details}})
}

// EncodeToken is the bearer value for a GitHub token: its URL-safe base64,
// unpadded. Clients (and tests) use it to build the Authorization header.
func EncodeToken(token string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(token))
}

// EnvOptions reads the settings a gateway without a configuration file (one
// in front of a remote skillsd) takes from the environment: GITHUB_API_URL
// (default DefaultAPIURL) and GITHUB_AUTH_REPOS (owner/name, comma-separated).
func EnvOptions(getenv func(string) string) Options {
	o := Options{APIURL: strings.TrimSpace(getenv("GITHUB_API_URL"))}
	for r := range strings.SplitSeq(getenv("GITHUB_AUTH_REPOS"), ",") {
		if r = strings.TrimSpace(r); r != "" {
			o.Repos = append(o.Repos, r)
		}
	}
	return o
}

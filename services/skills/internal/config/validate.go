package config

import (
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Bounds that keep values sane (and durations from overflowing).
const (
	maxResultsLimit = 50      // matching.max_results, search.limit
	maxMinutes      = 10080   // refresh.interval_minutes: one week
	maxSeconds      = 86400   // timeouts and intervals in seconds: one day
	maxConcurrent   = 1024    // scripts.max_concurrent
	maxBytes        = 1 << 40 // any byte size: 1 TiB
)

// ParseLogLevel reads a log level: debug, info, warn (or warning) or error,
// in any case.
func ParseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("unknown log level %s (want debug, info, warn or error)", quote(s))
}

// normalize puts enumerated values in their canonical form (trimmed, lower
// case; "warning" → "warn") so that Validate and the code reading them see
// one spelling.
func (c *Config) normalize() {
	for _, s := range []*string{&c.Matching.Strategy, &c.Embedding.Provider, &c.MCP.Profile, &c.Auth.Mode, &c.Log.Level, &c.Log.Format, &c.Network.HidePaths, &c.Security.Quarantine} {
		*s = strings.ToLower(strings.TrimSpace(*s))
	}
	if c.Log.Level == "warning" {
		c.Log.Level = "warn"
	}
}

// Validate checks every value: ranges, enumerations, lists, URLs and sources.
// It reports the first problem as an *Error naming the key. It does not
// change c, and does not look at the disk or the environment. Enumerations
// are expected in the canonical lower-case form of the constants (Parse and
// ApplyEnv put them in it; callers applying flags must too).
func (c *Config) Validate() error {
	checks := []func() *Error{
		c.Matching.validate, c.Refresh.validate, c.Scripts.validate, c.Assets.validate,
		c.Analytics.validate, c.Search.validate, c.Filters.validate, c.Embedding.validate,
		c.MCP.validate, c.REST.validate, c.Commands.validate, c.Auth.validate, c.TLS.validate, c.Network.validate, c.Log.validate,
		c.validateSources, c.Content.validate, c.Security.validate, c.validateSigning,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (m Matching) validate() *Error {
	if err := fraction("matching.min_score", m.MinScore); err != nil {
		return err
	}
	if err := between("matching.max_results", int64(m.MaxResults), 1, maxResultsLimit); err != nil {
		return err
	}
	if err := fraction("matching.ambiguity_threshold", m.AmbiguityThreshold); err != nil {
		return err
	}
	return oneOf("matching.strategy", m.Strategy, StrategyAuto, StrategyKeyword, StrategyRanked)
}

func (r Refresh) validate() *Error {
	return between("refresh.interval_minutes", int64(r.IntervalMinutes), 1, maxMinutes)
}

func (s Scripts) validate() *Error {
	if err := between("scripts.timeout_seconds", int64(s.TimeoutSeconds), 1, maxSeconds); err != nil {
		return err
	}
	if err := between("scripts.max_output_bytes", s.MaxOutputBytes, 1, maxBytes); err != nil {
		return err
	}
	for i, ext := range s.AllowedExtensions {
		if err := extension(itemKey("scripts.allowed_extensions", i), ext); err != nil {
			return err
		}
	}
	for _, ext := range slices.Sorted(maps.Keys(s.Runners)) {
		key := mapKey("scripts.runners", ext)
		if err := extension(key, ext); err != nil {
			return err
		}
		if strings.TrimSpace(s.Runners[ext]) == "" {
			return errorf(key, "the runner must not be empty; write the command that runs %s files (for example %q)", ext, "bash")
		}
	}
	if err := between("scripts.max_concurrent", int64(s.MaxConcurrent), 1, maxConcurrent); err != nil {
		return err
	}
	if err := items("scripts.cwd_allow", s.CwdAllow); err != nil {
		return err
	}
	for i, p := range s.ReadPaths {
		if filepath.Clean(strings.TrimSpace(p)) == "/" {
			return errorf(itemKey("scripts.read_paths", i), "%s would let scripts and commands read every file of the server; list the folders they need", quote(p))
		}
	}
	return items("scripts.read_paths", s.ReadPaths)
}

func (a Assets) validate() *Error {
	if err := between("assets.max_size_bytes", a.MaxSizeBytes, 1, maxBytes); err != nil {
		return err
	}
	return between("assets.max_file_bytes", a.MaxFileBytes, 1, maxBytes)
}

func (a Analytics) validate() *Error {
	if err := httpURL("analytics.endpoint", a.Endpoint); err != nil {
		return err
	}
	if err := between("analytics.flush_interval_seconds", int64(a.FlushIntervalSeconds), 1, maxSeconds); err != nil {
		return err
	}
	if len(a.ServerID) > 256 {
		return errorf("analytics.server_id", "must be at most 256 bytes, got %d", len(a.ServerID))
	}
	if err := a.validateStore(); err != nil {
		return err
	}
	return between("analytics.max_spool_bytes", a.MaxSpoolBytes, 1<<20, 64<<30)
}

// PostgresStore reports whether Store names a PostgreSQL database.
func (a Analytics) PostgresStore() bool {
	return strings.HasPrefix(a.Store, "postgres://") || strings.HasPrefix(a.Store, "postgresql://")
}

// validateStore checks analytics.store: "sqlite" or a postgres:// URL (its
// options are checked when the store opens). The value is never echoed: it
// may hold a password.
func (a Analytics) validateStore() *Error {
	const key = "analytics.store"
	switch {
	case a.Store == "" || a.Store == StoreSQLite:
		return nil
	case !a.PostgresStore():
		return errorf(key, "want sqlite or a postgres:// URL (such as postgres://skillsd@db.internal:5432/skillsd)")
	case strings.ContainsAny(a.Store, "\x00\n\r\t "):
		return errorf(key, "must not contain spaces or control characters")
	case !a.Enabled:
		return errorf(key, "is set but analytics is off: set analytics.enabled: true, or remove analytics.store")
	}
	if _, err := url.Parse(a.Store); err != nil {
		return errorf(key, "the postgres:// URL does not parse (check the characters of its password are %%-encoded)")
	}
	return nil
}

func (s Search) validate() *Error {
	if err := between("search.limit", int64(s.Limit), 1, maxResultsLimit); err != nil {
		return err
	}
	if err := fraction("search.threshold", s.Threshold); err != nil {
		return err
	}
	return items("search.stop_words", s.StopWords)
}

func (f Filters) validate() *Error {
	if err := items("filters.enabled_skills", f.EnabledSkills); err != nil {
		return err
	}
	return items("filters.enabled_categories", f.EnabledCategories)
}

func (e Embedding) validate() *Error {
	if err := oneOf("embedding.provider", e.Provider, ProviderNone, ProviderOpenAI); err != nil {
		return err
	}
	if err := httpURL("embedding.base_url", e.BaseURL); err != nil {
		return err
	}
	if err := between("embedding.query_timeout_ms", int64(e.QueryTimeoutMS), 10, 10000); err != nil {
		return err
	}
	if err := between("embedding.batch_size", int64(e.BatchSize), 1, 2048); err != nil {
		return err
	}
	if err := fraction("embedding.weight", e.Weight); err != nil {
		return err
	}
	if err := fraction("embedding.restated_weight", e.RestatedWeight); err != nil {
		return err
	}
	if !(e.StrongSimilarity > 0 && e.StrongSimilarity <= 1) {
		// 0 would read as "the engine's default" downstream: refuse it rather
		// than ignore it.
		return errorf("embedding.strong_similarity", "must be above 0 and at most 1, got %v", e.StrongSimilarity)
	}
	return nil
}

func (m MCP) validate() *Error {
	if err := oneOf("mcp.profile", m.Profile, Profiles()...); err != nil {
		return err
	}
	if err := between("mcp.http.session_idle_timeout_seconds", int64(m.HTTP.SessionIdleTimeoutSeconds), 1, 7*maxSeconds); err != nil {
		return err
	}
	if err := between("mcp.http.max_sessions", int64(m.HTTP.MaxSessions), 1, 1000000); err != nil {
		return err
	}
	for i, o := range m.HTTP.AllowedOrigins {
		if err := origin(itemKey("mcp.http.allowed_origins", i), o); err != nil {
			return err
		}
	}
	return nil
}

// origin checks an allowed origin: "*", or scheme://host[:port] where the
// port may be "*", with nothing after it.
func origin(key, o string) *Error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(strings.TrimSuffix(o, ":*"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(u.Host, ":") || strings.TrimSpace(o) != o {
		return errorf(key, "want an origin such as https://console.example.com, http://localhost:* (any port) or * (every origin), got %s", quote(o))
	}
	return nil
}

func (t TLS) validate() *Error {
	for key, f := range map[string]string{"tls.cert_file": t.CertFile, "tls.key_file": t.KeyFile, "tls.client_ca_file": t.ClientCAFile} {
		if strings.ContainsRune(f, 0) || (f != "" && strings.TrimSpace(f) == "") {
			return errorf(key, "want a file path")
		}
	}
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		return errorf("tls.key_file", "required with tls.cert_file: name the certificate's private key (PEM)")
	case t.KeyFile != "" && t.CertFile == "":
		return errorf("tls.cert_file", "required with tls.key_file: name the certificate chain (PEM)")
	case t.ClientCAFile != "" && t.CertFile == "":
		return errorf("tls.client_ca_file", "needs tls.cert_file and tls.key_file: client certificates are asked for over TLS only")
	}
	return nil
}

func (n Network) validate() *Error {
	return oneOf("network.hide_paths", n.HidePaths, HidePathsAuto, HidePathsAlways, HidePathsNever)
}

// validate checks each origin's form: "*", or scheme://host[:port] with
// scheme http or https and nothing after the host (skills-rest checks them
// the same way for --cors-origin).
func (r REST) validate() *Error {
	for i, o := range r.CORSOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(o, "?#") {
			return errorf("rest.cors_origins", "item %d (%s) is not an origin: want scheme://host[:port] (http or https, no path) or *", i+1, quote(o))
		}
	}
	return nil
}

func (a Auth) validate() *Error {
	if a.Mode != AuthUnset {
		if err := oneOf("auth.mode", a.Mode, AuthNone, AuthToken, AuthGitHub); err != nil {
			return err
		}
	}
	if err := envName("auth.tokens_env", a.TokensEnv); err != nil {
		return err
	}
	for i, r := range a.GitHubRepos {
		if owner, name, ok := strings.Cut(r, "/"); !ok || owner == "" || name == "" || strings.ContainsAny(name, "/ \t") || strings.ContainsAny(owner, " \t") {
			return errorf(itemKey("auth.github_repos", i), "want owner/name (such as octo-org/skills), got %s", quote(r))
		}
	}
	if a.Mode == AuthGitHub && a.GitHubAPIURL == "" {
		return errorf("auth.github_api_url", "required when auth.mode is github (for example %q)", "https://api.github.com")
	}
	return httpURL("auth.github_api_url", a.GitHubAPIURL)
}

func (l Log) validate() *Error {
	if _, err := ParseLogLevel(l.Level); err != nil {
		return errorf("log.level", "%v", err)
	}
	return oneOf("log.format", l.Format, LogText, LogJSON)
}

func (c *Config) validateSources() *Error {
	names := map[string]int{}
	for i, s := range c.Sources {
		key := itemKey("sources", i)
		switch {
		case s.Path == "" && s.Git == nil:
			return errorf(key, "set one of path (a local folder) or git (a repository)")
		case s.Path != "" && s.Git != nil:
			return errorf(key, "set only one of path and git; use two entries for two sources")
		}
		if s.Name != "" {
			if strings.TrimSpace(s.Name) == "" {
				return errorf(key+".name", "must not be blank")
			}
			if j, dup := names[strings.ToLower(s.Name)]; dup {
				return errorf(key+".name", "%s is already the name of sources[%d]; names must be unique", quote(s.Name), j)
			}
			names[strings.ToLower(s.Name)] = i
		}
		if s.Path != "" {
			if strings.TrimSpace(s.Path) == "" || strings.ContainsRune(s.Path, 0) {
				return errorf(key+".path", "want a folder path")
			}
			for j, f := range s.FollowExternalSymlinks {
				if err := followFolder(itemKey(key+".follow_external_symlinks", j), f); err != nil {
					return err
				}
			}
			continue
		}
		if len(s.FollowExternalSymlinks) > 0 {
			return errorf(key+".follow_external_symlinks", "applies to local sources (path) only: the links of a git repository never lead into the machine's folders")
		}
		g := s.Git
		if g.URL == "" {
			return errorf(key+".git.url", "required: the repository to clone (https://…, ssh://…, file://… or git@host:path)")
		}
		if err := gitURL(key+".git.url", g.URL, "put the token in an environment variable and name it in "+key+".git.token_env"); err != nil {
			return err
		}
		if g.Ref == "" {
			return errorf(key+".git.ref", "must not be empty (default %s)", DefaultGitRef)
		}
		if err := ref(key+".git.ref", g.Ref); err != nil {
			return err
		}
		if err := subPath(key+".git.path", g.Path); err != nil {
			return err
		}
		if err := envName(key+".git.token_env", g.TokenEnv); err != nil {
			return err
		}
	}
	return nil
}

// validateSigning checks that every git source asked to verify signatures
// has keys to verify them with.
func (c *Config) validateSigning() *Error {
	for i, s := range c.Sources {
		if s.Git == nil {
			continue
		}
		key := itemKey("sources", i) + ".git"
		if err := items(key+".trusted_keys", s.Git.TrustedKeys); err != nil {
			return err
		}
		if (s.Git.RequireSigned || c.Security.RequireSigned) && len(s.Git.TrustedKeys) == 0 && len(c.Security.TrustedKeys) == 0 {
			return errorf(key+".require_signed", "signed commits are required but no key is trusted: list armored public key files in %s.trusted_keys or security.trusted_keys", key)
		}
	}
	if c.Security.RequireSigned && len(c.Security.TrustedKeys) == 0 {
		return errorf("security.require_signed", "signed commits are required but no key is trusted: list armored public key files in security.trusted_keys")
	}
	return nil
}

func (c Content) validate() *Error {
	for _, r := range []struct{ kind, repo, branch, path string }{
		{"skills", c.SkillsRepo, c.SkillsBranch, c.SkillsPath},
		{"agents", c.AgentsRepo, c.AgentsBranch, c.AgentsPath},
		{"docs", c.DocsRepo, c.DocsBranch, c.DocsPath},
	} {
		if r.repo != "" {
			if err := gitURL("content."+r.kind+"_repo", r.repo, "put the token in the GITHUB_TOKEN environment variable"); err != nil {
				return err
			}
		}
		if r.branch != "" {
			if err := ref("content."+r.kind+"_branch", r.branch); err != nil {
				return err
			}
		}
		if err := subPath("content."+r.kind+"_path", r.path); err != nil {
			return err
		}
	}
	if c.SkillsBranch == "" {
		return errorf("content.skills_branch", "must not be empty (default %s)", DefaultGitRef)
	}
	if c.AgentsDir != "" && c.AgentsRepo != "" {
		return errorf("content.agents_dir", "set only one of agents_dir (a local folder) and agents_repo (a repository)")
	}
	if c.DocsDir != "" && c.DocsRepo != "" {
		return errorf("content.docs_dir", "set only one of docs_dir (a local folder) and docs_repo (a repository)")
	}
	for key, dir := range map[string]string{"content.agents_dir": c.AgentsDir, "content.docs_dir": c.DocsDir} {
		if strings.ContainsRune(dir, 0) || (dir != "" && strings.TrimSpace(dir) == "") {
			return errorf(key, "want a folder path")
		}
	}
	return nil
}

func fraction(key string, v float64) *Error {
	if !(v >= 0 && v <= 1) { // also refuses NaN
		return errorf(key, "must be between 0 and 1, got %v", v)
	}
	return nil
}

func between(key string, v, lo, hi int64) *Error {
	if v < lo || v > hi {
		return errorf(key, "must be between %d and %d, got %d", lo, hi, v)
	}
	return nil
}

func oneOf(key, v string, allowed ...string) *Error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return errorf(key, "unknown value %s (want %s)", quote(v), orList(allowed))
}

// orList writes "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func items(key string, list []string) *Error {
	for i, s := range list {
		if strings.TrimSpace(s) == "" {
			return errorf(itemKey(key, i), "must not be empty")
		}
	}
	return nil
}

func extension(key, ext string) *Error {
	if len(ext) < 2 || ext[0] != '.' || strings.ContainsAny(ext, `/\`) || strings.IndexFunc(ext, unicode.IsSpace) >= 0 {
		return errorf(key, "want a file extension with its leading dot, such as .sh, got %s", quote(ext))
	}
	return nil
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// tokenPrefixes start GitHub tokens: a value that begins with one is a token
// pasted where the name of a variable belongs.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}

// envName checks the name of an environment variable (empty is allowed). The
// value is never echoed: it may be a token pasted by mistake.
func envName(key, name string) *Error {
	if name == "" {
		return nil
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(name, p) {
			return errorf(key, "looks like a token; put the token in an environment variable and write that variable's name here")
		}
	}
	if !envNameRE.MatchString(name) {
		return errorf(key, "want the name of an environment variable (letters, digits and _), such as SKILLSD_TOKENS")
	}
	return nil
}

// httpURL checks an optional http or https URL.
func httpURL(key, s string) *Error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errorf(key, "want an http:// or https:// URL")
	}
	return nil
}

// scpLike matches git's scp-like syntax: [user@]host:path.
var scpLike = regexp.MustCompile(`^(?:([^@/:]+)@)?([A-Za-z0-9._-]+):([^/].*|/.+)$`)

// gitURL checks a repository URL: https, http, ssh, file, or scp-like; and no
// credentials inside, which would end up in logs and in .git/config.
func gitURL(key, s, tokenAdvice string) *Error {
	credentials := errorf(key, "must not embed credentials; %s", tokenAdvice)
	if strings.TrimSpace(s) != s || strings.ContainsAny(s, "\x00\n\r") {
		return errorf(key, "must not contain spaces or control characters around or inside it")
	}
	if strings.HasPrefix(s, "-") {
		return errorf(key, "must not start with -")
	}
	if !strings.Contains(s, "://") {
		head, _, _ := strings.Cut(s, "/")
		if at := strings.LastIndex(head, "@"); at >= 0 && strings.Contains(head[:at], ":") {
			return credentials
		}
		m := scpLike.FindStringSubmatch(s)
		if m == nil || len(m[2]) == 1 { // "C:\…" is a Windows path
			return errorf(key, "want a repository URL: https://host/repo.git, ssh://git@host/repo.git, file:///path/to/repo or git@host:owner/repo.git")
		}
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.Index(s, "://"); strings.Contains(s[i+3:], "@") {
			return credentials // the parse error could quote the userinfo
		}
		return errorf(key, "not a valid URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
		if u.User != nil {
			return credentials
		}
	case "ssh":
		if _, hasPassword := u.User.Password(); hasPassword {
			return credentials
		}
	case "file":
		if u.User != nil {
			return credentials
		}
		if u.Path == "" {
			return errorf(key, "a file:// URL needs a path, such as file:///srv/skills.git")
		}
		return nil
	default:
		return errorf(key, "unsupported scheme %s (want https://, http://, ssh://, file:// or git@host:path)", quote(u.Scheme+"://"))
	}
	if u.Host == "" {
		return errorf(key, "the URL has no host")
	}
	return nil
}

// ref checks a branch, tag or commit name: it reaches git commands, so it must
// not look like an option, and git refuses the rest anyway.
func ref(key, r string) *Error {
	if strings.HasPrefix(r, "-") || strings.Contains(r, "..") ||
		strings.IndexFunc(r, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 ||
		strings.ContainsAny(r, `~^:?*[\`) {
		return errorf(key, "not a valid branch, tag or commit name: %s", quote(r))
	}
	return nil
}

// subPath checks a folder inside a repository: relative, "/"-separated, and
// not climbing out. Empty and "." mean the repository root.
func subPath(key, p string) *Error {
	if p == "" {
		return nil
	}
	bad := strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") || (len(p) >= 2 && p[1] == ':')
	if !bad {
		for _, seg := range strings.Split(path.Clean(p), "/") {
			if seg == ".." {
				bad = true
			}
		}
	}
	if bad {
		return errorf(key, "want a folder inside the repository, relative and with /, such as skills; got %s", quote(p))
	}
	return nil
}

// followFolder checks one entry of follow_external_symlinks before
// expansion: a folder path, not the file system root (that would follow
// links anywhere). Whether it is absolute is checked once "~" and $VAR are
// expanded (skillsd).
func followFolder(key, f string) *Error {
	t := strings.TrimSpace(f)
	switch {
	case t == "" || strings.ContainsRune(f, 0):
		return errorf(key, "want a folder path, such as ~/dotfiles/skills")
	case strings.Trim(t, `/\`) == "":
		return errorf(key, "%s is the file system root: links could then lead anywhere; list the folders your links lead into", quote(f))
	}
	return nil
}

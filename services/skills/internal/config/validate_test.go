package config

import (
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	git := func(u string) []Source { return []Source{{Git: &GitSource{URL: u, Ref: "main"}}} }
	tests := []struct {
		name   string
		change func(c *Config)
		want   string // "" means valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"min_score below 0", func(c *Config) { c.Matching.MinScore = -0.1 }, "matching.min_score: must be between 0 and 1, got -0.1"},
		{"min_score NaN", func(c *Config) { c.Matching.MinScore = math.NaN() }, "matching.min_score: must be between 0 and 1, got NaN"},
		{"min_score bounds", func(c *Config) { c.Matching.MinScore = 1; c.Matching.AmbiguityThreshold = 0 }, ""},
		{"max_results 0", func(c *Config) { c.Matching.MaxResults = 0 }, "matching.max_results: must be between 1 and 50, got 0"},
		{"ambiguity_threshold above 1", func(c *Config) { c.Matching.AmbiguityThreshold = 2 }, "matching.ambiguity_threshold: must be between 0 and 1, got 2"},
		{"strategy", func(c *Config) { c.Matching.Strategy = "bm25" }, `matching.strategy: unknown value "bm25" (want auto, keyword or ranked)`},
		{"interval 0", func(c *Config) { c.Refresh.IntervalMinutes = 0 }, "refresh.interval_minutes: must be between 1 and 10080, got 0"},
		{"timeout negative", func(c *Config) { c.Scripts.TimeoutSeconds = -1 }, "scripts.timeout_seconds: must be between 1 and 86400, got -1"},
		{"max_output_bytes 0", func(c *Config) { c.Scripts.MaxOutputBytes = 0 }, "scripts.max_output_bytes: must be between 1 and 1099511627776, got 0"},
		{"extension without dot", func(c *Config) { c.Scripts.AllowedExtensions = []string{".sh", "py"} }, `scripts.allowed_extensions[1]: want a file extension with its leading dot, such as .sh, got "py"`},
		{"extension dot only", func(c *Config) { c.Scripts.AllowedExtensions = []string{"."} }, `scripts.allowed_extensions[0]: want a file extension with its leading dot, such as .sh, got "."`},
		{"runner key without dot", func(c *Config) { c.Scripts.Runners["rb"] = "ruby" }, `scripts.runners["rb"]: want a file extension with its leading dot, such as .sh, got "rb"`},
		{"empty runner", func(c *Config) { c.Scripts.Runners[".py"] = " " }, `scripts.runners[".py"]: the runner must not be empty; write the command that runs .py files (for example "bash")`},
		{"no runners", func(c *Config) { c.Scripts.Runners = nil }, ""},
		{"max_concurrent 0", func(c *Config) { c.Scripts.MaxConcurrent = 0 }, "scripts.max_concurrent: must be between 1 and 1024, got 0"},
		{"cwd_allow blank", func(c *Config) { c.Scripts.CwdAllow = []string{""} }, "scripts.cwd_allow[0]: must not be empty"},
		{"read_paths blank", func(c *Config) { c.Scripts.ReadPaths = []string{"/opt/node", " "} }, "scripts.read_paths[1]: must not be empty"},
		{"read_paths root", func(c *Config) { c.Scripts.ReadPaths = []string{"/opt/node", "//"} }, `scripts.read_paths[1]: "//" would let scripts and commands read every file of the server; list the folders they need`},
		{"max_size_bytes 0", func(c *Config) { c.Assets.MaxSizeBytes = 0 }, "assets.max_size_bytes: must be between 1 and 1099511627776, got 0"},
		{"max_file_bytes negative", func(c *Config) { c.Assets.MaxFileBytes = -5 }, "assets.max_file_bytes: must be between 1 and 1099511627776, got -5"},
		{"endpoint not a URL", func(c *Config) { c.Analytics.Endpoint = "collector:9000" }, "analytics.endpoint: want an http:// or https:// URL"},
		{"endpoint ok", func(c *Config) {
			c.Analytics.Enabled, c.Analytics.Endpoint = true, "https://collector.example.com/events"
		}, ""},
		{"enabled without endpoint", func(c *Config) { c.Analytics.Enabled = true }, ""},
		{"store sqlite", func(c *Config) { c.Analytics.Store = "sqlite" }, ""},
		{"store postgres", func(c *Config) {
			c.Analytics.Enabled, c.Analytics.Store = true, "postgresql://skillsd:pw@db.internal:5432/skillsd?sslmode=verify-full"
		}, ""},
		{"store not postgres", func(c *Config) { c.Analytics.Enabled, c.Analytics.Store = true, "mysql://u:s3cret@db/x" },
			"analytics.store: want sqlite or a postgres:// URL (such as postgres://skillsd@db.internal:5432/skillsd)"},
		{"store with a space", func(c *Config) { c.Analytics.Enabled, c.Analytics.Store = true, "postgres://u:s3 cret@db/x" },
			"analytics.store: must not contain spaces or control characters"},
		{"store bad URL", func(c *Config) { c.Analytics.Enabled, c.Analytics.Store = true, "postgres://u:s3%zzcret@db/x" },
			"analytics.store: the postgres:// URL does not parse (check the characters of its password are %-encoded)"},
		{"store with analytics off", func(c *Config) { c.Analytics.Enabled, c.Analytics.Store = false, "postgres://db/x" },
			"analytics.store: is set but analytics is off: set analytics.enabled: true, or remove analytics.store"},
		{"flush 0", func(c *Config) { c.Analytics.FlushIntervalSeconds = 0 }, "analytics.flush_interval_seconds: must be between 1 and 86400, got 0"},
		{"search.limit 51", func(c *Config) { c.Search.Limit = 51 }, "search.limit: must be between 1 and 50, got 51"},
		{"search.threshold", func(c *Config) { c.Search.Threshold = 1.2 }, "search.threshold: must be between 0 and 1, got 1.2"},
		{"stop word blank", func(c *Config) { c.Search.StopWords = []string{"a", " "} }, "search.stop_words[1]: must not be empty"},
		{"enabled skill blank", func(c *Config) { c.Filters.EnabledSkills = []string{""} }, "filters.enabled_skills[0]: must not be empty"},
		{"enabled category blank", func(c *Config) { c.Filters.EnabledCategories = []string{"x", ""} }, "filters.enabled_categories[1]: must not be empty"},
		{"provider", func(c *Config) { c.Embedding.Provider = "gemini" }, `embedding.provider: unknown value "gemini" (want none or openai)`},
		{"base_url", func(c *Config) { c.Embedding.BaseURL = "localhost:11434" }, "embedding.base_url: want an http:// or https:// URL"},
		{"openai with local server", func(c *Config) {
			c.Embedding.Provider, c.Embedding.BaseURL, c.Embedding.Model = "openai", "http://localhost:11434/v1", "nomic-embed-text"
		}, ""},
		{"query timeout", func(c *Config) { c.Embedding.QueryTimeoutMS = 0 }, "embedding.query_timeout_ms: must be between 10 and 10000, got 0"},
		{"batch size", func(c *Config) { c.Embedding.BatchSize = 5000 }, "embedding.batch_size: must be between 1 and 2048, got 5000"},
		{"strong similarity", func(c *Config) { c.Embedding.StrongSimilarity = 1.5 }, "embedding.strong_similarity: must be above 0 and at most 1, got 1.5"},
		{"strong similarity 0", func(c *Config) { c.Embedding.StrongSimilarity = 0 }, "embedding.strong_similarity: must be above 0 and at most 1, got 0"},
		{"semantic weight", func(c *Config) { c.Embedding.Weight = -0.1 }, "embedding.weight: must be between 0 and 1, got -0.1"},
		{"restated semantic weight", func(c *Config) { c.Embedding.RestatedWeight = 2 }, "embedding.restated_weight: must be between 0 and 1, got 2"},
		{"profile", func(c *Config) { c.MCP.Profile = "skills_hub" }, `mcp.profile: unknown value "skills_hub" (want native, skills-mcp, universal-skills, sk, skillhub or github-worker)`},
		{"cors origin with a path", func(c *Config) { c.REST.CORSOrigins = []string{"https://dash.example.com/"} }, `rest.cors_origins: item 1 ("https://dash.example.com/") is not an origin: want scheme://host[:port] (http or https, no path) or *`},
		{"cors origin without scheme", func(c *Config) { c.REST.CORSOrigins = []string{"*", "dash.example.com"} }, `rest.cors_origins: item 2 ("dash.example.com") is not an origin: want scheme://host[:port] (http or https, no path) or *`},
		{"cors origins", func(c *Config) {
			c.REST.CORSOrigins = []string{"*", "http://localhost:5173", "https://dash.example.com"}
		}, ""},
		{"commands timeout", func(c *Config) { c.Commands.TimeoutSeconds = 0 }, `commands.timeout_seconds: must be 1 to 86400 seconds, got 0`},
		{"commands output", func(c *Config) { c.Commands.MaxOutputBytes = -1 }, `commands.max_output_bytes: must be 1 to 67108864 bytes, got -1`},
		{"commands path", func(c *Config) { c.Commands.Allowed = []string{"/bin/sh"} }, `commands.allowed: item 1 ("/bin/sh") must be a program name, without a path or spaces`},
		{"auth mode", func(c *Config) { c.Auth.Mode = "basic" }, `auth.mode: unknown value "basic" (want none, token or github)`},
		{"token mode without tokens_env", func(c *Config) { c.Auth.Mode = "token" }, ""},
		{"auth mode unset", func(c *Config) { c.Auth.Mode = "" }, ""},
		{"hide paths", func(c *Config) { c.Network.HidePaths = "sometimes" }, `network.hide_paths: unknown value "sometimes" (want auto, always or never)`},
		{"tls cert without key", func(c *Config) { c.TLS.CertFile = "c.pem" }, "tls.key_file: required with tls.cert_file: name the certificate's private key (PEM)"},
		{"tls key without cert", func(c *Config) { c.TLS.KeyFile = "k.pem" }, "tls.cert_file: required with tls.key_file: name the certificate chain (PEM)"},
		{"tls client CA alone", func(c *Config) { c.TLS.ClientCAFile = "ca.pem" }, "tls.client_ca_file: needs tls.cert_file and tls.key_file: client certificates are asked for over TLS only"},
		{"tls ok", func(c *Config) { c.TLS = TLS{CertFile: "c.pem", KeyFile: "k.pem", ClientCAFile: "ca.pem"} }, ""},
		{"session timeout 0", func(c *Config) { c.MCP.HTTP.SessionIdleTimeoutSeconds = 0 }, "mcp.http.session_idle_timeout_seconds: must be between 1 and 604800, got 0"},
		{"max sessions 0", func(c *Config) { c.MCP.HTTP.MaxSessions = 0 }, "mcp.http.max_sessions: must be between 1 and 1000000, got 0"},
		{"origin with path", func(c *Config) { c.MCP.HTTP.AllowedOrigins = []string{"https://a.example.com/app"} }, `mcp.http.allowed_origins[0]: want an origin such as https://console.example.com, http://localhost:* (any port) or * (every origin), got "https://a.example.com/app"`},
		{"origin without scheme", func(c *Config) { c.MCP.HTTP.AllowedOrigins = []string{"localhost:3000"} }, `mcp.http.allowed_origins[0]: want an origin such as https://console.example.com, http://localhost:* (any port) or * (every origin), got "localhost:3000"`},
		{"origins ok", func(c *Config) {
			c.MCP.HTTP.AllowedOrigins = []string{"*", "https://a.example.com", "http://[::1]:*", "http://10.0.0.1:8080"}
		}, ""},
		{"token mode", func(c *Config) { c.Auth.Mode, c.Auth.TokensEnv = "token", "SKILLSD_TOKENS" }, ""},
		{"tokens_env holds a token", func(c *Config) { c.Auth.TokensEnv = "ghp_0123456789abcdef" }, "auth.tokens_env: looks like a token; put the token in an environment variable and write that variable's name here"},
		{"tokens_env not a name", func(c *Config) { c.Auth.TokensEnv = "MY-TOKENS" }, "auth.tokens_env: want the name of an environment variable (letters, digits and _), such as SKILLSD_TOKENS"},
		{"github mode without API", func(c *Config) { c.Auth.Mode, c.Auth.GitHubAPIURL = "github", "" }, `auth.github_api_url: required when auth.mode is github (for example "https://api.github.com")`},
		{"github API URL", func(c *Config) { c.Auth.GitHubAPIURL = "api.github.com" }, "auth.github_api_url: want an http:// or https:// URL"},
		{"log level", func(c *Config) { c.Log.Level = "trace" }, `log.level: unknown log level "trace" (want debug, info, warn or error)`},
		{"source with neither", func(c *Config) { c.Sources = []Source{{Name: "x"}} }, "sources[0]: set one of path (a local folder) or git (a repository)"},
		{"source with both", func(c *Config) {
			c.Sources = []Source{{Path: "a", Git: &GitSource{URL: "https://h/r.git", Ref: "main"}}}
		}, "sources[0]: set only one of path and git; use two entries for two sources"},
		{"duplicate source names", func(c *Config) { c.Sources = []Source{{Name: "Team", Path: "a"}, {Name: "team", Path: "b"}} }, `sources[1].name: "team" is already the name of sources[0]; names must be unique`},
		{"blank source path", func(c *Config) { c.Sources = []Source{{Path: "  "}} }, "sources[0].path: want a folder path"},
		{"follow on a git source", func(c *Config) {
			c.Sources = git("https://h/r.git")
			c.Sources[0].FollowExternalSymlinks = []string{"~/dotfiles"}
		}, "sources[0].follow_external_symlinks: applies to local sources (path) only: the links of a git repository never lead into the machine's folders"},
		{"follow the file system root", func(c *Config) { c.Sources = []Source{{Path: "a", FollowExternalSymlinks: []string{"~/d", "//"}}} }, `sources[0].follow_external_symlinks[1]: "//" is the file system root: links could then lead anywhere; list the folders your links lead into`},
		{"follow blank", func(c *Config) { c.Sources = []Source{{Path: "a", FollowExternalSymlinks: []string{" "}}} }, "sources[0].follow_external_symlinks[0]: want a folder path, such as ~/dotfiles/skills"},
		{"git without url", func(c *Config) { c.Sources = []Source{{Git: &GitSource{Ref: "main"}}} }, "sources[0].git.url: required: the repository to clone (https://…, ssh://…, file://… or git@host:path)"},
		{"git without ref", func(c *Config) { c.Sources = []Source{{Git: &GitSource{URL: "https://h/r.git"}}} }, "sources[0].git.ref: must not be empty (default main)"},
		{"ref like an option", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Ref = "--upload-pack=x" }, `sources[0].git.ref: not a valid branch, tag or commit name: "--upload-pack=x"`},
		{"ref with a space", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Ref = "my branch" }, `sources[0].git.ref: not a valid branch, tag or commit name: "my branch"`},
		{"git path climbing out", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Path = "skills/../../etc" }, `sources[0].git.path: want a folder inside the repository, relative and with /, such as skills; got "skills/../../etc"`},
		{"git path absolute", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Path = "/skills" }, `sources[0].git.path: want a folder inside the repository, relative and with /, such as skills; got "/skills"`},
		{"git path backslash", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Path = `a\b` }, `sources[0].git.path: want a folder inside the repository, relative and with /, such as skills; got "a\\b"`},
		{"git path ok", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.Path = "plugins/x/skills" }, ""},
		{"token_env", func(c *Config) { c.Sources = git("https://h/r.git"); c.Sources[0].Git.TokenEnv = "1TOKEN" }, "sources[0].git.token_env: want the name of an environment variable (letters, digits and _), such as SKILLSD_TOKENS"},
		{"content repo", func(c *Config) { c.Content.AgentsRepo = "ftp://h/r.git" }, `content.agents_repo: unsupported scheme "ftp://" (want https://, http://, ssh://, file:// or git@host:path)`},
		{"content repo credentials", func(c *Config) { c.Content.SkillsRepo = "https://ghp_secret@github.com/a/b.git" }, "content.skills_repo: must not embed credentials; put the token in the GITHUB_TOKEN environment variable"},
		{"content branch", func(c *Config) { c.Content.DocsBranch = "a..b" }, `content.docs_branch: not a valid branch, tag or commit name: "a..b"`},
		{"content skills branch empty", func(c *Config) { c.Content.SkillsBranch = "" }, "content.skills_branch: must not be empty (default main)"},
		{"agents dir and repo", func(c *Config) { c.Content.AgentsDir, c.Content.AgentsRepo = "/srv/agents", "https://h/a.git" }, "content.agents_dir: set only one of agents_dir (a local folder) and agents_repo (a repository)"},
		{"docs dir and repo", func(c *Config) { c.Content.DocsDir, c.Content.DocsRepo = "/srv/docs", "https://h/d.git" }, "content.docs_dir: set only one of docs_dir (a local folder) and docs_repo (a repository)"},
		{"agents and docs dirs", func(c *Config) { c.Content.AgentsDir, c.Content.DocsDir = "~/agents", "docs" }, ""},
		{"github repos", func(c *Config) { c.Auth.GitHubRepos = []string{"octo/skills", "octo-org/docs.site"} }, ""},
		{"github repo not owner/name", func(c *Config) { c.Auth.GitHubRepos = []string{"octo/skills", "https://github.com/octo/docs"} }, `auth.github_repos[1]: want owner/name (such as octo-org/skills), got "https://github.com/octo/docs"`},
		{"content path", func(c *Config) { c.Content.SkillsPath = "../skills" }, `content.skills_path: want a folder inside the repository, relative and with /, such as skills; got "../skills"`},
		{"content path root", func(c *Config) { c.Content.SkillsPath, c.Content.DocsPath = ".", "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.change(&c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Validate() error\n got: %v\nwant: %s", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Key == "" || !strings.HasPrefix(tt.want, e.Key) {
				t.Errorf("Validate() error %#v does not name its key", err)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "ghp_0") {
				t.Errorf("Validate() error shows a secret: %s", err)
			}
		})
	}
}

func TestGitURL(t *testing.T) {
	tests := []struct {
		url  string
		want string // "" means accepted; else a substring of the error
	}{
		{"https://github.com/acme/skills.git", ""},
		{"http://git.internal/acme/skills", ""},
		{"ssh://git@github.com/acme/skills.git", ""},
		{"ssh://github.com:2222/acme/skills.git", ""},
		{"file:///srv/git/skills.git", ""},
		{"git@github.com:acme/skills.git", ""},
		{"github.com:acme/skills.git", ""},
		{"deploy@git.example.com:/srv/skills.git", ""},
		{"https://token@github.com/acme/skills.git", "must not embed credentials"},
		{"https://user:pass@github.com/acme/skills.git", "must not embed credentials"},
		{"ssh://git:pass@github.com/acme/skills.git", "must not embed credentials"},
		{"user:pass@github.com:acme/skills.git", "must not embed credentials"},
		{"file://me@localhost/srv/skills.git", "must not embed credentials"},
		{"https://user:p%zz@github.com/x.git", "must not embed credentials"},
		{"git://github.com/acme/skills.git", "unsupported scheme"},
		{"/srv/git/skills.git", "want a repository URL"},
		{"./skills", "want a repository URL"},
		{`C:\repos\skills`, "want a repository URL"},
		{"https:///acme/skills.git", "no host"},
		{"file://", "needs a path"},
		{"-uhttps://h/x.git", "must not start with -"},
		{" https://h/x.git", "spaces or control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := gitURL("k", tt.url, "advice")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("gitURL(%q) = %v, want nil", tt.url, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("gitURL(%q) = %v, want an error containing %q", tt.url, err, tt.want)
			case err != nil && (strings.Contains(err.Error(), "pass") || strings.Contains(err.Error(), "token")):
				t.Errorf("gitURL(%q) error shows the credentials: %v", tt.url, err)
			}
		})
	}
}

func TestParseLogLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{"Warn", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{" error ", slog.LevelError, false},
		{"", 0, true},
		{"verbose", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseLogLevel(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLogLevel(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSecurityValidation(t *testing.T) {
	cases := []struct {
		yaml, want string
	}{
		{"security: {quarantine: urgent}", "security.quarantine"},
		{"security: {allow: [{rule: script.eicar}]}", "security.allow[0].reason: required"},
		{"security: {allow: [{reason: ok}]}", "security.allow[0]: give a rule, a skill, or both"},
		{"security: {allow: [{skill: x, digest: md5:00, reason: ok}]}", "security.allow[0].digest"},
		{"security: {allow: [{rule: r.x, digest: \"sha256:" + strings.Repeat("a", 64) + "\", reason: ok}]}", "give the skill too"},
		{"security: {require_signed: true}", "security.require_signed"},
		{"sources: [{git: {url: \"https://example.com/x.git\", require_signed: true}}]", "sources[0].git.require_signed"},
		{"security: {rules: [\"\"]}", "security.rules"},
	}
	for _, c := range cases {
		_, err := Parse("c.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.yaml, err, c.want)
		}
	}
	ok := []string{
		"security: {quarantine: OFF}",
		"security: {quarantine: high, allow: [{skill: a, reason: reviewed}]}",
		"security: {trusted_keys: [k.asc]}\nsources: [{git: {url: \"https://example.com/x.git\", require_signed: true}}]",
		"sources: [{git: {url: \"https://example.com/x.git\", require_signed: true, trusted_keys: [k.asc]}}]",
	}
	for _, y := range ok {
		c, err := Parse("c.yaml", []byte(y))
		if err != nil {
			t.Errorf("%s: %v", y, err)
		}
		if strings.Contains(y, "OFF") && c.Security.Quarantine != QuarantineOff {
			t.Errorf("quarantine %q, want off", c.Security.Quarantine)
		}
	}
}

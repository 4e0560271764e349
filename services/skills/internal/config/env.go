package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EnvVar is one variable of the environment layer.
type EnvVar struct {
	// Name of the variable, such as "SEARCH_LIMIT".
	Name string
	// Key is the configuration key it sets, such as "search.limit".
	Key string
	// Form describes the accepted values, for help text and error messages.
	Form string

	set func(c *Config, v string) error
}

// EnvVars lists the variables ApplyEnv reads, in the order it applies them.
//
// Secrets are not among them: GITHUB_TOKEN, OPENAI_API_KEY and the variables
// named by *_env keys are read where they are used. SKILLS_DIR (a list of
// folders, like the --skills-dir flag) is read by the commands.
func EnvVars() []EnvVar { return append([]EnvVar(nil), envVars...) }

var envVars = []EnvVar{
	text("SKILLS_MATCHING_STRATEGY", "matching.strategy", "auto, keyword or ranked",
		func(c *Config) *string { return &c.Matching.Strategy }),
	number("SEARCH_LIMIT", "search.limit", "a whole number from 1 to 50",
		func(c *Config) *int { return &c.Search.Limit }),
	decimal("SEARCH_THRESHOLD", "search.threshold", "a number from 0 to 1, such as 0.2",
		func(c *Config) *float64 { return &c.Search.Threshold }),
	number("MAX_FILE_BYTES", "assets.max_file_bytes", "a whole number of bytes, such as 65536",
		func(c *Config) *int64 { return &c.Assets.MaxFileBytes }),
	enables("analytics", func(c *Config) *bool { return &c.Analytics.Enabled },
		text("ANALYTICS_ENDPOINT", "analytics.endpoint", "an http:// or https:// URL", func(c *Config) *string { return &c.Analytics.Endpoint })),
	enables("analytics", func(c *Config) *bool { return &c.Analytics.Enabled },
		text("SKILLSD_DATABASE_URL", "analytics.store", "a postgres:// URL", func(c *Config) *string { return &c.Analytics.Store })),
	number("ANALYTICS_FLUSH_SECONDS", "analytics.flush_interval_seconds", "a whole number of seconds, such as 30",
		func(c *Config) *int { return &c.Analytics.FlushIntervalSeconds }),
	enables("refresh", func(c *Config) *bool { return &c.Refresh.Enabled },
		number("REFRESH_INTERVAL_MINUTES", "refresh.interval_minutes", "a whole number of minutes, such as 15",
			func(c *Config) *int { return &c.Refresh.IntervalMinutes })),
	list("SKILLHUB_ENABLED_SKILLS", "filters.enabled_skills", func(c *Config) *[]string { return &c.Filters.EnabledSkills }),
	list("SKILLHUB_ENABLED_CATEGORIES", "filters.enabled_categories", func(c *Config) *[]string { return &c.Filters.EnabledCategories }),
	text("EMBEDDING_PROVIDER", "embedding.provider", "none or openai", func(c *Config) *string { return &c.Embedding.Provider }),
	text("EMBEDDING_BASE_URL", "embedding.base_url", "an http:// or https:// URL", func(c *Config) *string { return &c.Embedding.BaseURL }),
	text("EMBEDDING_MODEL", "embedding.model", "a model name", func(c *Config) *string { return &c.Embedding.Model }),
	text("LOG_LEVEL", "log.level", "debug, info, warn or error", func(c *Config) *string { return &c.Log.Level }),
	text("LOG_FORMAT", "log.format", "text or json", func(c *Config) *string { return &c.Log.Format }),
	text("SKILLSD_HOME", "state_dir", "a folder", func(c *Config) *string { return &c.StateDir }),
	boolean("SKILLSD_REQUIRE_SKILLS", "require_skills", func(c *Config) *bool { return &c.RequireSkills }),
	text("SKILLS_MCP_PROFILE", "mcp.profile", "native, skills-mcp, universal-skills, sk, skillhub or github-worker", func(c *Config) *string { return &c.MCP.Profile }),
	list("ALLOWED_COMMANDS", "commands.allowed", func(c *Config) *[]string { return &c.Commands.Allowed }),
	number("EXEC_TIMEOUT_SECONDS", "commands.timeout_seconds", "a whole number of seconds, such as 60",
		func(c *Config) *int { return &c.Commands.TimeoutSeconds }),
	number("EXEC_MAX_OUTPUT_BYTES", "commands.max_output_bytes", "a whole number of bytes, such as 65536",
		func(c *Config) *int64 { return &c.Commands.MaxOutputBytes }),
	text("GITHUB_API_URL", "auth.github_api_url", "an http:// or https:// URL", func(c *Config) *string { return &c.Auth.GitHubAPIURL }),
	text("SKILLS_REPO", "content.skills_repo", "a git URL", func(c *Config) *string { return &c.Content.SkillsRepo }),
	text("SKILLS_BRANCH", "content.skills_branch", "a branch name", func(c *Config) *string { return &c.Content.SkillsBranch }),
	text("SKILLS_PATH", "content.skills_path", "a folder inside the repository (. for its root)", func(c *Config) *string { return &c.Content.SkillsPath }),
	text("AGENTS_REPO", "content.agents_repo", "a git URL", func(c *Config) *string { return &c.Content.AgentsRepo }),
	text("AGENTS_BRANCH", "content.agents_branch", "a branch name", func(c *Config) *string { return &c.Content.AgentsBranch }),
	text("AGENTS_PATH", "content.agents_path", "a folder inside the repository (. for its root)", func(c *Config) *string { return &c.Content.AgentsPath }),
	text("DOCS_REPO", "content.docs_repo", "a git URL", func(c *Config) *string { return &c.Content.DocsRepo }),
	text("DOCS_BRANCH", "content.docs_branch", "a branch name", func(c *Config) *string { return &c.Content.DocsBranch }),
	text("DOCS_PATH", "content.docs_path", "a folder inside the repository (. for its root)", func(c *Config) *string { return &c.Content.DocsPath }),
	text("AGENTS_DIR", "content.agents_dir", "a local folder of agent profiles", func(c *Config) *string { return &c.Content.AgentsDir }),
	text("DOCS_DIR", "content.docs_dir", "a local documentation folder", func(c *Config) *string { return &c.Content.DocsDir }),
	list("GITHUB_AUTH_REPOS", "auth.github_repos", func(c *Config) *[]string { return &c.Auth.GitHubRepos }),
	text("SKILLSD_AUTH_MODE", "auth.mode", "none, token or github", func(c *Config) *string { return &c.Auth.Mode }),
	text("SKILLSD_AUTH_TOKENS_ENV", "auth.tokens_env", "the name of the variable holding the tokens", func(c *Config) *string { return &c.Auth.TokensEnv }),
	text("SKILLSD_TLS_CERT", "tls.cert_file", "a PEM certificate file", func(c *Config) *string { return &c.TLS.CertFile }),
	text("SKILLSD_TLS_KEY", "tls.key_file", "a PEM private key file", func(c *Config) *string { return &c.TLS.KeyFile }),
	text("SKILLSD_TLS_CLIENT_CA", "tls.client_ca_file", "a PEM file of CA certificates", func(c *Config) *string { return &c.TLS.ClientCAFile }),
	text("SKILLSD_HIDE_PATHS", "network.hide_paths", "auto, always or never", func(c *Config) *string { return &c.Network.HidePaths }),
	number("SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS", "mcp.http.session_idle_timeout_seconds", "a whole number of seconds, such as 1800",
		func(c *Config) *int { return &c.MCP.HTTP.SessionIdleTimeoutSeconds }),
	number("SKILLS_MCP_MAX_SESSIONS", "mcp.http.max_sessions", "a whole number, such as 1000",
		func(c *Config) *int { return &c.MCP.HTTP.MaxSessions }),
	list("SKILLS_MCP_ALLOWED_ORIGINS", "mcp.http.allowed_origins", func(c *Config) *[]string { return &c.MCP.HTTP.AllowedOrigins }),
}

func text(name, key, form string, field func(*Config) *string) EnvVar {
	return EnvVar{Name: name, Key: key, Form: form, set: func(c *Config, v string) error {
		*field(c) = v
		return nil
	}}
}

func boolean(name, key string, field func(*Config) *bool) EnvVar {
	const form = "true or false"
	return EnvVar{Name: name, Key: key, Form: form, set: func(c *Config, v string) error {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return envError(name, key, form, v)
		}
		*field(c) = b
		return nil
	}}
}

func number[T int | int64](name, key, form string, field func(*Config) *T) EnvVar {
	return EnvVar{Name: name, Key: key, Form: form, set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || int64(T(n)) != n {
			return envError(name, key, form, v)
		}
		*field(c) = T(n)
		return nil
	}}
}

// decimal reads a decimal number, such as 0.2.
func decimal(name, key, form string, field func(*Config) *float64) EnvVar {
	return EnvVar{Name: name, Key: key, Form: form, set: func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return envError(name, key, form, v)
		}
		*field(c) = f
		return nil
	}}
}

// enables is v that also turns on what enabled points at (the section
// named what) when it sets a value; its form says so.
func enables(what string, enabled func(*Config) *bool, v EnvVar) EnvVar {
	set := v.set
	v.Form += " (setting it enables " + what + ")"
	v.set = func(c *Config, s string) error {
		if err := set(c, s); err != nil {
			return err
		}
		*enabled(c) = true
		return nil
	}
	return v
}

// list reads a comma-separated list: items are trimmed, empty items dropped
// (so "," sets an empty list, overriding config.yaml).
func list(name, key string, field func(*Config) *[]string) EnvVar {
	return EnvVar{Name: name, Key: key, Form: "names separated by commas", set: func(c *Config, v string) error {
		out := []string{}
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		*field(c) = out
		return nil
	}}
}

func envError(name, key, form, v string) *Error {
	return &Error{Env: name, Key: key, Msg: fmt.Sprintf("want %s, got %s", form, quote(v))}
}

// ApplyEnv is the environment layer: it applies every variable of EnvVars
// that getenv reports non-empty (values are trimmed) over c, then validates.
// ANALYTICS_ENDPOINT and SKILLSD_DATABASE_URL also set analytics.enabled, and REFRESH_INTERVAL_MINUTES
// refresh.enabled (seed 000 §11.3). A malformed value, or one Validate
// refuses, is an *Error naming the variable, its key and the accepted form.
// A nil getenv reads nothing.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	return c.ApplyEnvOf(getenv, "")
}

// ApplyEnvOf is ApplyEnv for the variables whose key starts with one of
// prefixes ("auth.", "tls.", …) only; "" stands for every key. A command
// that loads no configuration (a gateway in front of a remote skillsd) reads
// the settings of its own listener this way, and no others.
func (c *Config) ApplyEnvOf(getenv func(string) string, prefixes ...string) error {
	from := map[string]string{} // key → the variable that set it
	if getenv != nil {
		for _, v := range envVars {
			if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(v.Key, p) }) {
				continue
			}
			s := strings.TrimSpace(getenv(v.Name))
			if s == "" {
				continue
			}
			if err := v.set(c, s); err != nil {
				return err
			}
			from[v.Key] = v.Name
		}
	}
	c.normalize()
	err := c.Validate()
	var e *Error
	if errors.As(err, &e) {
		for k := e.Key; k != ""; k = parentKey(k) {
			if name, ok := from[k]; ok {
				e.Env = name
				break
			}
		}
	}
	return err
}

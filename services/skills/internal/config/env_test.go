package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplyEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want func(c *Config)
	}{
		{"nothing set", nil, func(*Config) {}},
		{"empty values are unset", map[string]string{"SEARCH_LIMIT": "", "LOG_LEVEL": "  "}, func(*Config) {}},
		{"SKILLS_MATCHING_STRATEGY", map[string]string{"SKILLS_MATCHING_STRATEGY": "Keyword"}, func(c *Config) { c.Matching.Strategy = "keyword" }},
		{"SEARCH_LIMIT", map[string]string{"SEARCH_LIMIT": " 25 "}, func(c *Config) { c.Search.Limit = 25 }},
		{"SEARCH_THRESHOLD", map[string]string{"SEARCH_THRESHOLD": "0.35"}, func(c *Config) { c.Search.Threshold = 0.35 }},
		{"MAX_FILE_BYTES", map[string]string{"MAX_FILE_BYTES": "131072"}, func(c *Config) { c.Assets.MaxFileBytes = 131072 }},
		{"ANALYTICS_ENDPOINT", map[string]string{"ANALYTICS_ENDPOINT": "https://collector.example.com/e"}, func(c *Config) {
			c.Analytics.Enabled = true
			c.Analytics.Endpoint = "https://collector.example.com/e"
		}},
		{"SKILLSD_DATABASE_URL", map[string]string{"SKILLSD_DATABASE_URL": "postgres://skillsd@db:5432/usage"}, func(c *Config) {
			c.Analytics.Enabled = true
			c.Analytics.Store = "postgres://skillsd@db:5432/usage"
		}},
		{"ANALYTICS_FLUSH_SECONDS", map[string]string{"ANALYTICS_FLUSH_SECONDS": "5"}, func(c *Config) { c.Analytics.FlushIntervalSeconds = 5 }},
		{"REFRESH_INTERVAL_MINUTES", map[string]string{"REFRESH_INTERVAL_MINUTES": "5"}, func(c *Config) { c.Refresh.IntervalMinutes = 5 }},
		{"SKILLHUB_ENABLED_SKILLS", map[string]string{"SKILLHUB_ENABLED_SKILLS": " pdf, ,docx ,"}, func(c *Config) { c.Filters.EnabledSkills = []string{"pdf", "docx"} }},
		{"SKILLHUB_ENABLED_CATEGORIES", map[string]string{"SKILLHUB_ENABLED_CATEGORIES": "office"}, func(c *Config) { c.Filters.EnabledCategories = []string{"office"} }},
		{"a lone comma clears a list", map[string]string{"SKILLHUB_ENABLED_SKILLS": ","}, func(c *Config) { c.Filters.EnabledSkills = []string{} }},
		{"EMBEDDING_PROVIDER", map[string]string{"EMBEDDING_PROVIDER": "OpenAI"}, func(c *Config) { c.Embedding.Provider = "openai" }},
		{"EMBEDDING_BASE_URL", map[string]string{"EMBEDDING_BASE_URL": "http://localhost:11434/v1"}, func(c *Config) { c.Embedding.BaseURL = "http://localhost:11434/v1" }},
		{"EMBEDDING_MODEL", map[string]string{"EMBEDDING_MODEL": "text-embedding-3-small"}, func(c *Config) { c.Embedding.Model = "text-embedding-3-small" }},
		{"LOG_LEVEL", map[string]string{"LOG_LEVEL": "DEBUG"}, func(c *Config) { c.Log.Level = "debug" }},
		{"SKILLSD_HOME", map[string]string{"SKILLSD_HOME": "/var/lib/skillsd"}, func(c *Config) { c.StateDir = "/var/lib/skillsd" }},
		{"SKILLSD_REQUIRE_SKILLS", map[string]string{"SKILLSD_REQUIRE_SKILLS": "true"}, func(c *Config) { c.RequireSkills = true }},
		{"LOG_FORMAT", map[string]string{"LOG_FORMAT": "JSON"}, func(c *Config) { c.Log.Format = "json" }},
		{"SKILLS_MCP_PROFILE", map[string]string{"SKILLS_MCP_PROFILE": "SkillHub"}, func(c *Config) { c.MCP.Profile = "skillhub" }},
		{"ALLOWED_COMMANDS", map[string]string{"ALLOWED_COMMANDS": "python, ls"}, func(c *Config) { c.Commands.Allowed = []string{"python", "ls"} }},
		{"EXEC_TIMEOUT_SECONDS", map[string]string{"EXEC_TIMEOUT_SECONDS": "5"}, func(c *Config) { c.Commands.TimeoutSeconds = 5 }},
		{"EXEC_MAX_OUTPUT_BYTES", map[string]string{"EXEC_MAX_OUTPUT_BYTES": "1024"}, func(c *Config) { c.Commands.MaxOutputBytes = 1024 }},
		{"GITHUB_API_URL", map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, func(c *Config) { c.Auth.GitHubAPIURL = "https://ghe.example.com/api/v3" }},
		{"SKILLS_REPO", map[string]string{"SKILLS_REPO": "https://github.com/acme/skills.git"}, func(c *Config) { c.Content.SkillsRepo = "https://github.com/acme/skills.git" }},
		{"SKILLS_BRANCH", map[string]string{"SKILLS_BRANCH": "develop"}, func(c *Config) { c.Content.SkillsBranch = "develop" }},
		{"SKILLS_PATH", map[string]string{"SKILLS_PATH": "."}, func(c *Config) { c.Content.SkillsPath = "." }},
		{"AGENTS_REPO", map[string]string{"AGENTS_REPO": "git@github.com:acme/agents.git"}, func(c *Config) { c.Content.AgentsRepo = "git@github.com:acme/agents.git" }},
		{"AGENTS_BRANCH", map[string]string{"AGENTS_BRANCH": "v2"}, func(c *Config) { c.Content.AgentsBranch = "v2" }},
		{"AGENTS_PATH", map[string]string{"AGENTS_PATH": ".claude/agents"}, func(c *Config) { c.Content.AgentsPath = ".claude/agents" }},
		{"DOCS_REPO", map[string]string{"DOCS_REPO": "https://github.com/acme/docs.git"}, func(c *Config) { c.Content.DocsRepo = "https://github.com/acme/docs.git" }},
		{"DOCS_BRANCH", map[string]string{"DOCS_BRANCH": "gh-pages"}, func(c *Config) { c.Content.DocsBranch = "gh-pages" }},
		{"DOCS_PATH", map[string]string{"DOCS_PATH": "site/docs"}, func(c *Config) { c.Content.DocsPath = "site/docs" }},
		{"AGENTS_DIR", map[string]string{"AGENTS_DIR": "~/org/agents"}, func(c *Config) { c.Content.AgentsDir = "~/org/agents" }},
		{"DOCS_DIR", map[string]string{"DOCS_DIR": "/srv/docs"}, func(c *Config) { c.Content.DocsDir = "/srv/docs" }},
		{"GITHUB_AUTH_REPOS", map[string]string{"GITHUB_AUTH_REPOS": "octo/skills, octo/docs"}, func(c *Config) { c.Auth.GitHubRepos = []string{"octo/skills", "octo/docs"} }},
		{"SKILLSD_AUTH_MODE", map[string]string{"SKILLSD_AUTH_MODE": "Token"}, func(c *Config) { c.Auth.Mode = "token" }},
		{"SKILLSD_AUTH_TOKENS_ENV", map[string]string{"SKILLSD_AUTH_TOKENS_ENV": "TEAM_TOKENS"}, func(c *Config) { c.Auth.TokensEnv = "TEAM_TOKENS" }},
		{"SKILLSD_TLS_*", map[string]string{"SKILLSD_TLS_CERT": "/etc/skillsd/cert.pem", "SKILLSD_TLS_KEY": "/etc/skillsd/key.pem", "SKILLSD_TLS_CLIENT_CA": "/etc/skillsd/ca.pem"},
			func(c *Config) {
				c.TLS = TLS{CertFile: "/etc/skillsd/cert.pem", KeyFile: "/etc/skillsd/key.pem", ClientCAFile: "/etc/skillsd/ca.pem"}
			}},
		{"SKILLSD_HIDE_PATHS", map[string]string{"SKILLSD_HIDE_PATHS": "ALWAYS"}, func(c *Config) { c.Network.HidePaths = "always" }},
		{"SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS", map[string]string{"SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS": "60"}, func(c *Config) { c.MCP.HTTP.SessionIdleTimeoutSeconds = 60 }},
		{"SKILLS_MCP_MAX_SESSIONS", map[string]string{"SKILLS_MCP_MAX_SESSIONS": "20"}, func(c *Config) { c.MCP.HTTP.MaxSessions = 20 }},
		{"SKILLS_MCP_ALLOWED_ORIGINS", map[string]string{"SKILLS_MCP_ALLOWED_ORIGINS": "https://console.example.com, http://localhost:*"},
			func(c *Config) {
				c.MCP.HTTP.AllowedOrigins = []string{"https://console.example.com", "http://localhost:*"}
			}},
	}
	tested := map[string]bool{}
	for _, tt := range tests {
		for k := range tt.env {
			tested[k] = true
		}
		t.Run(tt.name, func(t *testing.T) {
			got := Default()
			if err := got.ApplyEnv(env(tt.env)); err != nil {
				t.Fatalf("ApplyEnv() = %v", err)
			}
			want := Default()
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ApplyEnv() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	for _, v := range EnvVars() {
		if !tested[v.Name] {
			t.Errorf("no test sets %s", v.Name)
		}
	}
}

func TestApplyEnvOverridesTheFile(t *testing.T) {
	c, err := Parse("config.yaml", []byte("refresh:\n  enabled: false\n  interval_minutes: 60\nanalytics:\n  enabled: false\nfilters:\n  enabled_skills: [a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.ApplyEnv(env(map[string]string{
		"REFRESH_INTERVAL_MINUTES": "5",
		"ANALYTICS_ENDPOINT":       "https://collector.example.com/e",
		"SKILLHUB_ENABLED_SKILLS":  "b,c",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Refresh = Refresh{Enabled: true, IntervalMinutes: 5}
	want.Analytics.Enabled, want.Analytics.Endpoint = true, "https://collector.example.com/e"
	want.Filters.EnabledSkills = []string{"b", "c"}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("file then environment mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyEnvErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"SEARCH_LIMIT": "abc"}, `environment variable SEARCH_LIMIT (search.limit): want a whole number from 1 to 50, got "abc"`},
		{map[string]string{"SEARCH_LIMIT": "99"}, `environment variable SEARCH_LIMIT (search.limit): must be between 1 and 50, got 99`},
		{map[string]string{"SEARCH_THRESHOLD": "high"}, `environment variable SEARCH_THRESHOLD (search.threshold): want a number from 0 to 1, such as 0.2, got "high"`},
		{map[string]string{"SEARCH_THRESHOLD": "2"}, `environment variable SEARCH_THRESHOLD (search.threshold): must be between 0 and 1, got 2`},
		{map[string]string{"MAX_FILE_BYTES": "64k"}, `environment variable MAX_FILE_BYTES (assets.max_file_bytes): want a whole number of bytes, such as 65536, got "64k"`},
		{map[string]string{"ANALYTICS_FLUSH_SECONDS": "30s"}, `environment variable ANALYTICS_FLUSH_SECONDS (analytics.flush_interval_seconds): want a whole number of seconds, such as 30, got "30s"`},
		{map[string]string{"REFRESH_INTERVAL_MINUTES": "15m"}, `environment variable REFRESH_INTERVAL_MINUTES (refresh.interval_minutes): want a whole number of minutes, such as 15, got "15m"`},
		{map[string]string{"REFRESH_INTERVAL_MINUTES": "0"}, `environment variable REFRESH_INTERVAL_MINUTES (refresh.interval_minutes): must be between 1 and 10080, got 0`},
		{map[string]string{"SKILLS_MATCHING_STRATEGY": "fuzzy"}, `environment variable SKILLS_MATCHING_STRATEGY (matching.strategy): unknown value "fuzzy" (want auto, keyword or ranked)`},
		{map[string]string{"LOG_LEVEL": "loud"}, `environment variable LOG_LEVEL (log.level): unknown log level "loud" (want debug, info, warn or error)`},
		{map[string]string{"EMBEDDING_PROVIDER": "gemini"}, `environment variable EMBEDDING_PROVIDER (embedding.provider): unknown value "gemini" (want none or openai)`},
		{map[string]string{"SKILLSD_DATABASE_URL": "mysql://u:s3cret@db/x"}, `environment variable SKILLSD_DATABASE_URL (analytics.store): want sqlite or a postgres:// URL (such as postgres://skillsd@db.internal:5432/skillsd)`},
		{map[string]string{"ANALYTICS_ENDPOINT": "collector"}, `environment variable ANALYTICS_ENDPOINT (analytics.endpoint): want an http:// or https:// URL`},
		{map[string]string{"SKILLS_REPO": "https://x-access-token:ghp_abc@github.com/a/b.git"}, `environment variable SKILLS_REPO (content.skills_repo): must not embed credentials; put the token in the GITHUB_TOKEN environment variable`},
		{map[string]string{"SKILLS_PATH": "/abs"}, `environment variable SKILLS_PATH (content.skills_path): want a folder inside the repository, relative and with /, such as skills; got "/abs"`},
		{map[string]string{"SKILLS_MCP_PROFILE": "other"}, `environment variable SKILLS_MCP_PROFILE (mcp.profile): unknown value "other" (want native, skills-mcp, universal-skills, sk, skillhub or github-worker)`},
	}
	for _, tt := range tests {
		c := Default()
		err := c.ApplyEnv(env(tt.env))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ApplyEnv(%v) error\n got: %v\nwant: %s", tt.env, err, tt.want)
		}
		var e *Error
		if !errors.As(err, &e) || e.Env == "" {
			t.Errorf("ApplyEnv(%v) error does not name the variable: %#v", tt.env, err)
		}
		if err != nil && strings.Contains(err.Error(), "ghp_") {
			t.Errorf("ApplyEnv(%v) error shows a token: %v", tt.env, err)
		}
	}
}

func TestApplyEnvNil(t *testing.T) {
	c := Default()
	if err := c.ApplyEnv(nil); err != nil {
		t.Fatalf("ApplyEnv(nil) = %v", err)
	}
	if diff := cmp.Diff(Default(), c); diff != "" {
		t.Errorf("ApplyEnv(nil) changed the config (-want +got):\n%s", diff)
	}
}

func TestEnvVars(t *testing.T) {
	seen := map[string]bool{}
	keys := map[string]bool{}
	for _, k := range typeKeys() {
		keys[k] = true
	}
	for _, v := range EnvVars() {
		if seen[v.Name] {
			t.Errorf("%s listed twice", v.Name)
		}
		seen[v.Name] = true
		if !keys[v.Key] {
			t.Errorf("%s sets %q, not a key of Config", v.Name, v.Key)
		}
		if v.Form == "" {
			t.Errorf("%s has no Form", v.Name)
		}
	}
}

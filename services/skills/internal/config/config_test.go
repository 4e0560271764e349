package config

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// seed000Config is seed 000 §11.2's config.yaml, verbatim.
const seed000Config = `matching:
  min_score: 0.2              # number (0.0-1.0)
  max_results: 3              # integer
  ambiguity_threshold: 0.1    # number (0.0-1.0)

refresh:
  enabled: true               # boolean
  interval_minutes: 15        # integer

scripts:
  enabled: true               # boolean
  timeout_seconds: 60         # integer
  max_output_bytes: 1048576   # integer (bytes)
  allowed_extensions:          # string[]
    - .sh
    - .ts
    - .js
    - .py
  runners:                     # Record<string, string>
    ".sh": "bash"
    ".ts": "npx tsx"
    ".js": "node"
    ".py": "python3"

assets:
  max_size_bytes: 1048576     # integer (bytes)
  inline_text_max_bytes: 10240 # integer (bytes)

analytics:
  enabled: false              # boolean
  endpoint: ""                # string (URL)
`

func TestDefault(t *testing.T) {
	d := Default()
	tests := []struct {
		key       string
		got, want any
	}{
		// Seed 000 §11.2.
		{"matching.min_score", d.Matching.MinScore, 0.2},
		{"matching.max_results", d.Matching.MaxResults, 3},
		{"matching.ambiguity_threshold", d.Matching.AmbiguityThreshold, 0.1},
		{"refresh.enabled", d.Refresh.Enabled, true},
		{"refresh.interval_minutes", d.Refresh.IntervalMinutes, 15},
		{"scripts.enabled", d.Scripts.Enabled, true},
		{"scripts.timeout_seconds", d.Scripts.TimeoutSeconds, 60},
		{"scripts.max_output_bytes", d.Scripts.MaxOutputBytes, int64(1048576)},
		{"scripts.allowed_extensions", d.Scripts.AllowedExtensions, []string{".sh", ".ts", ".js", ".py"}},
		{"scripts.runners", d.Scripts.Runners, map[string]string{".sh": "bash", ".ts": "npx tsx", ".js": "node", ".py": "python3"}},
		{"assets.max_size_bytes", d.Assets.MaxSizeBytes, int64(1048576)},
		// Seed 000 ships it off; skillsd keeps usage locally by default
		// (issue 17), sending nothing anywhere until an endpoint is set.
		{"analytics.enabled", d.Analytics.Enabled, true},
		{"analytics.endpoint", d.Analytics.Endpoint, ""},
		// ARCHITECTURE.md.
		{"matching.strategy", d.Matching.Strategy, "auto"},
		{"search.limit", d.Search.Limit, 10},
		{"search.threshold", d.Search.Threshold, 0.2},
		{"search.stop_words", d.Search.StopWords, []string{}},
		{"scripts.max_concurrent", d.Scripts.MaxConcurrent, 4},
		{"scripts.cwd_allow", d.Scripts.CwdAllow, []string{}},
		{"scripts.allow_network", d.Scripts.AllowNetwork, false},
		{"scripts.require_isolation", d.Scripts.RequireIsolation, false},
		{"scripts.read_paths", d.Scripts.ReadPaths, []string{}},
		{"assets.max_file_bytes", d.Assets.MaxFileBytes, int64(65536)},
		{"analytics.flush_interval_seconds", d.Analytics.FlushIntervalSeconds, 30},
		{"analytics.server_id", d.Analytics.ServerID, ""},
		{"analytics.max_spool_bytes", d.Analytics.MaxSpoolBytes, int64(64 << 20)},
		{"analytics.store", d.Analytics.Store, ""},
		{"filters.enabled_skills", d.Filters.EnabledSkills, []string{}},
		{"filters.enabled_categories", d.Filters.EnabledCategories, []string{}},
		{"embedding.provider", d.Embedding.Provider, "none"},
		{"embedding.base_url", d.Embedding.BaseURL, ""},
		{"embedding.model", d.Embedding.Model, ""},
		{"embedding.query_timeout_ms", d.Embedding.QueryTimeoutMS, 300},
		{"embedding.batch_size", d.Embedding.BatchSize, 64},
		{"embedding.strong_similarity", d.Embedding.StrongSimilarity, 0.75},
		{"embedding.weight", d.Embedding.Weight, 0.0},
		{"embedding.restated_weight", d.Embedding.RestatedWeight, 0.3},
		{"mcp.profile", d.MCP.Profile, "native"},
		{"rest.cors_origins", d.REST.CORSOrigins, []string{}},
		{"commands.enabled", d.Commands.Enabled, false},
		{"commands.allowed", d.Commands.Allowed, []string{"python", "uv", "node", "cat", "ls", "grep"}},
		{"commands.timeout_seconds", d.Commands.TimeoutSeconds, 60},
		{"commands.max_output_bytes", d.Commands.MaxOutputBytes, int64(65536)},
		{"auth.mode", d.Auth.Mode, ""},
		{"auth.tokens_env", d.Auth.TokensEnv, ""},
		{"auth.github_api_url", d.Auth.GitHubAPIURL, "https://api.github.com"},
		{"log.level", d.Log.Level, "info"},
		{"state_dir", d.StateDir, ""},
		{"sources", d.Sources, []Source{}},
		{"content.skills_repo", d.Content.SkillsRepo, ""},
		{"content.skills_branch", d.Content.SkillsBranch, "main"},
		{"content.skills_path", d.Content.SkillsPath, "skills"},
		{"content.agents_repo", d.Content.AgentsRepo, ""},
		{"content.agents_branch", d.Content.AgentsBranch, ""},
		{"content.agents_path", d.Content.AgentsPath, "agents"},
		{"content.docs_repo", d.Content.DocsRepo, ""},
		{"content.docs_branch", d.Content.DocsBranch, ""},
		{"content.docs_path", d.Content.DocsPath, "docs"},
		{"content.agents_dir", d.Content.AgentsDir, ""},
		{"content.docs_dir", d.Content.DocsDir, ""},
		{"auth.github_repos", d.Auth.GitHubRepos, []string{}},
		{"tls.cert_file", d.TLS.CertFile, ""},
		{"tls.key_file", d.TLS.KeyFile, ""},
		{"tls.client_ca_file", d.TLS.ClientCAFile, ""},
		{"network.hide_paths", d.Network.HidePaths, "auto"},
		{"require_skills", d.RequireSkills, false},
		{"log.format", d.Log.Format, "text"},
		{"mcp.http.session_idle_timeout_seconds", d.MCP.HTTP.SessionIdleTimeoutSeconds, 1800},
		{"mcp.http.max_sessions", d.MCP.HTTP.MaxSessions, 1000},
		{"mcp.http.allowed_origins", d.MCP.HTTP.AllowedOrigins, []string{
			"http://localhost:*", "https://localhost:*", "http://127.0.0.1:*", "https://127.0.0.1:*", "http://[::1]:*", "https://[::1]:*",
		}},
		{"security.quarantine", d.Security.Quarantine, "critical"},
		{"security.rules", d.Security.Rules, []string{}},
		{"security.allow", d.Security.Allow, []Allow{}},
		{"security.require_signed", d.Security.RequireSigned, false},
		{"security.trusted_keys", d.Security.TrustedKeys, []string{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("Default() %s mismatch (-want +got):\n%s", tt.key, diff)
		}
	}
	// Every key of the type is in the table above.
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.key] = true
	}
	for _, k := range typeKeys() {
		switch k {
		case "matching", "refresh", "scripts", "assets", "analytics", "search", "filters",
			"embedding", "mcp", "mcp.http", "rest", "commands", "auth", "tls", "network", "log", "content", "security":
			continue // sections
		}
		if !covered[k] && !strings.HasPrefix(k, "sources[]") && !strings.HasPrefix(k, "security.allow[]") { // list items: see TestParse
			t.Errorf("TestDefault does not check %s", k)
		}
	}
	if err := d.Validate(); err != nil {
		t.Errorf("Default().Validate() = %v, want nil", err)
	}
}

func TestDefaultIsACopy(t *testing.T) {
	a := Default()
	a.Scripts.Runners[".sh"] = "zsh"
	a.Scripts.AllowedExtensions[0] = ".rb"
	if b := Default(); b.Scripts.Runners[".sh"] != "bash" || b.Scripts.AllowedExtensions[0] != ".sh" {
		t.Errorf("Default() shares maps or slices between calls: got %v %v", b.Scripts.Runners, b.Scripts.AllowedExtensions)
	}
}

func TestSeed000ConfigIsTheDefault(t *testing.T) {
	got, err := Parse("config.yaml", []byte(seed000Config))
	if err != nil {
		t.Fatalf("Parse(seed 000 config) = %v", err)
	}
	// Seed 000 ships analytics off; skillsd keeps usage locally by default
	// (issue 17): a config.yaml copied from the seed turns it off again.
	want := Default()
	want.Analytics.Enabled = false
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed 000 config.yaml mismatch with Default() (-want +got):\n%s", diff)
	}
}

func TestExample(t *testing.T) {
	data, err := os.ReadFile("testdata/config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("config.example.yaml", data)
	if err != nil {
		t.Fatalf("Parse(example) = %v", err)
	}

	// The reference states the defaults, except its example sources.
	want := Default()
	want.Security.Allow = []Allow{{Rule: "script.pipe-to-shell", Skill: "installer", Reason: "reviewed by J. Doe, ticket SEC-42"}}
	want.Sources = []Source{
		{Name: "project", Path: "./.agents/skills", FollowExternalSymlinks: []string{"~/dotfiles/skills"}},
		{Name: "team", Git: &GitSource{URL: "https://github.com/example-org/team-skills.git", Ref: "main", TrustedKeys: []string{}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("example mismatch (-want +got):\n%s", diff)
	}

	// Every key is in the reference, with a comment.
	documented := docKeys(t, data)
	for _, k := range typeKeys() {
		commented, ok := documented[k]
		switch {
		case !ok:
			t.Errorf("example does not show key %s", k)
		case !commented:
			t.Errorf("example does not comment key %s", k)
		}
	}

	// Round trip: marshal, parse again, same configuration.
	for name, out := range map[string]func() ([]byte, error){
		"yaml.Marshal": func() ([]byte, error) { return yaml.Marshal(got) },
		"String":       func() ([]byte, error) { return []byte(got.String()), nil },
	} {
		b, err := out()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := Parse("round-trip.yaml", b)
		if err != nil {
			t.Fatalf("Parse(%s output) = %v\n%s", name, err, b)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("%s round trip mismatch (-want +got):\n%s", name, diff)
		}
	}
}

func TestContentRepos(t *testing.T) {
	tests := []struct {
		name                string
		content             Content
		skills, agents, doc GitSource
	}{
		{
			name:    "defaults",
			content: Default().Content,
			skills:  GitSource{Ref: "main", Path: "skills"},
			agents:  GitSource{Ref: "main", Path: "agents"},
			doc:     GitSource{Ref: "main", Path: "docs"},
		},
		{
			name:    "agents and docs follow the skills repository",
			content: Content{SkillsRepo: "https://h/s.git", SkillsBranch: "dev", SkillsPath: "skills", AgentsPath: "agents", DocsPath: "docs"},
			skills:  GitSource{URL: "https://h/s.git", Ref: "dev", Path: "skills"},
			agents:  GitSource{URL: "https://h/s.git", Ref: "dev", Path: "agents"},
			doc:     GitSource{URL: "https://h/s.git", Ref: "dev", Path: "docs"},
		},
		{
			name: "separate repositories default to main",
			content: Content{SkillsRepo: "https://h/s.git", SkillsBranch: "dev", SkillsPath: "skills",
				AgentsRepo: "https://h/a.git", AgentsPath: "agents", DocsRepo: "https://h/d.git", DocsBranch: "v2", DocsPath: "."},
			skills: GitSource{URL: "https://h/s.git", Ref: "dev", Path: "skills"},
			agents: GitSource{URL: "https://h/a.git", Ref: "main", Path: "agents"},
			doc:    GitSource{URL: "https://h/d.git", Ref: "v2", Path: "."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.skills, tt.content.Skills()); diff != "" {
				t.Errorf("Skills() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.agents, tt.content.Agents()); diff != "" {
				t.Errorf("Agents() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.doc, tt.content.Docs()); diff != "" {
				t.Errorf("Docs() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDurations(t *testing.T) {
	d := Default()
	for _, tt := range []struct {
		name      string
		got, want time.Duration
	}{
		{"Refresh.Interval", d.Refresh.Interval(), 15 * time.Minute},
		{"Scripts.Timeout", d.Scripts.Timeout(), time.Minute},
		{"Analytics.FlushInterval", d.Analytics.FlushInterval(), 30 * time.Second},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

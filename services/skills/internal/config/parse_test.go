package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want func(c *Config) // applied to Default()
	}{
		{name: "empty file", yaml: ""},
		{name: "comments only", yaml: "# nothing yet\n"},
		{name: "null document", yaml: "~\n"},
		{name: "empty section keeps defaults", yaml: "matching:\nscripts: {}\n"},
		{name: "empty value keeps the default", yaml: "matching:\n  max_results:\n  min_score: ~\n"},
		{
			name: "scalars",
			yaml: "matching:\n  min_score: 0.35\n  max_results: 5\n  strategy: keyword\nrefresh:\n  enabled: false\nassets:\n  max_file_bytes: 0x10000\n",
			want: func(c *Config) {
				c.Matching.MinScore = 0.35
				c.Matching.MaxResults = 5
				c.Matching.Strategy = "keyword"
				c.Refresh.Enabled = false
				c.Assets.MaxFileBytes = 65536
			},
		},
		{
			name: "a whole number is a number",
			yaml: "search:\n  threshold: 1\n",
			want: func(c *Config) { c.Search.Threshold = 1 },
		},
		{
			name: "numbers and booleans are strings where a string is wanted",
			yaml: "embedding:\n  model: 3\ncontent:\n  skills_branch: 2024.1\n",
			want: func(c *Config) {
				c.Embedding.Model = "3"
				c.Content.SkillsBranch = "2024.1"
			},
		},
		{
			name: "enumerations are normalised",
			yaml: "matching:\n  strategy: Ranked\nlog:\n  level: WARNING\nauth:\n  mode: ' None '\n",
			want: func(c *Config) {
				c.Matching.Strategy = "ranked"
				c.Log.Level = "warn"
				c.Auth.Mode = "none" // written, so explicit
			},
		},
		{
			name: "a list replaces the default list",
			yaml: "scripts:\n  allowed_extensions: [.py]\n  cwd_allow: [/tmp/work]\nsearch:\n  stop_words: [please, merci]\n",
			want: func(c *Config) {
				c.Scripts.AllowedExtensions = []string{".py"}
				c.Scripts.CwdAllow = []string{"/tmp/work"}
				c.Search.StopWords = []string{"please", "merci"}
			},
		},
		{
			name: "an empty list clears the default list",
			yaml: "scripts:\n  allowed_extensions: []\n",
			want: func(c *Config) { c.Scripts.AllowedExtensions = []string{} },
		},
		{
			name: "runners merge over the defaults",
			yaml: "scripts:\n  runners:\n    \".rb\": ruby\n    \".py\": uv run\n    \".ts\": ~\n",
			want: func(c *Config) {
				c.Scripts.Runners = map[string]string{".sh": "bash", ".ts": "npx tsx", ".js": "node", ".py": "uv run", ".rb": "ruby"}
			},
		},
		{
			name: "filters",
			yaml: "filters:\n  enabled_skills: [pdf, docx]\n  enabled_categories: [office]\n",
			want: func(c *Config) {
				c.Filters.EnabledSkills = []string{"pdf", "docx"}
				c.Filters.EnabledCategories = []string{"office"}
			},
		},
		{
			name: "sources, with the git defaults",
			yaml: `sources:
  - path: ~/skills
  - name: team
    git:
      url: git@github.com:acme/skills.git
      token_env: ACME_TOKEN
  - git: {url: "https://example.com/x.git", ref: v1.2.0, path: skills, trusted: true}
`,
			want: func(c *Config) {
				c.Sources = []Source{
					{Path: "~/skills"},
					{Name: "team", Git: &GitSource{URL: "git@github.com:acme/skills.git", Ref: "main", TokenEnv: "ACME_TOKEN", TrustedKeys: []string{}}},
					{Git: &GitSource{URL: "https://example.com/x.git", Ref: "v1.2.0", Path: "skills", Trusted: true, TrustedKeys: []string{}}},
				}
			},
		},
		{
			name: "anchors, aliases and merge keys",
			yaml: `sources:
  - git: &g {url: "https://example.com/x.git", token_env: TOKEN_X}
  - git:
      <<: *g
      path: other
  - git:
      <<: [*g, {ref: ignored, path: first}]
      ref: dev
matching: &m
  max_results: 4
search:
  stop_words: &w [alpha]
filters:
  enabled_skills: *w
`,
			want: func(c *Config) {
				c.Sources = []Source{
					{Git: &GitSource{URL: "https://example.com/x.git", Ref: "main", TokenEnv: "TOKEN_X", TrustedKeys: []string{}}},
					{Git: &GitSource{URL: "https://example.com/x.git", Ref: "main", TokenEnv: "TOKEN_X", Path: "other", TrustedKeys: []string{}}},
					{Git: &GitSource{URL: "https://example.com/x.git", Ref: "dev", TokenEnv: "TOKEN_X", Path: "first", TrustedKeys: []string{}}},
				}
				c.Matching.MaxResults = 4
				c.Search.StopWords = []string{"alpha"}
				c.Filters.EnabledSkills = []string{"alpha"}
			},
		},
		{
			name: "content",
			yaml: "content:\n  skills_repo: https://github.com/acme/skills.git\n  skills_path: .\n  docs_repo: git@github.com:acme/docs.git\n  docs_branch: gh-pages\n",
			want: func(c *Config) {
				c.Content.SkillsRepo = "https://github.com/acme/skills.git"
				c.Content.SkillsPath = "."
				c.Content.DocsRepo = "git@github.com:acme/docs.git"
				c.Content.DocsBranch = "gh-pages"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("config.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatalf("Parse() = %v", err)
			}
			want := Default()
			if tt.want != nil {
				tt.want(&want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{
			name: "misspelt key",
			yaml: "# matching\n\nmatching:\n  max_results: 3\n\n\n  min_scor: 0.3\n",
			want: `config.yaml:7: unknown key "matching.min_scor" (did you mean "matching.min_score"?)`,
		},
		{
			name: "camelCase key",
			yaml: "search:\n  stopWords: [a]\n",
			want: `config.yaml:2: unknown key "search.stopWords" (did you mean "search.stop_words"?)`,
		},
		{
			name: "transposed letters",
			yaml: "sources:\n  - gti: {url: x}\n",
			want: `config.yaml:2: unknown key "sources[0].gti" (did you mean "sources[0].git"?)`,
		},
		{
			name: "key in the wrong section",
			yaml: "min_score: 0.3\n",
			want: `config.yaml:1: unknown key "min_score" (did you mean "matching.min_score"?)`,
		},
		{
			name: "key one level too high in a source",
			yaml: "sources:\n  - name: a\n    url: https://example.com/x.git\n",
			want: `config.yaml:3: unknown key "sources[0].url" (did you mean "sources[0].git.url"?)`,
		},
		{
			name: "environment variable name as a key",
			yaml: "SEARCH_LIMIT: 5\n",
			want: `config.yaml:1: unknown key "SEARCH_LIMIT" (did you mean "search.limit"?)`,
		},
		{
			name: "unknown key without a near one",
			yaml: "mcp:\n  transport: stdio\n",
			want: `config.yaml:2: unknown key "mcp.transport" (known keys under mcp: profile, http)`,
		},
		{
			name: "unknown top-level key",
			yaml: "x-git: &base {url: u}\n",
			want: `config.yaml:1: unknown key "x-git" (known keys: matching, refresh, scripts, assets, analytics, search, filters, embedding, mcp, rest, commands, auth, tls, network, log, security, state_dir, sources, content, require_skills)`,
		},
		{
			name: "ambiguous key gets the list",
			yaml: "enabled: true\n",
			want: `config.yaml:1: unknown key "enabled" (known keys: matching, refresh, scripts, assets, analytics, search, filters, embedding, mcp, rest, commands, auth, tls, network, log, security, state_dir, sources, content, require_skills)`,
		},
		{
			name: "word for a whole number",
			yaml: "matching:\n  max_results: three\n",
			want: `config.yaml:2: matching.max_results: want a whole number, got "three"`,
		},
		{
			name: "fraction for a whole number",
			yaml: "scripts:\n  timeout_seconds: 2.5\n",
			want: `config.yaml:2: scripts.timeout_seconds: want a whole number, got "2.5"`,
		},
		{
			name: "number too large",
			yaml: "assets:\n  max_size_bytes: 99999999999999999999\n",
			want: `config.yaml:2: assets.max_size_bytes: want a whole number, got "99999999999999999999"`,
		},
		{
			name: "quoted number",
			yaml: "matching:\n  min_score: \"0.3\"\n",
			want: `config.yaml:2: matching.min_score: want a number, got "0.3"`,
		},
		{
			name: "yes is not a boolean",
			yaml: "refresh:\n  enabled: yes\n",
			want: `config.yaml:2: refresh.enabled: want true or false, got "yes"`,
		},
		{
			name: "list for a string",
			yaml: "matching:\n  strategy: [auto]\n",
			want: `config.yaml:2: matching.strategy: want a string, got a list`,
		},
		{
			name: "scalar for a list",
			yaml: "scripts:\n  allowed_extensions: .sh\n",
			want: `config.yaml:2: scripts.allowed_extensions: want a list, got ".sh"`,
		},
		{
			name: "scalar for a section",
			yaml: "log: debug\n",
			want: `config.yaml:1: log: want a section of keys (level, format), got "debug"`,
		},
		{
			name: "mapping for sources",
			yaml: "sources:\n  skills: https://example.com/s.git\n",
			want: `config.yaml:2: sources: want a list, got a mapping; sources is a list of entries such as "- path: ./skills" or "- git: {url: …}" (seed 003 repositories go under content:)`,
		},
		{
			name: "list for runners",
			yaml: "scripts:\n  runners: [bash]\n",
			want: `config.yaml:2: scripts.runners: want a mapping such as ".sh": bash, got a list`,
		},
		{
			name: "runner with a list",
			yaml: "scripts:\n  runners:\n    \".sh\": [bash, -e]\n",
			want: `config.yaml:3: scripts.runners[".sh"]: want a string, got a list`,
		},
		{
			name: "key set twice",
			yaml: "matching:\n  min_score: 0.2\n  min_score: 0.3\n",
			want: `config.yaml:3: matching.min_score: set twice (first on line 2); keep one`,
		},
		{
			name: "runner set twice",
			yaml: "scripts:\n  runners:\n    .sh: bash\n    .sh: zsh\n",
			want: `config.yaml:4: scripts.runners[".sh"]: set twice (first on line 3); keep one`,
		},
		{
			name: "empty list item",
			yaml: "search:\n  stop_words:\n    - a\n    -\n",
			want: `config.yaml:4: search.stop_words[1]: empty list item; remove it or give it a value`,
		},
		{
			name: "list at the top",
			yaml: "- matching\n",
			want: `config.yaml:1: want a mapping of sections (matching:, scripts:, sources:, …) at the top level, got a list`,
		},
		{
			name: "two documents",
			yaml: "matching: {}\n---\nrefresh: {}\n",
			want: `config.yaml:2: more than one YAML document (a second "---"); keep one`,
		},
		{
			name: "complex key",
			yaml: "matching:\n  ? [a]\n  : 1\n",
			want: `config.yaml:2: matching: a key must be a plain name, got a list`,
		},
		{
			name: "merge of a scalar",
			yaml: "matching:\n  <<: 3\n",
			want: `config.yaml:2: matching: a merge key (<<) takes an alias to a mapping, got "3"`,
		},
		{
			name: "token-like value is not echoed",
			yaml: "auth:\n  tokens_env: [ghp_secret]\n",
			want: `config.yaml:2: auth.tokens_env: want a string, got a list`,
		},
		// Validation runs after parsing, and gets the line of the key.
		{
			name: "out of range",
			yaml: "matching:\n  min_score: 1.5\n",
			want: `config.yaml:2: matching.min_score: must be between 0 and 1, got 1.5`,
		},
		{
			name: "unknown enumeration value",
			yaml: "\nmatching:\n  strategy: fuzzy\n",
			want: `config.yaml:3: matching.strategy: unknown value "fuzzy" (want auto, keyword or ranked)`,
		},
		{
			name: "source with both path and git",
			yaml: "sources:\n  - path: a\n  - path: b\n    git: {url: \"https://example.com/x.git\"}\n",
			want: `config.yaml:3: sources[1]: set only one of path and git; use two entries for two sources`,
		},
		{
			name: "credentials in a git URL",
			yaml: "sources:\n  - git:\n      url: https://x-access-token:ghp_abc123@github.com/acme/skills.git\n",
			want: `config.yaml:3: sources[0].git.url: must not embed credentials; put the token in an environment variable and name it in sources[0].git.token_env`,
		},
		{
			name: "a key not in the file gets its section's line",
			yaml: "log: {level: info}\ntls:\n  cert_file: c.pem\n",
			want: `config.yaml:2: tls.key_file: required with tls.cert_file: name the certificate's private key (PEM)`,
		},
		{
			name: "a retired seed key with a value of its own",
			yaml: "assets:\n  max_size_bytes: 100\n  inline_text_max_bytes: 2048\n",
			want: `config.yaml:3: assets.inline_text_max_bytes: skillsd does not read this seed-000 key (seed 000 reserves it and never says what it does), so only its default 10240 is accepted; remove the line: text reads are paged by assets.max_file_bytes (default 65536) and capped by assets.max_size_bytes`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("config.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("Parse() = %+v, nil; want error %q", got, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse() error\n got: %s\nwant: %s", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("Parse() error is %T, want *Error", err)
			}
			if strings.Contains(err.Error(), "ghp_") {
				t.Errorf("Parse() error shows a token: %s", err)
			}
		})
	}
}

func TestParseSyntaxError(t *testing.T) {
	_, err := Parse("conf/config.yaml", []byte("matching:\n  min_score: 0.2\n max_results: [\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "conf/config.yaml:2: invalid YAML: ") {
		t.Errorf("Parse(broken YAML) = %v, want conf/config.yaml:2: invalid YAML: …", err)
	}
}

func TestParseAliasBomb(t *testing.T) {
	// Each level merges the previous one ten times: 10^12 visits if unbounded.
	var b strings.Builder
	b.WriteString("matching:\n  <<:\n    - &l0 {min_score: 0.5}\n")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "    - &l%d {<<: [%s*l%d]}\n", i, strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 9), i-1)
	}
	_, err := Parse("config.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "too many aliases") {
		t.Errorf("Parse(alias bomb) = %v, want too many aliases", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(good, []byte("search:\n  limit: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(good)
	if err != nil || c.Search.Limit != 7 {
		t.Errorf("Load(%s) = limit %d, %v; want 7, nil", good, c.Search.Limit, err)
	}

	missing := filepath.Join(dir, "nope.yaml")
	_, err = Load(missing)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) = %v; want an error naming %s that is fs.ErrNotExist", err, missing)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("search:\n  limit: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := bad + ":2: search.limit: must be between 1 and 50, got 0"
	if _, err := Load(bad); err == nil || err.Error() != want {
		t.Errorf("Load(bad) = %v, want %s", err, want)
	}
}

func TestFind(t *testing.T) {
	write := func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		setup  func(t *testing.T, dir string)
		want   string
		wantOK bool
	}{
		{name: "none", setup: func(*testing.T, string) {}},
		{name: "yaml", setup: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "config.yaml")) }, want: "config.yaml", wantOK: true},
		{name: "yml", setup: func(t *testing.T, dir string) { write(t, filepath.Join(dir, "config.yml")) }, want: "config.yml", wantOK: true},
		{name: "both: yaml first", setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "config.yml"))
			write(t, filepath.Join(dir, "config.yaml"))
		}, want: "config.yaml", wantOK: true},
		{name: "a folder is not a file", setup: func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "config.yaml"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "config.yml"))
		}, want: "config.yml", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			got, ok := Find(dir)
			want := ""
			if tt.want != "" {
				want = filepath.Join(dir, tt.want)
			}
			if got != want || ok != tt.wantOK {
				t.Errorf("Find() = %q, %v; want %q, %v", got, ok, want, tt.wantOK)
			}
		})
	}
}

// Package config is the product's configuration model: the Config struct with a
// yaml key for every setting, its documented defaults, strict parsing of
// config.yaml, the environment layer and validation.
//
// Layers, lowest first: Default (documented in this file) < config.yaml (Parse,
// Load) < environment (ApplyEnv) < flags. Flags are applied by each command's
// main on the exported struct, which then calls Validate. Every error names the
// key (and the file line or environment variable) so a bad value stops start-up
// with one clear message.
//
// The package holds no secrets: tokens and API keys are only ever named, through
// *_env keys, and read by the packages that use them. It does not read flags,
// does not touch the process environment itself (getenv is injected), leaves
// path expansion (~, $VAR) to userpath.Expand, and does not decide what a
// setting does; the packages that own each capability do.
package config

import "time"

// Matching strategies (matching.strategy, SKILLS_MATCHING_STRATEGY).
const (
	// StrategyAuto uses StrategyKeyword when every routable skill declares
	// keywords, and StrategyRanked otherwise.
	StrategyAuto = "auto"
	// StrategyKeyword is seed 000 §5's keyword matcher, exactly.
	StrategyKeyword = "keyword"
	// StrategyRanked ranks with the search engine, scores calibrated to 0..1.
	StrategyRanked = "ranked"
)

// Embedding providers (embedding.provider, EMBEDDING_PROVIDER).
const (
	// ProviderNone disables semantic search: nothing leaves the machine.
	ProviderNone = "none"
	// ProviderOpenAI is any OpenAI-compatible embeddings endpoint.
	ProviderOpenAI = "openai"
)

// Authentication modes (auth.mode).
const (
	// AuthUnset is auth.mode left out: no authentication unless a tokens
	// variable is set, and only on loopback listeners (a listener on any
	// other address refuses to start without auth, or an explicit AuthNone).
	AuthUnset = ""
	// AuthNone accepts every caller, explicitly: a listener on a
	// non-loopback address then starts, with a loud warning.
	AuthNone = "none"
	// AuthToken accepts static bearer tokens held in the variable auth.tokens_env names.
	AuthToken = "token"
	// AuthGitHub delegates to GitHub: the bearer token is a GitHub token (seed 003).
	AuthGitHub = "github"
)

// ProfileNative is the MCP tool set of MCP_TOOLS.md (mcp.profile,
// SKILLS_MCP_PROFILE). The other profiles are the compatibility tool sets of
// the seed systems (docs/migrate); Profiles lists them all.
const ProfileNative = "native"

// Profiles are the accepted values of mcp.profile: ProfileNative first, then
// one per seed system.
func Profiles() []string {
	return []string{ProfileNative, "skills-mcp", "universal-skills", "sk", "skillhub", "github-worker"}
}

// DefaultGitRef is the ref a git source or content repository tracks unless told otherwise.
const DefaultGitRef = "main"

// Config is the whole configuration. The yaml tag of each field is its key in
// config.yaml; Default documents every default.
type Config struct {
	Matching  Matching  `yaml:"matching"`
	Refresh   Refresh   `yaml:"refresh"`
	Scripts   Scripts   `yaml:"scripts"`
	Assets    Assets    `yaml:"assets"`
	Analytics Analytics `yaml:"analytics"`
	Search    Search    `yaml:"search"`
	Filters   Filters   `yaml:"filters"`
	Embedding Embedding `yaml:"embedding"`
	MCP       MCP       `yaml:"mcp"`
	REST      REST      `yaml:"rest"`
	Commands  Commands  `yaml:"commands"`
	Auth      Auth      `yaml:"auth"`
	TLS       TLS       `yaml:"tls"`
	Network   Network   `yaml:"network"`
	Log       Log       `yaml:"log"`
	Security  Security  `yaml:"security"`
	// StateDir holds all local state (git caches, analytics spool, aggregates).
	// Empty means SKILLSD_HOME, else ~/.skillsd; see StateDir.
	StateDir string `yaml:"state_dir"`
	// Sources are the configured skill sources in precedence order (the first
	// wins a name clash). Empty means the default discovery folders.
	Sources []Source `yaml:"sources"`
	// Content holds seed 003's repositories for skills, agents and docs.
	Content Content `yaml:"content"`
	// RequireSkills stops start-up when the first catalog has no skills,
	// with the reason and the folders searched (false: a warning on the log).
	RequireSkills bool `yaml:"require_skills"`
}

// Matching configures get_skill's context match (seed 000 §5).
type Matching struct {
	// MinScore excludes skills scoring below it (0..1).
	MinScore float64 `yaml:"min_score"`
	// MaxResults caps the candidates of an ambiguous answer (1..50).
	MaxResults int `yaml:"max_results"`
	// AmbiguityThreshold: candidates within this score of the best make the
	// answer ambiguous (0..1).
	AmbiguityThreshold float64 `yaml:"ambiguity_threshold"`
	// Strategy is StrategyAuto, StrategyKeyword or StrategyRanked.
	Strategy string `yaml:"strategy"`
}

// Refresh configures the periodic refresh of git sources.
type Refresh struct {
	Enabled bool `yaml:"enabled"`
	// IntervalMinutes between two polls (1..10080, one week).
	IntervalMinutes int `yaml:"interval_minutes"`
}

// Interval is IntervalMinutes as a duration.
func (r Refresh) Interval() time.Duration {
	return time.Duration(r.IntervalMinutes) * time.Minute
}

// Scripts configures server-side script execution (seed 000 §8.4).
type Scripts struct {
	// Enabled is the global switch.
	Enabled bool `yaml:"enabled"`
	// TimeoutSeconds after which the whole process group is killed (1..86400).
	TimeoutSeconds int `yaml:"timeout_seconds"`
	// MaxOutputBytes caps stdout and stderr each.
	MaxOutputBytes int64 `yaml:"max_output_bytes"`
	// AllowedExtensions lists the script extensions that may run, each with a
	// leading dot. A list in config.yaml replaces the default list.
	AllowedExtensions []string `yaml:"allowed_extensions"`
	// Runners maps an extension to the command that runs it ("npx tsx" is the
	// program npx with the argument tsx). Entries in config.yaml are merged
	// over the defaults; leaving an extension out of AllowedExtensions
	// switches it off.
	Runners map[string]string `yaml:"runners"`
	// MaxConcurrent caps scripts running at once (1..1024).
	MaxConcurrent int `yaml:"max_concurrent"`
	// CwdAllow lists extra folders a caller may choose as a script's working
	// directory. Empty means the skill's own folder only.
	CwdAllow []string `yaml:"cwd_allow"`
	// AllowNetwork lets scripts and commands whose skill declares network
	// use (scripts[].network, metadata.network) open connections. Off by
	// default: no script or command has any network.
	AllowNetwork bool `yaml:"allow_network"`
	// RequireIsolation refuses to run a script or command while a kernel
	// protection it should get (Landlock, namespaces) is missing on this
	// host. Off by default: it runs, and its result says what is missing.
	RequireIsolation bool `yaml:"require_isolation"`
	// ReadPaths lists extra files and folders scripts and commands may read
	// and execute, besides the skill's folder and the system's runtimes
	// (a toolchain outside /usr, say). Empty by default.
	ReadPaths []string `yaml:"read_paths"`
}

// Timeout is TimeoutSeconds as a duration.
func (s Scripts) Timeout() time.Duration {
	return time.Duration(s.TimeoutSeconds) * time.Second
}

// Assets configures file reads. Seed 000's assets.inline_text_max_bytes is
// not a key: it never did anything, and Parse refuses it with advice
// (retiredKeys).
type Assets struct {
	// MaxSizeBytes: a larger file is refused for binary (base64) reads.
	MaxSizeBytes int64 `yaml:"max_size_bytes"`
	// MaxFileBytes is the default page size of a read (MAX_FILE_BYTES).
	MaxFileBytes int64 `yaml:"max_file_bytes"`
}

// Analytics configures usage events.
type Analytics struct {
	// Enabled records events (on by default): in the local store under the
	// state folder, so that feedback is kept and GetUsageStats answers; with
	// no Endpoint nothing leaves the machine. false turns all of it off.
	Enabled bool `yaml:"enabled"`
	// Endpoint receives batches of events (an http or https URL).
	Endpoint string `yaml:"endpoint"`
	// FlushIntervalSeconds between two posts (1..86400).
	FlushIntervalSeconds int `yaml:"flush_interval_seconds"`
	// ServerID is every event's server_id; empty means seed 000's
	// "dev-" + USER (or USERNAME).
	ServerID string `yaml:"server_id"`
	// MaxSpoolBytes caps the spool of undelivered events (1 MiB..64 GiB);
	// when reached, new events are dropped and a warning is logged.
	MaxSpoolBytes int64 `yaml:"max_spool_bytes"`
	// Store is where events and aggregates are kept: "" or "sqlite" is the
	// SQLite file under the state folder; a postgres:// (postgresql://) URL
	// is a PostgreSQL database that the replicas of a fleet share.
	Store string `yaml:"store"`
}

// StoreSQLite is the embedded store, analytics.store's default.
const StoreSQLite = "sqlite"

// FlushInterval is FlushIntervalSeconds as a duration.
func (a Analytics) FlushInterval() time.Duration {
	return time.Duration(a.FlushIntervalSeconds) * time.Second
}

// Search configures search_skills (seeds 002 and 004).
type Search struct {
	// Limit is the default number of hits (1..50).
	Limit int `yaml:"limit"`
	// Threshold is seed 004's dynamic cut: keep hits with score/top ≥ Threshold (0..1).
	Threshold float64 `yaml:"threshold"`
	// StopWords are added to the built-in English and French list.
	StopWords []string `yaml:"stop_words"`
}

// Filters restricts the catalog to a subset (seed 004 §8.3). A skill outside
// the subset is invisible and refused by every operation.
type Filters struct {
	// EnabledSkills, when not empty, enables only these skill names.
	EnabledSkills []string `yaml:"enabled_skills"`
	// EnabledCategories, when EnabledSkills is empty, enables only skills of
	// these categories. Both empty: every skill is enabled.
	EnabledCategories []string `yaml:"enabled_categories"`
}

// Embedding configures the optional semantic search. The API key is read from
// OPENAI_API_KEY by the provider, never stored here.
type Embedding struct {
	// Provider is ProviderNone or ProviderOpenAI.
	Provider string `yaml:"provider"`
	// BaseURL of an OpenAI-compatible API; empty means the provider's default.
	BaseURL string `yaml:"base_url"`
	// Model name; empty means the provider's default.
	Model string `yaml:"model"`
	// QueryTimeoutMS bounds the embedding of a search query, in
	// milliseconds; on timeout the search answers lexically (10..10000).
	QueryTimeoutMS int `yaml:"query_timeout_ms"`
	// BatchSize is the most texts per embeddings request (1..2048).
	BatchSize int `yaml:"batch_size"`
	// StrongSimilarity is the cosine similarity from which a skill is
	// answered although the lexical engine abstained (0..1).
	StrongSimilarity float64 `yaml:"strong_similarity"`
	// Weight is how much similarity reorders the lexical hits of a query
	// given alone (0..1; 0 keeps the lexical order).
	Weight float64 `yaml:"weight"`
	// RestatedWeight is Weight for a query with restatements (0..1).
	RestatedWeight float64 `yaml:"restated_weight"`
}

// MCP configures the MCP gateway.
type MCP struct {
	// Profile is the tool set served: one of Profiles.
	Profile string `yaml:"profile"`
	// HTTP configures MCP over Streamable HTTP (skills-mcp --http).
	HTTP MCPHTTP `yaml:"http"`
}

// MCPHTTP bounds the sessions of MCP over HTTP and says which web pages may
// call it.
type MCPHTTP struct {
	// SessionIdleTimeoutSeconds closes a session that received no request for
	// this long (SKILLS_MCP_SESSION_IDLE_TIMEOUT_SECONDS; 1..604800, a week).
	// A client whose session expired gets 404 and starts a new one, as the
	// MCP transport asks.
	SessionIdleTimeoutSeconds int `yaml:"session_idle_timeout_seconds"`
	// MaxSessions caps the live sessions (SKILLS_MCP_MAX_SESSIONS;
	// 1..1000000); one more initialize is refused with 503 and a message.
	MaxSessions int `yaml:"max_sessions"`
	// AllowedOrigins are the web origins whose pages may call the server
	// (SKILLS_MCP_ALLOWED_ORIGINS): a request with an Origin header not in
	// the list is refused with 403 (requests without one, such as every
	// non-browser client, pass). An entry is scheme://host[:port]; ":*"
	// matches any port; "*" alone allows every origin. A list in
	// config.yaml replaces the default, which is localhost on any port.
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// SessionIdleTimeout is SessionIdleTimeoutSeconds as a duration.
func (m MCPHTTP) SessionIdleTimeout() time.Duration {
	return time.Duration(m.SessionIdleTimeoutSeconds) * time.Second
}

// DefaultAllowedOrigins are mcp.http.allowed_origins' default: pages served
// from this machine.
func DefaultAllowedOrigins() []string {
	return []string{
		"http://localhost:*", "https://localhost:*",
		"http://127.0.0.1:*", "https://127.0.0.1:*",
		"http://[::1]:*", "https://[::1]:*",
	}
}

// REST configures the REST gateway (skills-rest).
type REST struct {
	// CORSOrigins are the origins (scheme://host[:port], or "*" for any) whose
	// pages may call the REST API from a browser. Empty: no cross-origin
	// calls (the default).
	CORSOrigins []string `yaml:"cors_origins"`
}

// Auth configures caller authentication on the listener of every binary
// that loads this configuration: skillsd's gRPC, and the HTTP of skills-rest
// and skills-mcp --http in embedded mode (package edge applies it).
type Auth struct {
	// Mode is AuthUnset, AuthNone, AuthToken or AuthGitHub
	// (SKILLSD_AUTH_MODE).
	Mode string `yaml:"mode"`
	// TokensEnv names the environment variable holding the accepted bearer
	// tokens, comma-separated (several allow rotation) under AuthToken
	// (SKILLSD_AUTH_TOKENS_ENV); empty means DefaultTokensEnv. The tokens
	// themselves are never stored here.
	TokensEnv string `yaml:"tokens_env"`
	// GitHubAPIURL is the GitHub API base used by AuthGitHub (GITHUB_API_URL).
	GitHubAPIURL string `yaml:"github_api_url"`
	// GitHubRepos are the repositories ("owner/name") a caller's GitHub token
	// must be able to read under AuthGitHub (GITHUB_AUTH_REPOS). Empty means
	// the content repositories that are on GitHub (content.*_repo).
	GitHubRepos []string `yaml:"github_repos"`
}

// DefaultTokensEnv is the variable holding the accepted bearer tokens when
// auth.tokens_env is empty. Setting it with auth.mode unset turns token auth on.
const DefaultTokensEnv = "SKILLSD_AUTH_TOKENS"

// TLS is the server certificate of the binary's listener. Files are PEM;
// they are read again when they change on disk, so a renewed certificate is
// served without a restart.
type TLS struct {
	// CertFile is the certificate chain (SKILLSD_TLS_CERT); with KeyFile it
	// turns TLS on.
	CertFile string `yaml:"cert_file"`
	// KeyFile is the certificate's private key (SKILLSD_TLS_KEY).
	KeyFile string `yaml:"key_file"`
	// ClientCAFile, when set, asks every client for a certificate signed by
	// one of these CAs (mutual TLS; SKILLSD_TLS_CLIENT_CA).
	ClientCAFile string `yaml:"client_ca_file"`
}

// Path-hiding policies (network.hide_paths).
const (
	// HidePathsAuto hides the server's absolute paths from answers served on
	// a listener that is not loopback, and shows them on loopback, on stdio
	// and in-process.
	HidePathsAuto = "auto"
	// HidePathsAlways hides them from every answer that crosses a listener.
	HidePathsAlways = "always"
	// HidePathsNever shows them everywhere.
	HidePathsNever = "never"
)

// Network configures what the binary's listener tells remote callers.
type Network struct {
	// HidePaths is HidePathsAuto, HidePathsAlways or HidePathsNever
	// (SKILLSD_HIDE_PATHS). Hidden paths become the source's label and the
	// path inside the source ("skills/pdf/SKILL.md").
	HidePaths string `yaml:"hide_paths"`
}

// Log configures logging (structured, to stderr).
type Log struct {
	// Level is debug, info, warn or error; see ParseLogLevel.
	Level string `yaml:"level"`
	// Format is LogText (key=value lines) or LogJSON (one JSON object a
	// line, for log collectors).
	Format string `yaml:"format"`
}

// Log formats (log.format, LOG_FORMAT).
const (
	LogText = "text"
	LogJSON = "json"
)

// Source is one configured skill source: exactly one of Path and Git is set.
type Source struct {
	// Name labels the source in answers and diagnostics; optional, unique.
	Name string `yaml:"name,omitempty"`
	// Path is a local folder; ~ and $VAR are expanded by the caller (userpath.Expand).
	Path string `yaml:"path,omitempty"`
	// FollowExternalSymlinks lists folders outside Path into which its
	// symbolic links may lead (dotfiles set-ups such as
	// ~/.claude/skills/x -> ~/dotfiles/skills/x); ~ and $VAR are expanded,
	// and each must then be absolute. Empty (the default): links are
	// followed only inside Path. Loops, devices and anything outside these
	// folders stay refused. Local sources only.
	FollowExternalSymlinks []string `yaml:"follow_external_symlinks,omitempty"`
	// Git is a git repository.
	Git *GitSource `yaml:"git,omitempty"`
}

// GitSource is a git repository: a source of skills (sources[].git), or
// one of seed 003's content repositories (Content.Skills, Agents, Docs).
type GitSource struct {
	// URL of the repository: https://, http://, ssh://, file:// or scp-like
	// git@host:path. It must not embed credentials.
	URL string `yaml:"url"`
	// Ref is the branch, tag or commit to check out (default DefaultGitRef).
	Ref string `yaml:"ref"`
	// Path is the sub-folder holding the skills; empty means the repository root.
	Path string `yaml:"path"`
	// TokenEnv names the environment variable holding the token for this
	// repository; empty means GITHUB_TOKEN.
	TokenEnv string `yaml:"token_env"`
	// Trusted allows this source's scripts to run (default false).
	Trusted bool `yaml:"trusted"`
	// RequireSigned serves only commits signed by one of the trusted keys
	// (TrustedKeys, else security.trusted_keys); an unsigned or wrongly
	// signed commit is refused and the last good one keeps serving.
	RequireSigned bool `yaml:"require_signed"`
	// TrustedKeys are files of armored OpenPGP public keys accepted for this
	// source; empty means security.trusted_keys.
	TrustedKeys []string `yaml:"trusted_keys"`
}

// fillDefaults sets the defaults of a git source the YAML does not mention.
func (g *GitSource) fillDefaults() { g.Ref, g.TrustedKeys = DefaultGitRef, []string{} }

// Content holds seed 003's repositories (SKILLS_REPO, AGENTS_REPO, DOCS_REPO and
// their _BRANCH and _PATH). An empty agents or docs repository means the skills
// repository.
type Content struct {
	SkillsRepo   string `yaml:"skills_repo"`
	SkillsBranch string `yaml:"skills_branch"`
	SkillsPath   string `yaml:"skills_path"`
	AgentsRepo   string `yaml:"agents_repo"`
	// AgentsBranch empty: SkillsBranch when AgentsRepo is empty, else DefaultGitRef.
	AgentsBranch string `yaml:"agents_branch"`
	AgentsPath   string `yaml:"agents_path"`
	DocsRepo     string `yaml:"docs_repo"`
	// DocsBranch empty: SkillsBranch when DocsRepo is empty, else DefaultGitRef.
	DocsBranch string `yaml:"docs_branch"`
	DocsPath   string `yaml:"docs_path"`
	// AgentsDir is a local folder of agent profiles (AGENTS_DIR); it excludes
	// AgentsRepo. "~" and $VAR are expanded by the caller.
	AgentsDir string `yaml:"agents_dir"`
	// DocsDir is a local documentation folder (DOCS_DIR); it excludes DocsRepo.
	DocsDir string `yaml:"docs_dir"`
}

// Skills is the skills repository (its URL empty when none is configured),
// in the model of a git source: its token is GITHUB_TOKEN's (TokenEnv
// empty), and trust and signatures follow the security section.
func (c Content) Skills() GitSource {
	return GitSource{URL: c.SkillsRepo, Ref: orDefault(c.SkillsBranch, DefaultGitRef), Path: c.SkillsPath}
}

// Agents is the agents repository, falling back to the skills repository.
func (c Content) Agents() GitSource { return c.fallback(c.AgentsRepo, c.AgentsBranch, c.AgentsPath) }

// Docs is the docs repository, falling back to the skills repository.
func (c Content) Docs() GitSource { return c.fallback(c.DocsRepo, c.DocsBranch, c.DocsPath) }

func (c Content) fallback(repo, branch, path string) GitSource {
	if repo == "" {
		s := c.Skills()
		return GitSource{URL: s.URL, Ref: orDefault(branch, s.Ref), Path: path}
	}
	return GitSource{URL: repo, Ref: orDefault(branch, DefaultGitRef), Path: path}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Default returns the built-in configuration. The first five sections are seed
// 000 §11.2's table, unchanged; the rest are ARCHITECTURE.md's decisions.
func Default() Config {
	return Config{
		Matching: Matching{
			MinScore:           0.2,
			MaxResults:         3,
			AmbiguityThreshold: 0.1,
			Strategy:           StrategyAuto,
		},
		Refresh: Refresh{
			Enabled:         true,
			IntervalMinutes: 15,
		},
		Scripts: Scripts{
			Enabled:           true,
			TimeoutSeconds:    60,
			MaxOutputBytes:    1 << 20, // 1048576
			AllowedExtensions: []string{".sh", ".ts", ".js", ".py"},
			Runners: map[string]string{
				".sh": "bash",
				".ts": "npx tsx",
				".js": "node",
				".py": "python3",
			},
			MaxConcurrent:    4,
			CwdAllow:         []string{}, // the skill folder only
			AllowNetwork:     false,
			RequireIsolation: false,
			ReadPaths:        []string{},
		},
		Assets: Assets{
			MaxSizeBytes: 1 << 20, // 1048576
			MaxFileBytes: 65536,   // seed 004's MAX_FILE_BYTES
		},
		Analytics: Analytics{
			Enabled:              true, // local only until an endpoint is set (issue 17)
			Endpoint:             "",
			FlushIntervalSeconds: 30,
			ServerID:             "",       // dev-$USER
			MaxSpoolBytes:        64 << 20, // 64 MiB
			Store:                "",       // SQLite under state_dir
		},
		Search: Search{
			Limit:     10,  // seed 004's SEARCH_LIMIT
			Threshold: 0.2, // seed 004's SEARCH_THRESHOLD
			StopWords: []string{},
		},
		Filters: Filters{
			EnabledSkills:     []string{}, // every skill
			EnabledCategories: []string{},
		},
		Embedding: Embedding{Provider: ProviderNone, QueryTimeoutMS: 300, BatchSize: 64, StrongSimilarity: 0.75, Weight: 0, RestatedWeight: 0.3},
		MCP: MCP{Profile: ProfileNative, HTTP: MCPHTTP{
			SessionIdleTimeoutSeconds: 1800, // 30 minutes
			MaxSessions:               1000,
			AllowedOrigins:            DefaultAllowedOrigins(),
		}},
		REST: REST{CORSOrigins: []string{}},
		Commands: Commands{
			Enabled:        false,
			Allowed:        []string{"python", "uv", "node", "cat", "ls", "grep"}, // seed 004's ALLOWED_COMMANDS
			TimeoutSeconds: 60,
			MaxOutputBytes: 65536,
		},
		Auth: Auth{
			Mode:         AuthUnset, // none, on loopback only
			TokensEnv:    "",        // DefaultTokensEnv
			GitHubAPIURL: "https://api.github.com",
			GitHubRepos:  []string{}, // the content repositories on GitHub
		},
		TLS:     TLS{}, // plaintext
		Network: Network{HidePaths: HidePathsAuto},
		Log:     Log{Level: "info", Format: LogText},
		Security: Security{
			Quarantine:  "critical",
			Rules:       []string{},
			Allow:       []Allow{},
			TrustedKeys: []string{},
		},
		StateDir: "",         // SKILLSD_HOME, else ~/.skillsd
		Sources:  []Source{}, // default discovery
		// An empty catalog is a warning, not an error.
		RequireSkills: false,
		Content: Content{
			SkillsBranch: DefaultGitRef,
			SkillsPath:   "skills",
			AgentsPath:   "agents",
			DocsPath:     "docs",
		},
	}
}

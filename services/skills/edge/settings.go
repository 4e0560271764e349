package edge

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/config"
)

// Authentication modes (--auth, auth.mode, SKILLSD_AUTH_MODE).
const (
	// ModeUnset is no mode asked for: no authentication, unless a tokens
	// variable is set (then ModeToken), and only on loopback listeners.
	ModeUnset = ""
	// ModeNone serves every caller, on purpose: a listener that is not
	// loopback then starts, with a loud warning.
	ModeNone = "none"
	// ModeToken accepts the static bearer tokens of a variable
	// (comma-separated; several allow rotation), compared in constant time.
	ModeToken = "token"
	// ModeGitHub accepts a caller's own GitHub token (URL-safe base64 as
	// the bearer) that can read the configured repositories (githubauth).
	ModeGitHub = "github"
)

// Path-hiding policies (--hide-paths, network.hide_paths).
const (
	HideAuto   = config.HidePathsAuto
	HideAlways = config.HidePathsAlways
	HideNever  = config.HidePathsNever
)

// DefaultTokensEnv is the variable holding the accepted tokens when no
// other is named; setting it with no mode asked for turns token auth on.
const DefaultTokensEnv = config.DefaultTokensEnv

// Settings are what the configuration asks of a listener: the layers below
// the command line (config.yaml, then the environment), then Flags.Over.
// Each *From field names where its value came from, for messages; the zero
// value asks for nothing (no auth on loopback only, no TLS, paths hidden on
// listeners that are not loopback).
type Settings struct {
	// AuthMode is ModeUnset, ModeNone, ModeToken or ModeGitHub.
	AuthMode, AuthModeFrom string
	// TokensEnv names the variable holding the tokens; empty means
	// DefaultTokensEnv.
	TokensEnv, TokensEnvFrom string
	// GitHubAPIURL and GitHubRepos configure ModeGitHub (githubauth.Options).
	GitHubAPIURL string
	GitHubRepos  []string
	// TLS is the listener's certificate; zero is plaintext.
	TLS     TLSFiles
	TLSFrom string
	// HidePaths is HideAuto (or empty), HideAlways or HideNever.
	HidePaths, HidePathsFrom string
}

// FromConfig reads the settings of a configuration that was loaded from file
// (empty: none) and the environment getenv reads. It is the bridge for
// package skillsd; commands get Settings from skillsd.Server.Edge (embedded
// service) or FromEnv (remote service).
func FromConfig(c config.Config, file string, getenv func(string) string) Settings {
	from := func(key, env string) string {
		switch {
		case getenv != nil && strings.TrimSpace(getenv(env)) != "":
			return env
		case file != "":
			return key + " in " + file
		}
		return key
	}
	s := Settings{
		AuthMode: c.Auth.Mode, AuthModeFrom: from("auth.mode", "SKILLSD_AUTH_MODE"),
		TokensEnv: c.Auth.TokensEnv, TokensEnvFrom: from("auth.tokens_env", "SKILLSD_AUTH_TOKENS_ENV"),
		GitHubAPIURL: c.Auth.GitHubAPIURL, GitHubRepos: append([]string(nil), c.Auth.GitHubRepos...),
		TLS:       TLSFiles{CertFile: c.TLS.CertFile, KeyFile: c.TLS.KeyFile, ClientCAFile: c.TLS.ClientCAFile},
		TLSFrom:   from("tls.cert_file", "SKILLSD_TLS_CERT"),
		HidePaths: c.Network.HidePaths, HidePathsFrom: from("network.hide_paths", "SKILLSD_HIDE_PATHS"),
	}
	return s
}

// FromEnv reads the settings of a command that loads no configuration file
// (a gateway in front of a remote skillsd) from the environment:
// SKILLSD_AUTH_MODE, SKILLSD_AUTH_TOKENS_ENV, GITHUB_API_URL,
// GITHUB_AUTH_REPOS, SKILLSD_TLS_CERT, SKILLSD_TLS_KEY, SKILLSD_TLS_CLIENT_CA
// and SKILLSD_HIDE_PATHS. A bad value is an error naming the variable.
func FromEnv(getenv func(string) string) (Settings, error) {
	c := config.Default()
	if err := c.ApplyEnvOf(getenv, "auth.", "tls.", "network."); err != nil {
		return Settings{}, err
	}
	return FromConfig(c, "", getenv), nil
}

// Flags are the command-line layer: the flags each command registers with
// Register. A flag left out changes nothing.
type Flags struct {
	// Auth is --auth.
	Auth string
	// TokensEnv is the inbound tokens flag (--auth-token-env; skillsd's
	// --token-env too), and TokensFlag the name it was given under.
	TokensEnv, TokensFlag string
	// TLS is --tls-cert, --tls-key and --tls-client-ca.
	TLS TLSFiles
	// HidePaths is --hide-paths.
	HidePaths string
}

// Register adds --auth, --tls-cert, --tls-key, --tls-client-ca,
// --hide-paths and the inbound tokens flags to fs. tokensFlags are the names
// of the flag naming the variable that holds the accepted tokens (the first
// is the main one; the others are aliases, and two of them with different
// values are an error).
func (f *Flags) Register(fs *flag.FlagSet, tokensFlags ...string) {
	fs.StringVar(&f.Auth, "auth", "", "how callers authenticate: none (on purpose; required to serve a non-loopback address without auth), "+
		"token (the bearer tokens of the tokens variable) or github (each caller's GitHub token; docs/github.md). "+
		"Default: auth.mode, SKILLSD_AUTH_MODE, else token when the tokens variable is set, else none on loopback only")
	for i, name := range tokensFlags {
		usage := "the environment variable `NAME` holding the bearer tokens callers must send, comma-separated (several allow rotation); implies --auth token. " +
			"Default: auth.tokens_env, SKILLSD_AUTH_TOKENS_ENV, else " + DefaultTokensEnv
		if i > 0 {
			usage = "the same as --" + tokensFlags[0]
		}
		fs.Var(&tokensValue{f: f, name: name}, name, usage)
	}
	fs.StringVar(&f.TLS.CertFile, "tls-cert", "", "serve TLS with this certificate chain `FILE` (PEM; re-read when it changes); default tls.cert_file, SKILLSD_TLS_CERT")
	fs.StringVar(&f.TLS.KeyFile, "tls-key", "", "the private key `FILE` of --tls-cert (PEM); default tls.key_file, SKILLSD_TLS_KEY")
	fs.StringVar(&f.TLS.ClientCAFile, "tls-client-ca", "", "require client certificates signed by a CA of this `FILE` (PEM; mutual TLS); default tls.client_ca_file, SKILLSD_TLS_CLIENT_CA")
	fs.StringVar(&f.HidePaths, "hide-paths", "", "leave the server's absolute paths out of answers: auto (on listeners that are not loopback), always or never; default network.hide_paths, SKILLSD_HIDE_PATHS, else auto")
}

// tokensValue is one name of the inbound tokens flag.
type tokensValue struct {
	f    *Flags
	name string
}

func (v *tokensValue) String() string {
	if v == nil || v.f == nil {
		return ""
	}
	return v.f.TokensEnv
}

func (v *tokensValue) Set(s string) error {
	if v.f.TokensFlag != "" && v.f.TokensFlag != v.name && v.f.TokensEnv != s {
		return fmt.Errorf("--%s %s and --%s %s name two different variables; give one", v.f.TokensFlag, v.f.TokensEnv, v.name, s)
	}
	v.f.TokensEnv, v.f.TokensFlag = s, v.name
	return nil
}

// Given reports whether any flag of f was given.
func (f Flags) Given() bool {
	return f.Auth != "" || f.TokensEnv != "" || f.TLS != (TLSFiles{}) || f.HidePaths != ""
}

// Check checks the flags' own values, before anything is loaded. With
// getenv, the variable a tokens flag names must hold a token (nil leaves
// that to New).
func (f Flags) Check(getenv func(string) string) error {
	switch f.Auth {
	case ModeUnset, ModeNone, ModeToken, ModeGitHub:
	default:
		return fmt.Errorf("--auth %q: want none, token (static bearer tokens) or github (each caller's GitHub token)", f.Auth)
	}
	if f.TokensEnv != "" && f.Auth != ModeUnset && f.Auth != ModeToken {
		return fmt.Errorf("--%s names the tokens of --auth token; it does not go with --auth %s", f.TokensFlag, f.Auth)
	}
	if f.TokensEnv != "" && getenv != nil && len(splitTokens(getenv(f.TokensEnv))) == 0 {
		return fmt.Errorf("--%s %s: the variable %s is empty or unset; set it to the accepted tokens, comma-separated", f.TokensFlag, f.TokensEnv, f.TokensEnv)
	}
	switch f.HidePaths {
	case "", HideAuto, HideAlways, HideNever:
	default:
		return fmt.Errorf("--hide-paths %q: want auto, always or never", f.HidePaths)
	}
	if f.TLS.KeyFile != "" && f.TLS.CertFile == "" {
		return errors.New("--tls-key needs --tls-cert")
	}
	return nil
}

// Over returns s with the flags that were given put over it: flags win over
// the configuration and the environment. A tokens flag without --auth means
// token mode; TLS flags replace the configured files as a whole.
func (f Flags) Over(s Settings) Settings {
	if f.Auth != "" {
		s.AuthMode, s.AuthModeFrom = f.Auth, "--auth"
	}
	if f.TokensEnv != "" {
		s.TokensEnv, s.TokensEnvFrom = f.TokensEnv, "--"+f.TokensFlag
		if f.Auth == "" {
			s.AuthMode, s.AuthModeFrom = ModeToken, "--"+f.TokensFlag
		}
	}
	if f.TLS.CertFile != "" || f.TLS.KeyFile != "" || f.TLS.ClientCAFile != "" {
		t := s.TLS
		if f.TLS.CertFile != "" {
			t = TLSFiles{CertFile: f.TLS.CertFile, KeyFile: f.TLS.KeyFile, ClientCAFile: t.ClientCAFile}
		}
		if f.TLS.ClientCAFile != "" {
			t.ClientCAFile = f.TLS.ClientCAFile
		}
		s.TLS, s.TLSFrom = t, "--tls-cert"
	}
	if f.HidePaths != "" {
		s.HidePaths, s.HidePathsFrom = f.HidePaths, "--hide-paths"
	}
	return s
}

package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

const redacted = "REDACTED"

// Redacted returns a deep copy of c that is safe to print or log: credentials
// inside URLs (user information, query values) are replaced by REDACTED.
// Validate refuses such URLs where they matter, and tokens are only ever
// named (*_env keys), so this is a second line of defence.
func (c Config) Redacted() Config {
	r := c
	r.Scripts.AllowedExtensions = slices.Clone(c.Scripts.AllowedExtensions)
	r.Scripts.Runners = maps.Clone(c.Scripts.Runners)
	r.Scripts.CwdAllow = slices.Clone(c.Scripts.CwdAllow)
	r.Scripts.ReadPaths = slices.Clone(c.Scripts.ReadPaths)
	r.Search.StopWords = slices.Clone(c.Search.StopWords)
	r.Filters.EnabledSkills = slices.Clone(c.Filters.EnabledSkills)
	r.Filters.EnabledCategories = slices.Clone(c.Filters.EnabledCategories)
	r.Analytics.Endpoint = redactURL(c.Analytics.Endpoint)
	r.Analytics.Store = redactURL(c.Analytics.Store)
	r.Embedding.BaseURL = redactURL(c.Embedding.BaseURL)
	r.Auth.GitHubAPIURL = redactURL(c.Auth.GitHubAPIURL)
	r.Content.SkillsRepo = redactURL(c.Content.SkillsRepo)
	r.Content.AgentsRepo = redactURL(c.Content.AgentsRepo)
	r.Content.DocsRepo = redactURL(c.Content.DocsRepo)
	r.Sources = slices.Clone(c.Sources)
	for i, s := range r.Sources {
		if s.Git != nil {
			g := *s.Git
			g.URL = redactURL(g.URL)
			r.Sources[i].Git = &g
		}
	}
	return r
}

// String is the configuration as YAML, redacted (see Redacted).
func (c Config) String() string {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c.Redacted()); err != nil {
		return "config: " + err.Error()
	}
	enc.Close()
	return b.String()
}

// redactURL hides the credentials a URL may carry. A value that is not a URL
// but holds an "@" (scp-like git@host:path) keeps a plain user name only.
func redactURL(s string) string {
	if s == "" {
		return s
	}
	if !strings.Contains(s, "://") {
		head, _, _ := strings.Cut(s, "/")
		if at := strings.LastIndex(head, "@"); at >= 0 && strings.Contains(head[:at], ":") {
			return redacted + s[at:]
		}
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		if strings.Contains(s, "@") || strings.Contains(s, "?") {
			return redacted
		}
		return s
	}
	if u.User != nil {
		if strings.EqualFold(u.Scheme, "ssh") {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
		} else {
			u.User = url.User(redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q[k] = []string{redacted}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

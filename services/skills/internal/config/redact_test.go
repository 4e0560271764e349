package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedacted(t *testing.T) {
	c := Default()
	c.Analytics.Endpoint = "https://hook:ghp_user@collector.example.com/e?key=s3cret&x=1"
	c.Embedding.BaseURL = "https://api.example.com/v1?api_key=s3cret"
	c.Analytics.Store = "postgres://skillsd:s3cret@db.internal:5432/usage?sslmode=require"
	c.Content.SkillsRepo = "https://ghp_token@github.com/a/b.git"
	c.Content.AgentsRepo = "user:s3cret@github.com:a/agents.git"
	c.Content.DocsRepo = "ssh://git:s3cret@github.com/a/docs.git"
	c.Sources = []Source{
		{Git: &GitSource{URL: "https://u:s3cret@example.com/x.git", Ref: "main"}},
		{Git: &GitSource{URL: "git@github.com:a/b.git", Ref: "main"}},
		{Path: "~/skills"},
	}
	before := c.Redacted() // must not change c
	_ = before

	r := c.Redacted()
	wants := map[string][2]string{
		"analytics.endpoint":  {r.Analytics.Endpoint, "https://REDACTED@collector.example.com/e?key=REDACTED&x=REDACTED"},
		"embedding.base_url":  {r.Embedding.BaseURL, "https://api.example.com/v1?api_key=REDACTED"},
		"analytics.store":     {r.Analytics.Store, "postgres://REDACTED@db.internal:5432/usage?sslmode=REDACTED"},
		"content.skills_repo": {r.Content.SkillsRepo, "https://REDACTED@github.com/a/b.git"},
		"content.agents_repo": {r.Content.AgentsRepo, "REDACTED@github.com:a/agents.git"},
		"content.docs_repo":   {r.Content.DocsRepo, "ssh://git:REDACTED@github.com/a/docs.git"},
		"sources[0].git.url":  {r.Sources[0].Git.URL, "https://REDACTED@example.com/x.git"},
		"sources[1].git.url":  {r.Sources[1].Git.URL, "git@github.com:a/b.git"},
	}
	for k, w := range wants {
		if w[0] != w[1] {
			t.Errorf("Redacted() %s = %q, want %q", k, w[0], w[1])
		}
	}
	if c.Sources[0].Git.URL != "https://u:s3cret@example.com/x.git" {
		t.Errorf("Redacted() changed the original: %q", c.Sources[0].Git.URL)
	}
	r.Scripts.Runners[".sh"] = "zsh"
	r.Search.StopWords = append(r.Search.StopWords, "x")
	if c.Scripts.Runners[".sh"] != "bash" {
		t.Errorf("Redacted() shares the runners map with the original")
	}
	s := c.String()
	for _, secret := range []string{"s3cret", "ghp_"} {
		if strings.Contains(s, secret) {
			t.Errorf("String() shows %q:\n%s", secret, s)
		}
	}
	if !strings.Contains(s, "min_score: 0.2") {
		t.Errorf("String() is not the YAML configuration:\n%s", s)
	}
}

func TestRedactedKeepsPlainValues(t *testing.T) {
	c := Default()
	c.Analytics.Endpoint = "https://collector.example.com/e"
	c.Sources = []Source{{Name: "t", Git: &GitSource{URL: "https://github.com/a/b.git", Ref: "main", TokenEnv: "T"}}}
	if diff := cmp.Diff(c, c.Redacted()); diff != "" {
		t.Errorf("Redacted() changed a configuration without secrets (-want +got):\n%s", diff)
	}
}

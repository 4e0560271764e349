package githubauth_test

import (
	"testing"

	"github.com/skillsd/skillsd/services/skills/githubauth"
)

// BenchmarkCheckCached is the cost a request pays once its token's answer is
// cached: decode, keyed hash, map lookup.
func BenchmarkCheckCached(b *testing.B) {
	gh := newFakeGitHub(b, "")
	a, err := githubauth.New(githubauth.Options{APIURL: gh.URL, Repos: []string{allowedRepo}, Client: gh.Client()})
	if err != nil {
		b.Fatal(err)
	}
	header := bearer(readerToken)
	ctx := b.Context()
	for b.Loop() {
		tok, err := githubauth.DecodeBearer(header)
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Check(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
	if n := gh.calls.Load(); n != 1 {
		b.Fatalf("GitHub asked %d times, want 1", n)
	}
}

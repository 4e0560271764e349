package config

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// FuzzParse checks that Parse never panics, that its errors are *Error with a
// message, and that what it accepts is valid and survives a round trip.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("testdata/config.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(example),
		seed000Config,
		"",
		"matching: {min_score: 0.5}",
		"sources:\n  - git: &g {url: \"https://h/x.git\"}\n  - git: {<<: *g, path: a}\n",
		"scripts:\n  runners: {\".sh\": ~, \".rb\": ruby}\n",
		"a: &a [*a]\n",
		"matching:\n  <<: [&x {max_results: 2}, *x]\n",
		"---\n---\n",
		"\t- :",
		"content: {skills_repo: \"git@h:x\", skills_path: ./a/../b}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || err.Error() == "" {
				t.Fatalf("Parse() error %T %q, want a non-empty *Error", err, err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse() accepted a configuration Validate refuses: %v", err)
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("yaml.Marshal() = %v", err)
		}
		again, err := Parse("again.yaml", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(c)) = %v\n%s", err, out)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckConfig(t *testing.T) {
	write := func(t *testing.T, text string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A git source that nothing answers: a check that cloned it would fail.
	const good = "sources:\n  - name: team\n    git:\n      url: http://127.0.0.1:1/team-skills.git\n      ref: main\nscripts:\n  enabled: false\n"
	for _, tc := range []struct {
		name   string
		config string
		args   []string
		env    map[string]string
		want   string // in the error; "" for success
		usage  bool
	}{
		{name: "valid", config: good, want: ""},
		{name: "valid with a database and tokens", config: good, args: []string{"--auth", "token"},
			env: map[string]string{"SKILLSD_DATABASE_URL": "postgres://skillsd@db:5432/skillsd", "SKILLSD_AUTH_TOKENS": "t1"}},
		{name: "unknown key", config: good + "scripts_extra: 1\n", want: "scripts_extra"},
		{name: "bad value", config: "search:\n  limit: 500\n", want: "search.limit"},
		{name: "bad environment", config: good, env: map[string]string{"SKILLSD_DATABASE_URL": "mysql://db/skillsd"}, want: "SKILLSD_DATABASE_URL"},
		{name: "token mode without tokens", config: good, args: []string{"--auth", "token"}, want: "SKILLSD_AUTH_TOKENS"},
		{name: "tokens variable named but empty", config: good, args: []string{"--token-env", "MY_TOKENS"}, want: "MY_TOKENS", usage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"SKILLSD_HOME": t.TempDir()}
			for k, v := range tc.env {
				vars[k] = v
			}
			file := write(t, tc.config)
			args := append([]string{"--check-config", "--config", file, "--grpc", "0.0.0.0:50051"}, tc.args...)
			var stderr bytes.Buffer
			err := run(t.Context(), args, func(k string) string { return vars[k] }, &stderr)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want the configuration accepted", err)
				}
				if !strings.Contains(stderr.String(), "configuration ok ("+file+")") {
					t.Errorf("got output %q, want it to say the configuration of %s is ok", stderr.String(), file)
				}
				entries, err := os.ReadDir(vars["SKILLSD_HOME"])
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != 0 {
					t.Errorf("got %d entries in SKILLSD_HOME after a check, want none: a check writes no state", len(entries))
				}
				return
			}
			if err == nil {
				t.Fatalf("got the configuration accepted, want an error mentioning %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to mention %q", err, tc.want)
			}
			var usage usageError
			if got := errors.As(err, &usage); got != tc.usage {
				t.Errorf("usage error: got %v, want %v (%v)", got, tc.usage, err)
			}
		})
	}
}

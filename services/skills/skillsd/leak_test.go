package skillsd_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestNewFailureLeavesNoGoroutine: when a step of New fails after others
// started background work (the semantic engine, the usage recorder, the
// content folders, the refresh settings), New stops all of it before it
// returns the error: the goroutines are back to what they were.
func TestNewFailureLeavesNoGoroutine(t *testing.T) {
	fake := embedtest.NewServer(t) // its server runs before and after
	for _, tc := range []struct {
		name   string
		config string
		opts   func(t *testing.T) skillsd.Options
		want   string // in New's error
	}{
		{
			name:   "the first catalog is empty",
			config: "require_skills: true\nrefresh: {enabled: true, interval_minutes: 1}\nembedding: {provider: openai, base_url: " + fake.BaseURL() + "}\n",
			opts: func(t *testing.T) skillsd.Options {
				return skillsd.Options{SkillsDirs: []string{t.TempDir()}, AgentsDir: t.TempDir(), DocsDir: t.TempDir()}
			},
			want: "no skills",
		},
		{
			name:   "the usage spool cannot be opened",
			config: "analytics: {endpoint: http://127.0.0.1:9/events}\nembedding: {provider: openai, base_url: " + fake.BaseURL() + "}\n",
			opts: func(t *testing.T) skillsd.Options {
				return skillsd.Options{SkillsDirs: []string{examples(t)}}
			},
			want: "analytics",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			if tc.want == "analytics" {
				// A file where the state folder should be: the spool cannot be made.
				if err := os.WriteFile(state, []byte("not a folder"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := tc.opts(t)
			opts.ConfigFile = writeConfig(t, tc.config)
			opts.Cwd, opts.Home = t.TempDir(), t.TempDir()
			opts.Getenv = env(map[string]string{"SKILLSD_HOME": state, "OPENAI_API_KEY": "sk-test"})
			before := runtime.NumGoroutine()
			srv, err := skillsd.New(t.Context(), opts)
			if err == nil {
				_ = srv.Close()
				t.Fatal("New succeeded; the case wants it to fail")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: got %v, want an error about %q", err, tc.want)
			}
			waitGoroutines(t, before)
		})
	}
}

// waitGoroutines waits up to 5 s for the number of goroutines to come back
// to want or fewer, and fails with their stacks otherwise.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("got %d goroutines, want %d or fewer:\n%s", n, want, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package skillsd_test

// The configuration audit: every key of config.yaml must change what the
// service does. TestConfigAudit walks the Config type by reflection and
// wants one case in configAudit per key; a key nothing reads is then either
// a failing case or a missing one, never silence.
//
// To add a key: add the field to config.Config (with its default, its
// validation and its line in testdata/config.example.yaml), then one entry
// to configAudit below, named by the dotted key ("scripts.require_isolation",
// "sources[].git.url"). The entry starts a service with the key set
// (a.start with a config.yaml fragment, or a.startSources for sources and
// content) and asserts something a caller can see change: an answer, an
// error, a file written, a request received, the log. Compare with the
// default service (a.start with "") when the difference is the point. A key
// that a gateway reads (mcp.*) is checked through the accessor the gateway
// uses (Server.MCPSettings, Server.MCPHTTP); the end-to-end tests show the
// gateway applying it.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/githubauth"
	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/embed/embedtest"
	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
	"github.com/skillsd/skillsd/services/skills/logging"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// configAudit proves, key by key, that each setting does something.
var configAudit = map[string]func(t *testing.T, a *audit){
	"matching.min_score": func(t *testing.T, a *audit) {
		task := "extract the text of a pdf document"
		if got := a.start(t, "").match(t, task).GetOutcome(); got != skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH {
			t.Fatalf("default: outcome %v, want a match", got)
		}
		if got := a.start(t, "matching: {min_score: 0.99}").match(t, task).GetOutcome(); got != skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH {
			t.Errorf("min_score 0.99: outcome %v, want no match", got)
		}
	},
	"matching.max_results": func(t *testing.T, a *audit) {
		if n := len(a.start(t, "").match(t, "office work").GetCandidates()); n != 3 {
			t.Fatalf("default: %d candidates, want 3", n)
		}
		if n := len(a.start(t, "matching: {max_results: 2}").match(t, "office work").GetCandidates()); n != 2 {
			t.Errorf("max_results 2: %d candidates, want 2", n)
		}
	},
	"matching.ambiguity_threshold": func(t *testing.T, a *audit) {
		task := "pdf office documents"
		if got := a.start(t, "").match(t, task).GetOutcome(); got != skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH {
			t.Fatalf("default: outcome %v, want a match", got)
		}
		if got := a.start(t, "matching: {ambiguity_threshold: 1}").match(t, task).GetOutcome(); got != skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS {
			t.Errorf("ambiguity_threshold 1: outcome %v, want ambiguous", got)
		}
	},
	"matching.strategy": func(t *testing.T, a *audit) {
		if got := a.start(t, "").match(t, "pdf").GetStrategy(); got != "keyword" {
			t.Fatalf("default (auto, every skill has keywords): strategy %q, want keyword", got)
		}
		if got := a.start(t, "matching: {strategy: ranked}").match(t, "pdf").GetStrategy(); got != "ranked" {
			t.Errorf("strategy ranked: %q", got)
		}
	},
	"refresh.enabled": func(t *testing.T, a *audit) {
		if got := skillsd.RefreshInterval(a.start(t, "").srv); got != 15*time.Minute {
			t.Fatalf("default: refresh every %v, want 15m", got)
		}
		if got := skillsd.RefreshInterval(a.start(t, "refresh: {enabled: false}").srv); got != 0 {
			t.Errorf("refresh off: every %v, want never", got)
		}
	},
	"refresh.interval_minutes": func(t *testing.T, a *audit) {
		if got := skillsd.RefreshInterval(a.start(t, "refresh: {interval_minutes: 5}").srv); got != 5*time.Minute {
			t.Errorf("interval 5: every %v", got)
		}
	},
	"scripts.enabled": func(t *testing.T, a *audit) {
		if _, err := a.start(t, "").script(t, "hello.sh", ""); err != nil {
			t.Fatalf("default: %v", err)
		}
		if _, err := a.start(t, "scripts: {enabled: false}").script(t, "hello.sh", ""); err == nil {
			t.Error("scripts off: the script ran")
		}
	},
	"scripts.timeout_seconds": func(t *testing.T, a *audit) {
		res, err := a.start(t, "scripts: {timeout_seconds: 1}").script(t, "slow.sh", "")
		if err != nil || !res.GetTimedOut() {
			t.Errorf("timeout 1 s, a 3 s script: %v, %v; want it timed out", res, err)
		}
	},
	"scripts.max_output_bytes": func(t *testing.T, a *audit) {
		if res, err := a.start(t, "").script(t, "loud.sh", ""); err != nil || res.GetStdoutTruncated() {
			t.Fatalf("default: %v, %v", res, err)
		}
		res, err := a.start(t, "scripts: {max_output_bytes: 50}").script(t, "loud.sh", "")
		if err != nil || !res.GetStdoutTruncated() || !strings.HasPrefix(res.GetStdout(), strings.Repeat("0", 50)+"\n") {
			t.Errorf("max 50 bytes: %q, truncated %v, %v; want 50 of the 200 bytes", res.GetStdout(), res.GetStdoutTruncated(), err)
		}
	},
	"scripts.allowed_extensions": func(t *testing.T, a *audit) {
		if _, err := a.start(t, "scripts: {allowed_extensions: [.py]}").script(t, "hello.sh", ""); err == nil {
			t.Error("only .py allowed: a .sh script ran")
		}
	},
	"scripts.runners": func(t *testing.T, a *audit) {
		if res, err := a.start(t, "").script(t, "shell.sh", ""); err != nil || !strings.Contains(res.GetStdout(), "bash=5") && !strings.Contains(res.GetStdout(), "bash=4") {
			t.Fatalf("default runner (bash): %q, %v", res.GetStdout(), err)
		}
		if res, err := a.start(t, `scripts: {runners: {".sh": "sh"}}`).script(t, "shell.sh", ""); err != nil || !strings.Contains(res.GetStdout(), "bash=none") {
			t.Errorf(".sh run by sh: %q, %v; want no BASH_VERSION", res.GetStdout(), err)
		}
	},
	"scripts.max_concurrent": func(t *testing.T, a *audit) {
		s := a.start(t, "scripts: {max_concurrent: 1}")
		for range 20 {
			slow := make(chan error, 1)
			go func() { _, err := s.script(t, "slow.sh", ""); slow <- err }()
			for lost := false; !lost; {
				select {
				case err := <-slow:
					if status.Code(err) != codes.ResourceExhausted {
						t.Fatalf("max_concurrent 1: a 3 s script ran to its end (%v) while others started", err)
					}
					lost = true // the probe below held the slot first: start again
					continue
				default:
				}
				if _, err := s.script(t, "hello.sh", ""); status.Code(err) == codes.ResourceExhausted {
					<-slow
					return // refused while the slow script held the only slot
				}
			}
		}
		t.Fatal("max_concurrent 1: the slow script never held the slot")
	},
	"scripts.cwd_allow": func(t *testing.T, a *audit) {
		work := t.TempDir()
		if _, err := a.start(t, "").script(t, "where.sh", work); err == nil {
			t.Fatal("default: a script ran in a folder outside its skill")
		}
		res, err := a.start(t, "scripts: {cwd_allow: ["+work+"]}").script(t, "where.sh", work)
		if err != nil || !strings.Contains(res.GetStdout(), filepath.Base(work)) {
			t.Errorf("cwd_allow: %q, %v", res.GetStdout(), err)
		}
	},
	"scripts.allow_network": func(t *testing.T, a *audit) {
		for _, allowed := range []bool{false, true} {
			r := a.start(t, fmt.Sprintf("scripts: {allow_network: %v}", allowed))
			r.needIsolation(t, "landlock-network")
			lis, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer lis.Close()
			port := fmt.Sprint(lis.Addr().(*net.TCPAddr).Port)
			res, err := r.scriptArgs(t, "dial.sh", map[string]string{"port": port}) // dial.sh declares network: true
			if err != nil {
				t.Fatal(err)
			}
			if connected := res.GetStdout() == "connected\n"; connected != allowed || res.GetIsolation().GetNetwork() != allowed {
				t.Errorf("allow_network %v: a script that declares network use connected %v (isolation %v)", allowed, connected, res.GetIsolation())
			}
		}
	},
	"scripts.require_isolation": func(t *testing.T, a *audit) {
		for _, required := range []bool{false, true} {
			r := a.start(t, fmt.Sprintf("scripts: {require_isolation: %v}", required))
			iso := r.status(t).GetScriptIsolation()
			res, err := r.script(t, "hello.sh", "")
			switch {
			case iso.GetRequired() != required:
				t.Errorf("require_isolation %v: the status says required %v", required, iso.GetRequired())
			case required && len(iso.GetMissing()) > 0 && status.Code(err) != codes.FailedPrecondition:
				t.Errorf("require_isolation, %v missing: the script ran (%v, %v)", iso.GetMissing(), res, err)
			case len(iso.GetMissing()) == 0 && (err != nil || res.GetIsolation().GetRequired() != required):
				t.Errorf("require_isolation %v on a host that confines fully: %v, %v", required, res, err)
			}
		}
	},
	"scripts.read_paths": func(t *testing.T, a *audit) {
		extra := t.TempDir()
		writeFile(t, filepath.Join(extra, "data.txt"), "tool data\n")
		target := map[string]string{"target": filepath.Join(extra, "data.txt")}
		r := a.start(t, "")
		r.needIsolation(t, "landlock-filesystem")
		if res, err := r.scriptArgs(t, "peek.sh", target); err != nil || res.GetSuccess() {
			t.Fatalf("default: a script read a file outside its skill: %v, %v", res, err)
		}
		if res, err := a.start(t, "scripts: {read_paths: ["+extra+"]}").scriptArgs(t, "peek.sh", target); err != nil || res.GetStdout() != "tool data\n" {
			t.Errorf("read_paths: %v, %v", res, err)
		}
	},
	"assets.max_size_bytes": func(t *testing.T, a *audit) {
		if _, err := a.start(t, "").read(t, "assets/blob.bin"); err != nil {
			t.Fatalf("default: %v", err)
		}
		if _, err := a.start(t, "assets: {max_size_bytes: 1024}").read(t, "assets/blob.bin"); err == nil {
			t.Error("max 1024 bytes: a 4096-byte binary file was served")
		}
	},
	"assets.max_file_bytes": func(t *testing.T, a *audit) {
		if r, err := a.start(t, "").read(t, "notes.txt"); err != nil || len(r.GetText()) != 4000 {
			t.Fatalf("default: %d bytes, %v", len(r.GetText()), err)
		}
		if r, err := a.start(t, "assets: {max_file_bytes: 1000}").read(t, "notes.txt"); err != nil || len(r.GetText()) != 1000 || !r.GetTruncated() {
			t.Errorf("page of 1000 bytes: %d bytes, truncated %v, %v", len(r.GetText()), r.GetTruncated(), err)
		}
	},
	"analytics.enabled": func(t *testing.T, a *audit) {
		if !a.start(t, "").feedback(t, "").GetRecorded() {
			t.Fatal("default (local usage on): feedback not recorded")
		}
		if a.start(t, "analytics: {enabled: false}").feedback(t, "").GetRecorded() {
			t.Error("analytics off: feedback recorded")
		}
	},
	"analytics.endpoint": func(t *testing.T, a *audit) {
		c := newCollector(t)
		s := a.start(t, "analytics: {enabled: true, endpoint: "+c.URL+", flush_interval_seconds: 1}")
		s.feedback(t, "")
		waitUntil(t, "an event at the endpoint", func() bool { return len(c.events()) > 0 })
	},
	"analytics.flush_interval_seconds": func(t *testing.T, a *audit) {
		c := newCollector(t)
		s := a.start(t, "analytics: {enabled: true, endpoint: "+c.URL+", flush_interval_seconds: 1}")
		s.feedback(t, "")
		// Delivered while running, long before the default 30 s.
		waitUntil(t, "an event posted within 10 s", func() bool { return len(c.events()) > 0 })
	},
	"analytics.server_id": func(t *testing.T, a *audit) {
		c := newCollector(t)
		s := a.start(t, "analytics: {enabled: true, endpoint: "+c.URL+", server_id: audit-server, flush_interval_seconds: 1}")
		s.feedback(t, "")
		waitUntil(t, "an event at the endpoint", func() bool { return len(c.events()) > 0 })
		if ev := c.events(); ev[0]["server_id"] != "audit-server" {
			t.Errorf("events %v, want server_id audit-server", ev)
		}
	},
	"analytics.max_spool_bytes": func(t *testing.T, a *audit) {
		// The endpoint never answers: the spool fills up to its 1 MiB cap.
		s := a.start(t, "analytics: {enabled: true, endpoint: http://127.0.0.1:1/, max_spool_bytes: 1048576}")
		comment := strings.Repeat("x", 4000)
		for i := range 2000 {
			if r := s.feedback(t, comment); !r.GetRecorded() {
				if !strings.Contains(r.GetMessage(), "spool is full") || i < 200 {
					t.Errorf("refused after %d events: %q", i, r.GetMessage())
				}
				return
			}
		}
		t.Error("8 MB of events spooled under a 1 MiB cap")
	},
	"analytics.store": func(t *testing.T, a *audit) {
		url := pgtest.Database(t)
		s := a.start(t, `analytics: {store: "`+url+`"}`)
		if !s.feedback(t, "kept in PostgreSQL").GetRecorded() {
			t.Fatal("feedback not recorded")
		}
		db := pgtest.Open(t, url)
		waitUntil(t, "the feedback in the PostgreSQL store", func() bool {
			var n int
			err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM usage_comments WHERE comment = 'kept in PostgreSQL'`).Scan(&n)
			return err == nil && n == 1
		})
	},
	"search.limit": func(t *testing.T, a *audit) {
		if n := len(a.start(t, "").search(t, "office")); n != 3 {
			t.Fatalf("default: %d results, want 3", n)
		}
		if n := len(a.start(t, "search: {limit: 1}").search(t, "office")); n != 1 {
			t.Errorf("limit 1: %d results", n)
		}
	},
	"search.threshold": func(t *testing.T, a *audit) {
		// Seed 004's cut applies when more than 5 skills hit: a catalog of 8
		// that all say "report", one of them far more than the others.
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "report", "SKILL.md"), "---\nname: report\ndescription: Report writing, report templates and report review.\nkeywords: [report]\n---\n# Report\n")
		for i := range 7 {
			name := fmt.Sprintf("other%d", i)
			writeFile(t, filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: Tasks of kind "+name+", and sometimes a report of them, with charts tables and many other words here.\nkeywords: ["+name+"]\n---\n# X\n")
		}
		counts := map[string]int{}
		for _, y := range []string{"", "search: {threshold: 0.99}", "search: {threshold: 0}"} {
			counts[y] = len(a.run(t, []string{dir}, y, nil).search(t, "report writing"))
		}
		if counts["search: {threshold: 0.99}"] != 1 || counts[""] >= 8 || counts["search: {threshold: 0}"] != 8 {
			t.Errorf("hits by threshold: %v; want 1 at 0.99, fewer than 8 by default (0.2), all 8 at 0 (no cut)", counts)
		}
	},
	"search.stop_words": func(t *testing.T, a *audit) {
		if n := len(a.start(t, "search: {stop_words: [office]}").search(t, "office")); n != 0 {
			t.Errorf("office a stop word: %d results, want none", n)
		}
	},
	"filters.enabled_skills": func(t *testing.T, a *audit) {
		if n := a.start(t, "filters: {enabled_skills: [pdf]}").count(t); n != 1 {
			t.Errorf("enabled_skills [pdf]: %d skills", n)
		}
	},
	"filters.enabled_categories": func(t *testing.T, a *audit) {
		if n := a.start(t, "filters: {enabled_categories: [office]}").count(t); n != 2 {
			t.Errorf("enabled_categories [office]: %d skills, want 2", n)
		}
	},
	"embedding.provider": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		a.start(t, "embedding: {base_url: "+fake.BaseURL()+"}").search(t, "pdf")
		if n := len(fake.Requests()); n != 0 {
			t.Fatalf("provider none: %d requests", n)
		}
		s := a.start(t, "embedding: {provider: openai, base_url: "+fake.BaseURL()+"}")
		waitUntil(t, "the skills embedded", func() bool { return fake.Inputs() >= 3 })
		s.search(t, "pdf")
	},
	"embedding.base_url": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		a.start(t, "embedding: {provider: openai, base_url: "+fake.BaseURL()+"}")
		waitUntil(t, "a request at the base URL", func() bool { return len(fake.Requests()) > 0 })
	},
	"embedding.model": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		a.start(t, "embedding: {provider: openai, base_url: "+fake.BaseURL()+", model: audit-model}")
		waitUntil(t, "a request", func() bool { return len(fake.Requests()) > 0 })
		if m := fake.Requests()[0].Model; m != "audit-model" {
			t.Errorf("model %q, want audit-model", m)
		}
	},
	"embedding.query_timeout_ms": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		s := a.start(t, "embedding: {provider: openai, base_url: "+fake.BaseURL()+", query_timeout_ms: 10}\nmatching: {strategy: ranked}")
		s.waitEmbedded(t)
		fake.Delay(time.Second)
		s.search(t, "pdf")
		if !strings.Contains(s.logs.String(), "embedding the query failed; answering lexically") {
			t.Errorf("a 1 s answer under a 10 ms query timeout did not time out; log:\n%s", s.logs.String())
		}
	},
	"embedding.batch_size": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		a.start(t, "embedding: {provider: openai, base_url: "+fake.BaseURL()+", batch_size: 1}")
		waitUntil(t, "the skills embedded", func() bool { return fake.Inputs() >= 3 })
		for _, r := range fake.Requests() {
			if len(r.Input) > 1 {
				t.Errorf("batch_size 1: a request of %d texts", len(r.Input))
			}
		}
	},
	"embedding.strong_similarity": func(t *testing.T, a *audit) {
		fake := embedtest.NewServer(t)
		base := "embedding: {provider: openai, base_url: " + fake.BaseURL()
		def, low := a.start(t, base+"}\nmatching: {strategy: ranked}"), a.start(t, base+", strong_similarity: 0.05}\nmatching: {strategy: ranked}")
		def.waitEmbedded(t)
		low.waitEmbedded(t)
		differ := false
		for _, q := range []string{"use", "decks", "formulas and text"} {
			d, l := def.search(t, q), low.search(t, q)
			differ = differ || !slices.Equal(d, l)
		}
		if !differ {
			t.Error("strong_similarity 0.05 changed no search answer")
		}
	},
	"embedding.weight": func(t *testing.T, a *audit) {
		auditSemanticOrder(t, a, "weight: 1", nil, "tables presentations", "formulas and text", "extract deck")
	},
	"embedding.restated_weight": func(t *testing.T, a *audit) {
		auditSemanticOrder(t, a, "restated_weight: 1", []string{"spreadsheet formulas"}, "extract deck", "office documents text")
	},
	"mcp.profile": func(t *testing.T, a *audit) {
		if p := a.start(t, "mcp: {profile: skillhub}").srv.MCPSettings().Profile; p != "skillhub" {
			t.Errorf("profile %q", p)
		}
	},
	"mcp.http.session_idle_timeout_seconds": func(t *testing.T, a *audit) {
		if d := a.start(t, "mcp: {http: {session_idle_timeout_seconds: 60}}").srv.MCPHTTP().SessionIdleTimeout; d != time.Minute {
			t.Errorf("idle timeout %v", d)
		}
	},
	"mcp.http.max_sessions": func(t *testing.T, a *audit) {
		if n := a.start(t, "mcp: {http: {max_sessions: 7}}").srv.MCPHTTP().MaxSessions; n != 7 {
			t.Errorf("max sessions %d", n)
		}
	},
	"mcp.http.allowed_origins": func(t *testing.T, a *audit) {
		if o := a.start(t, "mcp: {http: {allowed_origins: [\"https://console.example.com\"]}}").srv.MCPHTTP().AllowedOrigins; !slices.Equal(o, []string{"https://console.example.com"}) {
			t.Errorf("origins %v", o)
		}
	},
	// The REST gateway reads it through RESTSettings; skills-rest's
	// TestCORSSettings proves a browser's preflight then gets the header.
	"rest.cors_origins": func(t *testing.T, a *audit) {
		if o := a.start(t, "").srv.RESTSettings().CORSOrigins; len(o) != 0 {
			t.Fatalf("default: origins %v, want none", o)
		}
		if o := a.start(t, "rest: {cors_origins: [\"https://console.example.com\"]}").srv.RESTSettings().CORSOrigins; !slices.Equal(o, []string{"https://console.example.com"}) {
			t.Errorf("origins %v", o)
		}
	},
	"commands.enabled": func(t *testing.T, a *audit) {
		if _, err := a.start(t, "").command(t, "ls"); err == nil {
			t.Fatal("default: a command ran with commands off")
		}
		if r, err := a.start(t, "commands: {enabled: true}").command(t, "ls"); err != nil || !strings.Contains(r.GetStdout(), "SKILL.md") {
			t.Errorf("commands on: %v, %v", r, err)
		}
	},
	"commands.allowed": func(t *testing.T, a *audit) {
		s := a.start(t, "commands: {enabled: true, allowed: [cat]}")
		if _, err := s.command(t, "ls"); err == nil {
			t.Error("only cat allowed: ls ran")
		}
		if _, err := s.command(t, "cat", "SKILL.md"); err != nil {
			t.Errorf("cat: %v", err)
		}
	},
	"commands.timeout_seconds": func(t *testing.T, a *audit) {
		r, err := a.start(t, "commands: {enabled: true, allowed: [sleep], timeout_seconds: 1}").command(t, "sleep", "3")
		if err != nil || !r.GetTimedOut() {
			t.Errorf("timeout 1 s, sleep 3: %v, %v", r, err)
		}
	},
	"commands.max_output_bytes": func(t *testing.T, a *audit) {
		r, err := a.start(t, "commands: {enabled: true, allowed: [cat], max_output_bytes: 10}").command(t, "cat", "SKILL.md")
		if err != nil || !r.GetStdoutTruncated() || len(r.GetStdout()) > 10 {
			t.Errorf("max 10 bytes: %q, %v", r.GetStdout(), err)
		}
	},
	"auth.mode": func(t *testing.T, a *audit) {
		if err := a.start(t, "").serve(t, nil).list(t, ""); err != nil {
			t.Fatalf("default: %v", err)
		}
		c := a.startEnv(t, "auth: {mode: token}", map[string]string{"SKILLSD_AUTH_TOKENS": "tok"}).serve(t, nil)
		if err := c.list(t, ""); status.Code(err) != codes.Unauthenticated {
			t.Errorf("token mode, no token: %v", err)
		}
	},
	"auth.tokens_env": func(t *testing.T, a *audit) {
		c := a.startEnv(t, "auth: {mode: token, tokens_env: AUDIT_TOKENS}", map[string]string{"AUDIT_TOKENS": "audit-tok"}).serve(t, nil)
		if err := c.list(t, "Bearer audit-tok"); err != nil {
			t.Errorf("the token of AUDIT_TOKENS: %v", err)
		}
	},
	"auth.github_api_url": func(t *testing.T, a *audit) {
		gh := fakeGitHubAPI(t, "octo/audit")
		c := a.start(t, "auth: {mode: github, github_repos: [octo/audit], github_api_url: "+gh.URL+"}").serve(t, nil)
		if err := c.list(t, "Bearer "+githubauth.EncodeToken(ghReaderToken)); err != nil {
			t.Errorf("a token the API at github_api_url accepts: %v", err)
		}
	},
	"auth.github_repos": func(t *testing.T, a *audit) {
		gh := fakeGitHubAPI(t, "octo/audit")
		c := a.start(t, "auth: {mode: github, github_repos: [octo/other], github_api_url: "+gh.URL+"}").serve(t, nil)
		if err := c.list(t, "Bearer "+githubauth.EncodeToken(ghReaderToken)); status.Code(err) != codes.PermissionDenied {
			t.Errorf("a token that cannot read octo/other: %v, want PermissionDenied", err)
		}
	},
	"tls.cert_file": func(t *testing.T, a *audit) { a.checkTLS(t, false) },
	"tls.key_file":  func(t *testing.T, a *audit) { a.checkTLS(t, false) },
	"tls.client_ca_file": func(t *testing.T, a *audit) {
		a.checkTLS(t, true)
	},
	"network.hide_paths": func(t *testing.T, a *audit) {
		dir := func(s *running) string {
			resp, err := skillsv1.NewCatalogServiceClient(s.serve(t, nil).conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"})
			if err != nil {
				t.Fatal(err)
			}
			return resp.GetDirectory()
		}
		if d := dir(a.start(t, "")); !filepath.IsAbs(d) {
			t.Fatalf("default on loopback: directory %q, want the absolute folder", d)
		}
		if d := dir(a.start(t, "network: {hide_paths: always}")); filepath.IsAbs(d) {
			t.Errorf("always: directory %q, want it hidden", d)
		}
	},
	"log.level": func(t *testing.T, a *audit) {
		if lv := a.start(t, "log: {level: error}").level.Level(); lv != slog.LevelError {
			t.Errorf("level %v, want error", lv)
		}
	},
	"log.format": func(t *testing.T, a *audit) {
		for _, tc := range []struct{ yaml, prefix string }{{"", "time="}, {"log: {format: json}", `{"time":`}} {
			logs, format := &syncBuffer{}, new(logging.FormatVar)
			opts := skillsd.Options{SkillsDirs: []string{a.dir}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true, NoUsage: true,
				Logger: logging.New(logs, nil, format), LogFormat: format}
			if tc.yaml != "" {
				opts.ConfigFile = writeConfig(t, tc.yaml+"\n")
			}
			srv, err := skillsd.New(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			_ = srv.Close()
			line, _, _ := strings.Cut(logs.String(), "\n")
			if !strings.HasPrefix(line, tc.prefix) {
				t.Errorf("config %q: first log line %q, want it to start with %q", tc.yaml, line, tc.prefix)
			}
		}
	},
	"require_skills": func(t *testing.T, a *audit) {
		empty := t.TempDir()
		a.run(t, []string{empty}, "", nil) // an empty catalog serves (with a warning)
		_, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{empty}, Cwd: t.TempDir(), Home: t.TempDir(), NoUsage: true,
			ConfigFile: writeConfig(t, "require_skills: true\n")})
		if err == nil || !strings.Contains(err.Error(), "require_skills") || !strings.Contains(err.Error(), empty) {
			t.Errorf("require_skills with an empty folder: %v, want an error naming the key and the folder", err)
		}
	},
	"state_dir": func(t *testing.T, a *audit) {
		state := filepath.Join(t.TempDir(), "state")
		a.startEnv(t, "state_dir: "+state+"\nanalytics: {enabled: true}", map[string]string{"SKILLSD_HOME": ""})
		if _, err := os.Stat(filepath.Join(state, "analytics")); err != nil {
			t.Errorf("analytics state not under state_dir: %v", err)
		}
	},
	"sources": func(t *testing.T, a *audit) {
		if n := a.startSources(t, "sources:\n  - path: "+a.dir+"\n", nil).count(t); n != 3 {
			t.Errorf("one path source: %d skills, want 3", n)
		}
	},
	"sources[].path": func(t *testing.T, a *audit) {
		if n := a.startSources(t, "sources: [{path: "+a.dir+"}]", nil).count(t); n != 3 {
			t.Errorf("%d skills, want 3", n)
		}
	},
	"sources[].name": func(t *testing.T, a *audit) {
		if src := a.startSources(t, "sources: [{name: team, path: "+a.dir+"}]", nil).skill(t, "pdf").GetSkill().GetSource(); src != "team" {
			t.Errorf("source %q, want team", src)
		}
	},
	"sources[].follow_external_symlinks": func(t *testing.T, a *audit) {
		base := t.TempDir()
		skills, dotfiles := filepath.Join(base, "skills"), filepath.Join(base, "dotfiles")
		writeSkill(t, skills, "local")
		writeSkill(t, dotfiles, "x")
		if err := os.Symlink(filepath.Join(dotfiles, "x"), filepath.Join(skills, "x")); err != nil {
			t.Skipf("symlinks not available: %v", err)
		}
		if n := a.startSources(t, "sources: [{path: "+skills+"}]", nil).count(t); n != 1 {
			t.Fatalf("default: %d skills, want 1 (the link leaving the source is not followed)", n)
		}
		if n := a.startSources(t, "sources: [{path: "+skills+", follow_external_symlinks: ["+dotfiles+"]}]", nil).count(t); n != 2 {
			t.Errorf("follow_external_symlinks: %d skills, want 2", n)
		}
	},
	"sources[].git":     auditGitSource,
	"sources[].git.url": auditGitSource,
	"sources[].git.ref": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		old := repo.Commit("one", map[string]string{"first/SKILL.md": skillstest.SkillMD("first", "first")})
		repo.Tag("v1", old)
		repo.Commit("two", map[string]string{"second/SKILL.md": skillstest.SkillMD("second", "second")})
		if n := a.startSources(t, "sources: [{git: {url: "+repo.URL()+", ref: v1}}]", nil).count(t); n != 1 {
			t.Errorf("ref v1: %d skills, want the 1 of the tag", n)
		}
	},
	"sources[].git.path": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"top/SKILL.md": skillstest.SkillMD("top", "top"), "sub/inner/SKILL.md": skillstest.SkillMD("inner", "inner")})
		s := a.startSources(t, "sources: [{git: {url: "+repo.URL()+", path: sub}}]", nil)
		if s.count(t) != 1 || s.skill(t, "inner") == nil {
			t.Errorf("path sub: %d skills, want inner only", s.count(t))
		}
	},
	"sources[].git.token_env": func(t *testing.T, a *audit) {
		var mu sync.Mutex
		var seen []string
		git := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			http.Error(w, "no", http.StatusUnauthorized)
		}))
		t.Cleanup(git.Close)
		a.startSources(t, "sources: [{git: {url: "+git.URL+"/org/skills.git, token_env: AUDIT_GIT_TOKEN}}]", map[string]string{"AUDIT_GIT_TOKEN": "git-secret"})
		mu.Lock()
		defer mu.Unlock()
		found := false
		for _, h := range seen {
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic ")); err == nil && strings.Contains(string(raw), "git-secret") {
				found = true
			}
		}
		if !found {
			t.Errorf("the git server never got the token of AUDIT_GIT_TOKEN; Authorization headers: %q", seen)
		}
	},
	"sources[].git.trusted": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{
			"runner/SKILL.md":      "---\nname: runner\ndescription: runs\nscripts:\n  - file: scripts/hi.sh\n    execution: server\n---\nRun.\n",
			"runner/scripts/hi.sh": "echo hi\n",
		})
		run := func(s *running) error {
			_, err := skillsv1.NewScriptServiceClient(s.conn).RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "runner", File: "scripts/hi.sh"})
			return err
		}
		if err := run(a.startSources(t, "sources: [{git: {url: "+repo.URL()+"}}]", nil)); err == nil {
			t.Fatal("default: a script of an untrusted git source ran")
		}
		if err := run(a.startSources(t, "sources: [{git: {url: "+repo.URL()+", trusted: true}}]", nil)); err != nil {
			t.Errorf("trusted: %v", err)
		}
	},
	"content.skills_repo": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"skills/repo-skill/SKILL.md": skillstest.SkillMD("repo-skill", "from the skills repository")})
		if a.startSources(t, "content: {skills_repo: "+repo.URL()+"}", nil).skill(t, "repo-skill") == nil {
			t.Error("no skill from content.skills_repo")
		}
	},
	"content.skills_branch": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		c := repo.Commit("one", map[string]string{"skills/dev-skill/SKILL.md": skillstest.SkillMD("dev-skill", "on dev")})
		repo.Branch("dev", c)
		repo.Commit("two", map[string]string{"skills/dev-skill/SKILL.md": "", "skills/main-skill/SKILL.md": skillstest.SkillMD("main-skill", "on main")})
		if a.startSources(t, "content: {skills_repo: "+repo.URL()+", skills_branch: dev}", nil).skill(t, "dev-skill") == nil {
			t.Error("no skill of branch dev")
		}
	},
	"content.skills_path": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"catalog/deep-skill/SKILL.md": skillstest.SkillMD("deep-skill", "under catalog")})
		if a.startSources(t, "content: {skills_repo: "+repo.URL()+", skills_path: catalog}", nil).skill(t, "deep-skill") == nil {
			t.Error("no skill under content.skills_path")
		}
	},
	"content.agents_repo": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"agents/planner.md": "---\nname: planner\ndescription: Plans\n---\n"})
		a.start(t, "content: {agents_repo: "+repo.URL()+"}").wantAgent(t, "planner")
	},
	"content.agents_branch": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		c := repo.Commit("one", map[string]string{"agents/branch-agent.md": "---\nname: branch-agent\n---\n"})
		repo.Branch("agents", c)
		repo.Commit("two", map[string]string{"agents/branch-agent.md": ""})
		a.start(t, "content: {agents_repo: "+repo.URL()+", agents_branch: agents}").wantAgent(t, "branch-agent")
	},
	"content.agents_path": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"team/people/reviewer.md": "---\nname: reviewer\n---\n"})
		a.start(t, "content: {agents_repo: "+repo.URL()+", agents_path: team/people}").wantAgent(t, "reviewer")
	},
	"content.docs_repo": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"docs/setup.md": "# Setup\n"})
		a.start(t, "content: {docs_repo: "+repo.URL()+"}").wantDoc(t, "setup")
	},
	"content.docs_branch": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		c := repo.Commit("one", map[string]string{"docs/branch-doc.md": "# On a branch\n"})
		repo.Branch("site", c)
		repo.Commit("two", map[string]string{"docs/branch-doc.md": ""})
		a.start(t, "content: {docs_repo: "+repo.URL()+", docs_branch: site}").wantDoc(t, "branch-doc")
	},
	"content.docs_path": func(t *testing.T, a *audit) {
		repo := skillstest.NewGitRepo(t)
		repo.Commit("one", map[string]string{"site/content/guide.md": "# Guide\n"})
		a.start(t, "content: {docs_repo: "+repo.URL()+", docs_path: site/content}").wantDoc(t, "guide")
	},
	"content.agents_dir": func(t *testing.T, a *audit) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "local-agent.md"), "---\nname: local-agent\n---\n")
		a.start(t, "content: {agents_dir: "+dir+"}").wantAgent(t, "local-agent")
	},
	"content.docs_dir": func(t *testing.T, a *audit) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "local-doc.md"), "# Local\n")
		a.start(t, "content: {docs_dir: "+dir+"}").wantDoc(t, "local-doc")
	},
}

// auditGitSource: a git source serves the skills of its repository.
func auditGitSource(t *testing.T, a *audit) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"git-skill/SKILL.md": skillstest.SkillMD("git-skill", "from git")})
	if s := a.startSources(t, "sources: [{git: {url: "+repo.URL()+"}}]", nil); s.skill(t, "git-skill") == nil {
		t.Error("no skill from the repository")
	}
}

// auditSemanticOrder: with semantic search on, setting is (a key of
// embedding) changes the order of the hits of one of queries (restated as
// given) compared with the default.
func auditSemanticOrder(t *testing.T, a *audit, setting string, restated []string, queries ...string) {
	fake := embedtest.NewServer(t)
	base := "embedding: {provider: openai, base_url: " + fake.BaseURL()
	def, set := a.start(t, base+"}\nmatching: {strategy: ranked}"), a.start(t, base+", "+setting+"}\nmatching: {strategy: ranked}")
	def.waitEmbedded(t)
	set.waitEmbedded(t)
	order := func(s *running, q string) []string {
		resp, err := skillsv1.NewRoutingServiceClient(s.conn).SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: q, Restated: restated})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range resp.GetResults() {
			out = append(out, h.GetSkillPath())
		}
		return out
	}
	for _, q := range queries {
		if !slices.Equal(order(def, q), order(set, q)) {
			return
		}
	}
	t.Errorf("embedding %s changed the order of no query of %q", setting, queries)
}

// TestConfigAudit runs configAudit over every key of config.Config.
func TestConfigAudit(t *testing.T) {
	keys := configKeys(reflect.TypeFor[config.Config](), "")
	a := &audit{dir: auditCatalog(t)}
	for _, key := range keys {
		check, ok := configAudit[key]
		if !ok {
			check, ok = securityAudit[key]
		}
		if !ok {
			t.Errorf("config key %s has no case in configAudit (audit_test.go): add one that proves what it changes", key)
			continue
		}
		t.Run(key, func(t *testing.T) {
			// Each case starts its own servers in its own folders: they
			// run side by side (most of their time is spent waiting on
			// scripts and start-up, not computing).
			t.Parallel()
			check(t, a)
		})
	}
	for key := range securityAudit {
		if !slices.Contains(keys, key) {
			t.Errorf("securityAudit has a case for %s, which is not a key of config.Config", key)
		}
	}
	for key := range configAudit {
		if !slices.Contains(keys, key) {
			t.Errorf("configAudit has a case for %s, which is not a key of config.Config", key)
		}
	}
}

// TestRetiredKeysAreRefused: a seed key skillsd does not read is an error
// with advice, except at the seed's own default (which changes nothing).
func TestRetiredKeysAreRefused(t *testing.T) {
	a := &audit{dir: auditCatalog(t)}
	_, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{a.dir}, ConfigFile: writeConfig(t, "assets: {inline_text_max_bytes: 2048}\n"), Cwd: t.TempDir(), Home: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "assets.inline_text_max_bytes") || !strings.Contains(err.Error(), "max_file_bytes") {
		t.Errorf("inline_text_max_bytes 2048: %v, want an error naming the key and what to use", err)
	}
	a.start(t, "assets: {inline_text_max_bytes: 10240}") // seed 000's default loads
}

// configKeys lists the leaf keys of a Config type: "matching.min_score",
// "sources[].git.url", and the list and section keys whose elements are not
// sections ("scripts.runners", "sources").
func configKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
			out = append(out, key) // an optional section: setting it is a case
		}
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, configKeys(ft, key)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, key)
			out = append(out, configKeys(ft.Elem(), key+"[]")...)
		default:
			out = append(out, key)
		}
	}
	return out
}

// audit is what the cases share: the fixture catalog.
type audit struct {
	dir string
}

// running is a service started with a configuration.
type running struct {
	srv   *skillsd.Server
	conn  *grpc.ClientConn // trusted, in process
	logs  *syncBuffer
	level *slog.LevelVar
	opts  skillsd.Options
}

// waitEmbedded waits until the service has the skills' vectors: it logs
// "skills embedded" once they are published, after the provider answered
// (the provider having had the texts is not enough: a search made between
// the two is lexical, which a test of semantic search must not see).
func (r *running) waitEmbedded(t *testing.T) {
	t.Helper()
	waitUntil(t, "the skills embedded", func() bool { return strings.Contains(r.logs.String(), `msg="skills embedded"`) })
}

// start runs the service on the fixture catalog with yaml as config.yaml
// ("" is no file: the defaults).
func (a *audit) start(t *testing.T, yaml string) *running {
	return a.startEnv(t, yaml, nil)
}

// startEnv is start with environment variables (PATH and a state folder
// are always there).
func (a *audit) startEnv(t *testing.T, yaml string, env map[string]string) *running {
	return a.run(t, []string{a.dir}, yaml, env)
}

// startSources runs the service on the sources of yaml (no folder given).
func (a *audit) startSources(t *testing.T, yaml string, env map[string]string) *running {
	return a.run(t, nil, yaml, env)
}

func (a *audit) run(t *testing.T, dirs []string, yaml string, env map[string]string) *running {
	t.Helper()
	vars := map[string]string{"PATH": os.Getenv("PATH"), "SKILLSD_HOME": t.TempDir(), "OPENAI_API_KEY": "sk-audit"}
	for k, v := range env {
		vars[k] = v
	}
	r := &running{logs: &syncBuffer{}, level: new(slog.LevelVar)}
	r.opts = skillsd.Options{
		SkillsDirs: dirs, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true,
		Getenv:   func(k string) string { return vars[k] },
		Logger:   slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		LogLevel: r.level,
	}
	if yaml != "" {
		r.opts.ConfigFile = writeConfig(t, yaml+"\n")
	}
	srv, err := skillsd.New(t.Context(), r.opts)
	if err != nil {
		t.Fatalf("New with %q: %v", yaml, err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := srv.WaitReady(t.Context()); err != nil { // a first clone loads in the background
		t.Fatal(err)
	}
	conn, err := srv.DialTrusted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r.srv, r.conn = srv, conn
	return r
}

func (r *running) match(t *testing.T, task string) *skillsv1.MatchSkillResponse {
	t.Helper()
	resp, err := skillsv1.NewRoutingServiceClient(r.conn).MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: task})
	if err != nil {
		t.Fatalf("MatchSkill(%q): %v", task, err)
	}
	return resp
}

// search returns the paths of the hits.
func (r *running) search(t *testing.T, q string) []string {
	t.Helper()
	resp, err := skillsv1.NewRoutingServiceClient(r.conn).SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: q})
	if err != nil {
		t.Fatalf("SearchSkills(%q): %v", q, err)
	}
	var out []string
	for _, h := range resp.GetResults() {
		out = append(out, h.GetSkillPath())
	}
	return out
}

func (r *running) count(t *testing.T) int {
	t.Helper()
	resp, err := skillsv1.NewCatalogServiceClient(r.conn).ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return int(resp.GetTotalSize())
}

// skill returns the skill, or nil when there is none.
func (r *running) skill(t *testing.T, ref string) *skillsv1.GetSkillResponse {
	t.Helper()
	resp, err := skillsv1.NewCatalogServiceClient(r.conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: ref})
	if status.Code(err) == codes.NotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (r *running) script(t *testing.T, file, cwd string) (*skillsv1.RunScriptResponse, error) {
	return skillsv1.NewScriptServiceClient(r.conn).RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "pdf", File: "scripts/" + file, Cwd: cwd})
}

func (r *running) scriptArgs(t *testing.T, file string, args map[string]string) (*skillsv1.RunScriptResponse, error) {
	return skillsv1.NewScriptServiceClient(r.conn).RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "pdf", File: "scripts/" + file, Args: args})
}

func (r *running) status(t *testing.T) *skillsv1.GetCatalogStatusResponse {
	t.Helper()
	st, err := skillsv1.NewCatalogServiceClient(r.conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// needIsolation skips the case where this kernel lacks the protection the
// key's effect goes through (the status says so).
func (r *running) needIsolation(t *testing.T, protection string) {
	t.Helper()
	if iso := r.status(t).GetScriptIsolation(); !slices.Contains(iso.GetInForce(), protection) {
		t.Skipf("%s is not in force here: %v", protection, iso.GetDetail())
	}
}

func (r *running) command(t *testing.T, cmd string, args ...string) (*skillsv1.RunCommandResponse, error) {
	return skillsv1.NewScriptServiceClient(r.conn).RunCommand(t.Context(), &skillsv1.RunCommandRequest{SkillPath: "pdf", Command: cmd, Args: args})
}

func (r *running) read(t *testing.T, file string) (*skillsv1.ReadSkillFileResponse, error) {
	return skillsv1.NewFileServiceClient(r.conn).ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: "pdf", File: file})
}

func (r *running) feedback(t *testing.T, comment string) *skillsv1.ReportUsageResponse {
	t.Helper()
	resp, err := skillsv1.NewUsageServiceClient(r.conn).ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "pdf", Useful: true, Comment: comment})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func (r *running) wantAgent(t *testing.T, name string) {
	t.Helper()
	if _, err := skillsv1.NewContentServiceClient(r.conn).GetAgent(t.Context(), &skillsv1.GetAgentRequest{Name: name}); err != nil {
		t.Errorf("GetAgent(%s): %v", name, err)
	}
}

func (r *running) wantDoc(t *testing.T, path string) {
	t.Helper()
	if _, err := skillsv1.NewContentServiceClient(r.conn).GetDoc(t.Context(), &skillsv1.GetDocRequest{Path: []string{path}}); err != nil {
		t.Errorf("GetDoc(%s): %v", path, err)
	}
}

// served is the service on a loopback listener, and a client connection.
type served struct{ conn *grpc.ClientConn }

// serve serves r on 127.0.0.1 (TLS when tlsCfg is set) and connects.
func (r *running) serve(t *testing.T, tlsCfg *credentials.TransportCredentials) served {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.srv.Serve(t.Context(), lis) }()
	creds := insecure.NewCredentials()
	if tlsCfg != nil {
		creds = *tlsCfg
	}
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return served{conn: conn}
}

// list calls ListSkills with an Authorization value ("" for none).
func (s served) list(t *testing.T, authorization string) error {
	ctx := t.Context()
	if authorization != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", authorization)
	}
	_, err := skillsv1.NewCatalogServiceClient(s.conn).ListSkills(ctx, &skillsv1.ListSkillsRequest{})
	return err
}

// checkTLS serves with tls.cert_file and tls.key_file (and, with mutual,
// tls.client_ca_file): a client trusting the CA gets answers, a plaintext
// one does not; with mutual TLS, a client without a certificate does not.
func (a *audit) checkTLS(t *testing.T, mutual bool) {
	ca := skillstest.NewCA(t, "audit")
	pair, client := ca.Server("skillsd"), ca.Client("client")
	yaml := fmt.Sprintf("tls: {cert_file: %s, key_file: %s", pair.CertFile, pair.KeyFile)
	if mutual {
		yaml += ", client_ca_file: " + ca.File
	}
	s := a.start(t, yaml+"}")
	trust := func(withCert bool) *credentials.TransportCredentials {
		cfgTLS := skillstestTLS(t, ca.File)
		if withCert {
			pairTLS, err := tlsPair(client)
			if err != nil {
				t.Fatal(err)
			}
			cfgTLS.Certificates = append(cfgTLS.Certificates, pairTLS)
		}
		c := credentials.NewTLS(cfgTLS)
		return &c
	}
	if err := s.serve(t, trust(true)).list(t, ""); err != nil {
		t.Errorf("a client trusting the CA: %v", err)
	}
	if err := s.serve(t, nil).list(t, ""); err == nil {
		t.Error("a plaintext client got an answer from a TLS listener")
	}
	if mutual {
		if err := s.serve(t, trust(false)).list(t, ""); err == nil {
			t.Error("a client without a certificate got an answer under mutual TLS")
		}
	}
}

// ghReaderToken is the token fakeGitHubAPI lets read its repository.
const ghReaderToken = "ghp_AuditReaderAuditReaderAuditReaderA01"

// fakeGitHubAPI answers GET /repos/{repo} the way GitHub does: readable
// with ghReaderToken, 404 otherwise.
func fakeGitHubAPI(t *testing.T, repo string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/repos/"+repo && r.Header.Get("Authorization") == "Bearer "+ghReaderToken {
			_, _ = io.WriteString(w, `{"full_name":"`+repo+`","permissions":{"pull":true}}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"message":"Not Found"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// collector receives analytics batches.
type collector struct {
	*httptest.Server
	mu  sync.Mutex
	got []map[string]any
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Events []map[string]any `json:"events"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || len(body.Events) == 0 {
			var list []map[string]any // a bare array of events
			_ = json.Unmarshal(raw, &list)
			body.Events = list
		}
		c.mu.Lock()
		c.got = append(c.got, body.Events...)
		c.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *collector) events() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.got...)
}

// waitUntil polls cond for up to 10 s (a bound for a loaded machine, not a
// measure).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not so after 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// auditCatalog writes the fixture catalog: pdf (documents, with scripts
// and files), slides and sheets (office).
func auditCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := func(name string) string { return "  - file: scripts/" + name + "\n    execution: server\n" }
	files := map[string]string{
		"pdf/SKILL.md": "---\nname: pdf\ndescription: Extract text and tables from PDF documents.\ncategory: documents\nkeywords: [pdf, extract, text, documents, office]\nscripts:\n" +
			script("hello.sh") + script("slow.sh") + script("loud.sh") + script("shell.sh") + script("where.sh") +
			script("peek.sh") + "    args: [{name: target}]\n" + script("dial.sh") + "    network: true\n    args: [{name: port}]\n" +
			"---\n# PDF\n\nUse pdftotext.\n",
		"pdf/scripts/hello.sh": "echo hello\n",
		"pdf/scripts/slow.sh":  "sleep 3\necho done\n",
		"pdf/scripts/loud.sh":  "printf '%0200d' 0\n",
		"pdf/scripts/shell.sh": "echo \"bash=${BASH_VERSION:-none}\"\n",
		"pdf/scripts/where.sh": "pwd\n",
		"pdf/scripts/peek.sh":  "cat \"$SKILL_ARG_TARGET\"\n",
		"pdf/scripts/dial.sh":  "exec 3<>/dev/tcp/127.0.0.1/$SKILL_ARG_PORT && echo connected\n",
		"pdf/notes.txt":        strings.Repeat("notes 123\n", 400),
		"slides/SKILL.md":      "---\nname: slides\ndescription: Build slide decks and presentations.\ncategory: office\nkeywords: [slides, deck, presentation, office]\n---\n# Slides\n",
		"sheets/SKILL.md":      "---\nname: sheets\ndescription: Edit spreadsheets, tables and formulas.\ncategory: office\nkeywords: [sheets, spreadsheet, formulas, office]\n---\n# Sheets\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	blob := make([]byte, 4096)
	for i := range blob {
		blob[i] = byte(i % 7) // NUL bytes: binary
	}
	if err := os.MkdirAll(filepath.Join(dir, "pdf", "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "assets", "blob.bin"), blob, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// skillstestTLS trusts the CA of caFile.
func skillstestTLS(t *testing.T, caFile string) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

func tlsPair(p skillstest.Pair) (tls.Certificate, error) {
	return tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
}

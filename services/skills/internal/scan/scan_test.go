package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func fixtureNamed(t *testing.T, name string) fixture {
	t.Helper()
	for _, f := range append(append([]fixture(nil), malicious...), benign...) {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture{}
}

func hasRule(fs []Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// TestCacheFile: scans kept in the cache file are reused by the next
// scanner with the same rules (even when the files are gone), and ignored by
// one with other rules or when the file is damaged.
func TestCacheFile(t *testing.T) {
	dir := t.TempDir()
	cacheFile := filepath.Join(dir, "state", CacheFileName())
	sk := writeFixture(t, dir, fixtureNamed(t, "curl-bash"))
	sk.Digest = "sha256:" + strings.Repeat("ab", 32)

	s1, err := New(Options{CacheFile: cacheFile})
	if err != nil {
		t.Fatal(err)
	}
	first := s1.Scan(t.Context(), sk)
	if !hasRule(first, "script.pipe-to-shell") {
		t.Fatalf("no pipe-to-shell finding: %s", dump(first))
	}
	if err := s1.Flush(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(cacheFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v, %v", fi, err)
	}
	// The files are gone: only the cache can answer.
	if err := os.RemoveAll(sk.Dir); err != nil {
		t.Fatal(err)
	}
	s2, err := New(Options{CacheFile: cacheFile})
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.Scan(t.Context(), sk); len(got) != len(first) || !hasRule(got, "script.pipe-to-shell") {
		t.Errorf("second scanner: got %s, want the cached %s", dump(got), dump(first))
	}

	// Other rules: the cache does not apply.
	extra := filepath.Join(dir, "company.rules")
	writeFile(t, extra, companyRules)
	s3, err := New(Options{CacheFile: cacheFile, RuleFiles: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s3.Scan(t.Context(), sk); hasRule(got, "script.pipe-to-shell") {
		t.Errorf("a scanner with other rules reused the cache: %s", dump(got))
	}

	// A damaged file is ignored.
	writeFile(t, cacheFile, "{not json\n")
	s4, err := New(Options{CacheFile: cacheFile})
	if err != nil {
		t.Fatal(err)
	}
	if got := s4.Scan(t.Context(), sk); hasRule(got, "script.pipe-to-shell") {
		t.Errorf("a damaged cache answered: %s", dump(got))
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const companyRules = `# Acme's own rules.
rule acme.internal-host
title talks to the old build server
family acme
severity high
owasp AST02
in code instructions
match (?i)\bbuild-legacy\.acme\.internal\b
message the legacy build server is being retired; use builds.acme.example instead
example curl https://build-legacy.acme.internal/api
counter curl https://builds.acme.example/api
`

// TestCompanyRules: a rule file added with RuleFiles flags what it says.
func TestCompanyRules(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "acme.rules")
	writeFile(t, file, companyRules)
	s, err := New(Options{RuleFiles: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	got := s.ScanText(t.Context(), KindCode, "wget -q https://build-legacy.acme.internal/x\n")
	if !hasRule(got, "acme.internal-host") {
		t.Errorf("company rule did not flag: %s", dump(got))
	}
}

// TestBadRuleFiles: a broken rule file stops New with the file and line.
func TestBadRuleFiles(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown key", "rule a.b\ncolour red\n", "x.rules:2: unknown key \"colour\""},
		{"bad id", "rule Bad Id\n", "x.rules:1: rule id"},
		{"bad regexp", "rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\nmatch (unclosed\n", "x.rules:6: pattern"},
		{"no example", "rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\nmatch abc\n", "needs at least one example"},
		{"example not flagged", "rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\nmatch abcdef\nexample xyz\ncounter qqq\n", "x.rules:7: rule a.b does not flag its example"},
		{"counter flagged", "rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\nmatch abcdef\nexample abcdef\ncounter abcdefg\n", "x.rules:8: rule a.b flags its counter-example"},
		{"duplicate id", "rule script.eicar\ntitle t\n", "already defined"},
		{"unknown check", "rule a.b\ncheck nope\n", "unknown check"},
		{"bad severity", "rule a.b\nseverity urgent\n", "severity \"urgent\""},
		{"huge repeat", "rule a.b\nmatch (?:a{1000}){1000}\n", ""},
		{"no match or check", "rule a.b\ntitle t\nfamily f\nseverity high\nmessage m\n", "neither match nor check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "x.rules")
			writeFile(t, file, c.text)
			_, err := New(Options{RuleFiles: []string{file}})
			if err == nil {
				t.Fatalf("New accepted the file")
			}
			if c.want != "" && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
	if _, err := New(Options{RuleFiles: []string{"/nonexistent/x.rules"}}); err == nil || !strings.Contains(err.Error(), "security.rules") {
		t.Errorf("missing rule file: %v", err)
	}
}

// TestPolicy: the quarantine threshold, reviewers' acceptances, and an
// acceptance pinned to a digest that no longer matches.
func TestPolicy(t *testing.T) {
	s := newTestScanner(t)
	dir := t.TempDir()
	sk := writeFixture(t, dir, fixtureNamed(t, "wipe-home")) // script.destructive, critical
	sk.Digest = "sha256:" + strings.Repeat("01", 32)
	findings := s.Scan(t.Context(), sk)
	old := "sha256:" + strings.Repeat("02", 32)

	cases := []struct {
		name        string
		policy      Policy
		quarantined bool
		stale       bool
	}{
		{"default quarantines critical", Policy{}, true, false},
		{"off", Policy{Quarantine: Off}, false, false},
		{"high", Policy{Quarantine: High}, true, false},
		{"rule allowed for the skill", Policy{Allow: []Allow{{Rule: "script.destructive", Skill: "wipe-home", Reason: "reviewed"}}}, false, false},
		{"skill allowed at its digest", Policy{Allow: []Allow{{Skill: "WIPE-HOME", Digest: sk.Digest, Reason: "reviewed"}}}, false, false},
		{"skill allowed at another digest", Policy{Allow: []Allow{{Skill: "wipe-home", Digest: old, Reason: "reviewed"}}}, true, true},
		{"other skill allowed", Policy{Allow: []Allow{{Skill: "other", Reason: "reviewed"}}}, true, false},
		{"rule allowed everywhere", Policy{Allow: []Allow{{Rule: "script.destructive", Reason: "we accept it"}}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := c.policy.Apply(sk, findings)
			if v.Quarantined != c.quarantined {
				t.Errorf("quarantined %v, want %v (max %s)", v.Quarantined, c.quarantined, v.Max)
			}
			if (len(v.Stale) > 0) != c.stale {
				t.Errorf("stale %q, want %v", v.Stale, c.stale)
			}
		})
	}
}

// TestPolicyValidation: bad security.allow entries stop New with the key.
func TestPolicyValidation(t *testing.T) {
	cases := []struct {
		allow Allow
		want  string
	}{
		{Allow{Rule: "script.eicar"}, "security.allow[0]: a reason is required"},
		{Allow{Reason: "r"}, "give a rule, a skill, or both"},
		{Allow{Rule: "script.nope", Reason: "r"}, `security.allow[0].rule: no rule has the id "script.nope"`},
		{Allow{Skill: "x", Digest: "md5:1", Reason: "r"}, "security.allow[0].digest"},
		{Allow{Rule: "script.eicar", Digest: "sha256:" + strings.Repeat("0", 64), Reason: "r"}, "give the skill too"},
	}
	for _, c := range cases {
		_, err := New(Options{Policy: Policy{Allow: []Allow{c.allow}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.allow, err, c.want)
		}
	}
}

// TestHostileInput: huge, binary, deeply nested and malformed texts cost
// little and never panic.
func TestHostileInput(t *testing.T) {
	s := newTestScanner(t)
	inputs := []string{
		strings.Repeat("A", 1<<20),
		strings.Repeat("<!--", 10000),
		strings.Repeat("<details>", 10000),
		strings.Repeat("\\x41", 100000),
		strings.Repeat("\u202e", 10000),
		strings.Repeat("chr(65)+", 20000),
		strings.Repeat("\"a\" + ", 50000),
		"\xff\xfe\x00binary",
		strings.Repeat("aGVsbG8gd29ybGQ=", 50000),
	}
	for _, in := range inputs {
		for _, k := range []Kind{KindInstructions, KindCode, KindData} {
			s.ScanText(t.Context(), k, in)
		}
	}
}

// TestCached: Cached answers only what was scanned, at the same content and
// path, with the policy applied as Check applies it.
func TestCached(t *testing.T) {
	dir := t.TempDir()
	sk := writeFixture(t, dir, fixtureNamed(t, "curl-bash"))
	sk.Digest = "sha256:" + strings.Repeat("cd", 32)
	s, err := New(Options{Policy: Policy{Quarantine: High}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Cached(sk); ok {
		t.Fatal("Cached answered a skill never scanned")
	}
	want := s.Check(t.Context(), sk)
	got, ok := s.Cached(sk)
	if !ok {
		t.Fatal("Cached did not answer a skill just scanned")
	}
	if got.Quarantined != want.Quarantined || got.Max != want.Max || len(got.Findings) != len(want.Findings) {
		t.Errorf("Cached: got quarantined %v max %v %d findings, want %v %v %d", got.Quarantined, got.Max, len(got.Findings),
			want.Quarantined, want.Max, len(want.Findings))
	}
	if !got.Quarantined {
		t.Errorf("curl-bash at quarantine high: not quarantined (%s)", dump(got.Findings))
	}
	moved := *sk
	moved.Path = "elsewhere"
	if _, ok := s.Cached(&moved); ok {
		t.Error("Cached answered the same content under another path")
	}
	other := *sk
	other.Digest = "sha256:" + strings.Repeat("ef", 32)
	if _, ok := s.Cached(&other); ok {
		t.Error("Cached answered another digest")
	}
	none := *sk
	none.Digest = ""
	if _, ok := s.Cached(&none); ok {
		t.Error("Cached answered a skill without a digest")
	}
}

// TestCacheEpoch: while CacheEpoch stays the same, a skill the cache
// answered is answered again without the cache changing (its entry is in
// the young generation); a turn of the generations, which will drop what
// was not used since, and the load of the cache file change it.
func TestCacheEpoch(t *testing.T) {
	dir := t.TempDir()
	sk := writeFixture(t, dir, fixtureNamed(t, "curl-bash"))
	sk.Digest = "sha256:" + strings.Repeat("cd", 32)
	s, err := New(Options{CacheFile: filepath.Join(dir, "state", CacheFileName())})
	if err != nil {
		t.Fatal(err)
	}
	s.Check(t.Context(), sk) // loads the (missing) file, scans, keeps
	e := s.CacheEpoch()
	key := cacheKey(sk)
	if _, ok := s.cache.young[key]; !ok {
		t.Fatal("a scan just made is not in the young generation")
	}
	// Fill the young generation but one entry: no turn yet.
	for i := len(s.cache.young); i < cacheSize; i++ {
		s.cache.put(fmt.Sprint("filler", i), nil)
	}
	if s.CacheEpoch() != e {
		t.Fatal("the epoch changed without a turn")
	}
	if _, ok := s.Cached(sk); !ok {
		t.Fatal("not answered before the turn")
	}
	if _, ok := s.cache.young[key]; !ok || len(s.cache.young) != cacheSize {
		t.Fatal("Cached of a young entry changed the cache")
	}
	s.cache.put("one more", nil) // the turn: key is old now, dropped at the next
	if s.CacheEpoch() == e {
		t.Fatal("a turn of the cache left its epoch")
	}
	if _, ok := s.cache.young[key]; ok {
		t.Fatal("the test did not turn the cache")
	}

	// Loading the cache file changes it too (a file of one scan: no turn).
	file := filepath.Join(dir, "other", CacheFileName())
	s1, err := New(Options{CacheFile: file})
	if err != nil {
		t.Fatal(err)
	}
	s1.Check(t.Context(), sk)
	if err := s1.Flush(); err != nil {
		t.Fatal(err)
	}
	s2, err := New(Options{CacheFile: file})
	if err != nil {
		t.Fatal(err)
	}
	e2 := s2.CacheEpoch()
	if _, ok := s2.Cached(sk); !ok {
		t.Fatal("the second scanner did not load the scan")
	}
	if s2.CacheEpoch() == e2 {
		t.Error("loading the cache file left the epoch")
	}
}

// cacheEntries makes n cache entries shaped like a catalog's: a digest and
// paths for a key, most without findings, one in eight with two.
func cacheEntries(n int) map[string][]Finding {
	out := make(map[string][]Finding, n)
	for i := range n {
		dir := fmt.Sprintf("copy0/owner%03d__repo/skill-%04d", i%50, i)
		key := fmt.Sprintf("sha256:%064x\x00%s\x00%s/SKILL.md\x00%s\x00skill-%04d", i, dir, dir, dir, i)
		var fs []Finding
		if i%8 == 0 {
			fs = []Finding{
				{Rule: "script.pipe-to-shell", Severity: High, File: dir + "/scripts/install.sh", Line: 12, Message: "Pipes a download into a shell: review the script before running it."},
				{Rule: "instructions.hidden-text", Severity: Medium, File: dir + "/SKILL.md", Line: 3, Message: "Hidden text in the instructions."},
			}
		} else {
			fs = []Finding{}
		}
		out[key] = fs
	}
	return out
}

// BenchmarkCacheLoad reads back the scan cache file of 400 and 3,000
// skills, as a warm start does (Preload).
func BenchmarkCacheLoad(b *testing.B) {
	for _, n := range []int{400, 3000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), CacheFileName())
			s, err := New(Options{CacheFile: file})
			if err != nil {
				b.Fatal(err)
			}
			for k, v := range cacheEntries(n) {
				s.cache.put(k, v)
			}
			if err := s.Flush(); err != nil {
				b.Fatal(err)
			}
			info, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(info.Size()), "file-bytes")
			b.ReportAllocs()
			for b.Loop() {
				r, err := New(Options{CacheFile: file})
				if err != nil {
					b.Fatal(err)
				}
				r.Preload()
				if len(r.cache.young) != n {
					b.Fatalf("loaded %d of %d scans", len(r.cache.young), n)
				}
			}
		})
	}
}

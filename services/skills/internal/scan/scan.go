// Package scan inspects a skill before it is served: its instructions, its
// scripts and its other files, for hidden content (invisible characters,
// look-alike names, text a reader of the rendered page does not see),
// instruction attacks (overriding the agent's instructions, impersonating the
// system, hiding actions from the user, persistence, pre-approved tools),
// dangerous scripts (remote code piped to a shell, encoded payloads, reads of
// credential stores, exfiltration, destruction) and metadata that does not
// match what the skill does. Findings carry a rule id, a severity, a file and
// a line, and a message a reviewer can act on.
//
// Rules are data: the built-in rule files (rules/*.rules, embedded) and a
// company's own, in the format described in rules.go, each rule carrying the
// examples it must and must not flag, checked when it is loaded. Patterns are
// Go regular expressions (linear time) run over normalised text and over what
// base64, hex, escapes and other encodings hide, behind an Aho-Corasick
// prefilter so that scanning costs a fraction of a catalog build.
//
// The Policy decides what a finding means: a skill with a finding at or above
// the quarantine severity is quarantined (the caller does not serve it),
// unless a reviewer accepted it (security.allow), optionally at a content
// digest so that a later change is reviewed again.
//
// It does not walk folders, decide which files belong to a skill (package
// catalog hands it the skill), serve or hide skills (package server), or
// verify git signatures (package gitsync). It reads files only through the
// Open function it is given.
package scan

import (
	"cmp"
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"
)

// Finding is one problem found in a skill.
type Finding struct {
	// Rule is the id of the rule that found it ("script.pipe-to-shell").
	Rule     string
	Severity Severity
	// File is the file's path relative to the source root, '/' separated
	// (the skill file for findings about the skill as a whole).
	File string
	// Line is the 1-based line; 0 when the finding is about the whole file.
	Line int
	// Message says what was found and what to do about it.
	Message string
	// Allowed says a reviewer accepted the finding (security.allow), with
	// AllowReason their reason.
	Allowed     bool
	AllowReason string
}

// Skill is what the scanner needs to know about one skill.
type Skill struct {
	// Path is the catalog path; Name the skill's name; Folder the name of the
	// skill's folder ("" for a seed-000 file skill).
	Path, Name, Folder string
	Description        string
	// AllowedTools is the allowed-tools field.
	AllowedTools []string
	// Scripts are the files the frontmatter declares as scripts (seed 000),
	// relative to Dir.
	Scripts []string
	// KeyLines maps frontmatter keys to their lines in the skill file.
	KeyLines map[string]int
	// SkillFile is the skill file relative to the source root; SkillAbs its
	// absolute path; SkillData its content (nil: read from SkillAbs).
	SkillFile string
	SkillAbs  string
	SkillData []byte
	// Dir is the skill's folder (absolute; "" when it has none), DirRel the
	// same relative to the source root ("" for the root itself).
	Dir, DirRel string
	// Files are the companion files, relative to Dir.
	Files []File
	// Digest identifies the skill's content (skill file and companion
	// files); scans are cached under it. Empty: not cached.
	Digest string
}

// File is one companion file of a skill.
type File struct {
	// Path is relative to the skill's folder, '/' separated.
	Path string
	Size int64
	// Text is false for binary files.
	Text bool
	// Data, when not nil, is the file's content as the caller read it: at
	// least MaxFileBytes+1 bytes of a text file when it has them (what is
	// beyond MaxFileBytes is not scanned), at least its first 512 bytes for
	// a binary file. Nil: the scanner reads the file through Options.Open.
	Data []byte
}

// Options configure a Scanner. The zero value uses the built-in rules, the
// default Policy (quarantine at critical, nothing allowed) and os.Open.
type Options struct {
	// RuleFiles are rule files added to the built-in ones (security.rules).
	RuleFiles []string
	// Policy decides what findings mean.
	Policy Policy
	// Open opens a file for reading; nil means OpenResolved (the service's
	// confined opener).
	Open func(name string) (io.ReadCloser, error)
	// CacheFile, when set, keeps scans across restarts: New reads it, Flush
	// writes it (normally <state folder>/scan-cache-N.jsonl). Scans made
	// with other rules or another engine version are not reused.
	CacheFile string
	// MaxFileBytes is how much of each file is scanned; 0 means
	// DefaultMaxFileBytes. A larger file gets a finding saying its end was
	// not scanned.
	MaxFileBytes int64
}

// OpenResolved opens a file the catalog listed (its path already resolved)
// with the service's confined opener, which never blocks on a FIFO.
func OpenResolved(name string) (io.ReadCloser, error) {
	f, err := confine.OpenResolved(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// DefaultMaxFileBytes is how much of a file is scanned by default.
const DefaultMaxFileBytes = 2 << 20

// Bounds on what one scan reports.
const (
	maxPerRuleFile = 8
	maxPerSkill    = 200
)

//go:embed rules/*.rules
var builtin embed.FS

// builtinPrefix names the embedded rule files in errors and Rule.File.
const builtinPrefix = "builtin:"

// Scanner scans skills. It is safe for concurrent use.
type Scanner struct {
	// engine is the compiled rules, shared by the Scanners of the process
	// that load only the built-in ones.
	*engine
	policy Policy
	open   func(string) (io.ReadCloser, error)
	max    int64

	cache cache
	// cacheFile and rulesPrint: see Options.CacheFile; flushMu serialises
	// Flush.
	cacheFile  string
	rulesPrint string
	flushMu    sync.Mutex
	// cacheOnce reads the cache file on first use (cacheLoaded), not in
	// New: a server makes its scanner when it starts and looks up its
	// first scans later, in the background.
	cacheOnce sync.Once
}

// engine is a set of rules in its compiled form, never changed once built:
// the rules, the prefilters of their patterns and the automaton over the
// prefilters' atoms.
type engine struct {
	// names and sources are the rule files' names (as findings and errors
	// name them) and contents, in load order; sources are the cache's
	// fingerprint.
	names   []string
	sources [][]byte
	// parseOnce parses the files into set (rules): with rule files in New,
	// whose errors stop the start; with the built-in rules alone, on first
	// use, so that a start whose scans all come from the cache parses none
	// of them (their parse took 1.5-2.5 ms of a warm start's path to its
	// first answer, before the catalog cache was read).
	parseOnce sync.Once
	set       ruleSet
	parseErr  error

	// compileOnce guards compile: the prefilters and anchors below are
	// made on the first scan (prepare), so that a start whose skills all
	// come from the cache compiles none of them before its first answer.
	compileOnce sync.Once
	// ac is the prefilter over atoms, built on the first scan that needs
	// it (acOnce): a start whose skills all come from the cache builds none.
	acOnce sync.Once
	ac     *automaton
	// ruleAtoms[i] are the prefilters of rule i's match patterns, one per
	// pattern; alsoAtoms likewise for its also patterns.
	ruleAtoms [][]prefilter
	alsoAtoms [][]prefilter
	// anchors[i] are the anchors of rule i's match patterns (nil: none);
	// atoms are the automaton's strings, by id.
	anchors [][]*anchor
	atoms   []string
}

// builtinEngine is the engine of the built-in rules alone, made once per
// process: a server that makes a new Scanner when its configuration changes
// (and a test binary that starts hundreds of servers) reads, parses and
// compiles the embedded rules once.
var builtinEngine struct {
	once sync.Once
	eng  *engine
	err  error
}

// New loads the built-in rules and opts.RuleFiles, and checks every rule of
// the rule files against its examples; an error names the file and line at
// fault. With no rule files, the built-in rules are parsed on first use.
func New(opts Options) (*Scanner, error) {
	s := &Scanner{policy: opts.Policy, open: opts.Open, max: opts.MaxFileBytes, cacheFile: opts.CacheFile}
	if s.open == nil {
		s.open = OpenResolved
	}
	defaults.Set(&s.max, DefaultMaxFileBytes)
	if len(opts.RuleFiles) == 0 {
		builtinEngine.once.Do(func() { builtinEngine.eng, builtinEngine.err = newEngine(nil, nil) })
		if builtinEngine.err != nil {
			return nil, builtinEngine.err
		}
		s.engine = builtinEngine.eng
	} else {
		eng, err := newEngine(opts.RuleFiles, s.open)
		if err != nil {
			return nil, err
		}
		s.engine = eng
		// A company's rules are proven at start: the prefilter must hold
		// their atoms, and selfTest scans their examples. The built-in
		// rules are proven by the package's tests, so without rule files
		// the prefilter waits for the first scan.
		if s.automaton() == nil {
			return nil, errTooManyAtoms(len(s.atoms))
		}
		if err := s.selfTest(); err != nil {
			return nil, err
		}
	}
	if err := opts.Policy.validate(s); err != nil {
		return nil, err
	}
	s.rulesPrint = s.fingerprint(s.sources)
	return s, nil
}

// newEngine reads the built-in rules and the rule files (read with open),
// and parses them when there are rule files (else on first use: rules).
func newEngine(ruleFiles []string, open func(string) (io.ReadCloser, error)) (*engine, error) {
	e := &engine{}
	names, err := fs.Glob(builtin, "rules/*.rules")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	for _, n := range names {
		data, err := builtin.ReadFile(n)
		if err != nil {
			return nil, err
		}
		e.names = append(e.names, builtinPrefix+path.Base(n))
		e.sources = append(e.sources, data)
	}
	for _, f := range ruleFiles {
		data, err := readLimited(open, f, maxRuleFileSize)
		if err != nil {
			return nil, fmt.Errorf("security.rules: %w", err)
		}
		e.names = append(e.names, f)
		e.sources = append(e.sources, data)
	}
	if len(ruleFiles) > 0 {
		e.parseOnce.Do(e.parse)
		if e.parseErr != nil {
			return nil, fmt.Errorf("security.rules: %w", e.parseErr)
		}
	}
	return e, nil
}

// parse parses the rule files into set (once, through parseOnce).
func (e *engine) parse() {
	for i, data := range e.sources {
		if err := parseRules(&e.set, e.names[i], data); err != nil {
			e.parseErr = err
			return
		}
	}
	if e.set.docs.within == 0 {
		e.set.docs.within = 6
	}
}

// rules returns the parsed rules, parsing them on first use. Only the
// built-in rules are parsed here (New parses rule files), and the package's
// tests prove that they parse: an error is a defective build, and stops the
// process rather than scan with no rules.
func (e *engine) rules() *ruleSet {
	e.parseOnce.Do(e.parse)
	if e.parseErr != nil {
		panic("scan: the built-in rules do not parse: " + e.parseErr.Error())
	}
	return &e.set
}

// prefilter is what a pattern needs from a text: one atom of each set (by
// automaton id); nil sets means nothing is known (the pattern runs on every
// text).
type prefilter struct{ sets [][]int32 }

// prepare compiles the engine once, before its first scan.
func (s *engine) prepare() { s.compileOnce.Do(s.compile) }

// compile builds the prefilters and anchors of every pattern (once, through
// prepare); the automaton over their atoms waits for the first scan that
// needs it (automaton).
func (s *engine) compile() {
	ids := map[string]int32{}
	var atoms []string
	idsOf := func(list []string) []int32 {
		out := make([]int32, 0, len(list))
		for _, a := range list {
			id, ok := ids[a]
			if !ok {
				id = int32(len(atoms))
				ids[a] = id
				atoms = append(atoms, a)
			}
			out = append(out, id)
		}
		return out
	}
	filter := func(pat *pattern) prefilter {
		var pf prefilter
		for _, set := range atomSetsOf(pat.syntax()) {
			pf.sets = append(pf.sets, idsOf(set))
		}
		return pf
	}
	for _, r := range s.rules().rules {
		var m, a []prefilter
		var an []*anchor
		for _, re := range r.match {
			m = append(m, filter(re))
			x := anchorOf(re)
			if x != nil {
				x.ids = idsOf(x.strs)
			}
			an = append(an, x)
		}
		s.anchors = append(s.anchors, an)
		for _, re := range r.also {
			a = append(a, filter(re))
		}
		s.ruleAtoms = append(s.ruleAtoms, m)
		s.alsoAtoms = append(s.alsoAtoms, a)
	}
	s.atoms = atoms
}

// automaton returns the prefilter over s.atoms, building it once; nil when
// the atoms need more states than it can have (New refuses such rule files).
func (s *engine) automaton() *automaton {
	s.prepare()
	s.acOnce.Do(func() { s.ac = newAutomaton(s.atoms) })
	return s.ac
}

func errTooManyAtoms(n int) error {
	return fmt.Errorf("the rules' patterns hold too many literal strings (%d) for the prefilter: simplify the largest alternations", n)
}

// Rules returns the loaded rules, in file order.
func (s *Scanner) Rules() []*Rule { return slices.Clone(s.rules().rules) }

// MaxFileBytes is how much of each file is scanned (Options.MaxFileBytes).
func (s *Scanner) MaxFileBytes() int64 { return s.max }

// Policy returns the scanner's policy.
func (s *Scanner) Policy() Policy { return s.policy }

func readLimited(open func(string) (io.ReadCloser, error), name string, limit int64) ([]byte, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}

// Scan returns the findings of a skill, most severe first, without the
// policy applied (no finding is Allowed). A skill whose Digest was scanned
// before (with the same path and files) is answered from the cache.
func (s *Scanner) Scan(ctx context.Context, sk *Skill) []Finding {
	key := cacheKey(sk)
	if key != "" {
		s.cacheLoaded()
		if f, ok := s.cache.get(key); ok {
			return slices.Clone(f)
		}
	}
	s.prepare()
	j := &job{s: s, sk: sk, found: map[findingKey]int{}}
	j.run(ctx)
	out := j.findings
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line), strings.Compare(a.Rule, b.Rule))
	})
	if len(out) > maxPerSkill {
		out = out[:maxPerSkill]
	}
	if key != "" && ctx.Err() == nil {
		s.cache.put(key, out)
	}
	return slices.Clone(out)
}

// Check scans a skill and applies the policy.
func (s *Scanner) Check(ctx context.Context, sk *Skill) Verdict {
	return s.policy.Apply(sk, s.Scan(ctx, sk))
}

// Cached returns what Check would return for sk when the cache holds a scan
// of the same content (the same Digest, path and files), without scanning;
// false when sk would have to be scanned. It is cheap: one map lookup and the
// policy.
func (s *Scanner) Cached(sk *Skill) (Verdict, bool) {
	key := cacheKey(sk)
	if key == "" {
		return Verdict{}, false
	}
	s.cacheLoaded()
	f, ok := s.cache.get(key)
	if !ok {
		return Verdict{}, false
	}
	return s.policy.Apply(sk, f), true
}

// CacheEpoch changes whenever the cache may lose a scan or replace one: a
// turn of its generations, the load of the cache file. While it stays the
// same, a skill Cached or Scan answered is still held, and a Cached of the
// same skill gives the same Verdict and changes nothing in the cache: a
// caller that kept that Verdict may take it again instead of asking.
func (s *Scanner) CacheEpoch() uint64 {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.epoch
}

// cacheKey is the key of sk's scan in the cache: its content digest and
// what the checks read besides the content (its path and where its files
// sit); "" when sk has no digest (not cached).
func cacheKey(sk *Skill) string {
	if sk.Digest == "" {
		return ""
	}
	return sk.Digest + "\x00" + sk.Path + "\x00" + sk.SkillFile + "\x00" + sk.DirRel + "\x00" + sk.Folder
}

// cache holds scans by key, in two generations: when the young one is full
// it becomes the old one, so the cache holds at most 2*cacheSize entries and
// keeps whatever was used since the last turn.
type cache struct {
	mu         sync.Mutex
	young, old map[string][]Finding
	// dirty says a scan was added since the last Flush.
	dirty bool
	// epoch counts the turns, and the loads of the cache file: while it
	// stays the same, every entry of young stays there with its findings.
	epoch uint64
}

const cacheSize = 20000

func (c *cache) get(key string) ([]Finding, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.young[key]; ok {
		return f, true
	}
	if f, ok := c.old[key]; ok {
		c.putLocked(key, f)
		return f, true
	}
	return nil, false
}

func (c *cache) put(key string, f []Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, f)
	c.dirty = true
}

func (c *cache) putLocked(key string, f []Finding) {
	if c.young == nil {
		c.young = map[string][]Finding{}
	}
	if len(c.young) >= cacheSize {
		c.old, c.young = c.young, map[string][]Finding{}
		c.epoch++
	}
	c.young[key] = f
}

// job is one scan of one skill.
type job struct {
	// s is prepared (its rules parsed and compiled) before a job starts:
	// the job reads s.set directly.
	s     *Scanner
	sk    *Skill
	found map[findingKey]int // → index in findings
	// findings so far, and per rule and file how many.
	findings []Finding
	perFile  map[string]int
	// files are the texts read, for the skill-level checks.
	files []*fileText
	// net is where the code uses the network (nil: not looked yet).
	net *evidence
}

type findingKey struct {
	rule, file string
	line       int
}

// fileText is one file of the skill, read.
type fileText struct {
	rel  string // relative to the source root
	path string // relative to the skill folder ("" for the skill file)
	kind Kind
	// markdown says documentation context applies.
	markdown bool
	raw      string
	norm     string
	lines    lineIndex
	binary   []byte // the head of a binary file
	// truncated says only the first MaxFileBytes were read.
	truncated bool
	// normLines indexes norm; docsFile caches whether the file's path is
	// documentation about attacks (1 yes, -1 no, 0 not known yet).
	normLines lineIndex
	docsFile  int
	// fences are the fenced code blocks of a markdown file (lazy);
	// bodyLine is the first line after the skill file's frontmatter.
	fences   [][2]int
	bodyLine int
	// plain says the text holds no invisible or look-alike character (the
	// character checks have nothing to look at); low is norm in lower case
	// (lazy).
	plain bool
	low   string
}

// lower is the file's normalised text in lower case.
func (ft *fileText) lower() string {
	if ft.low == "" && ft.norm != "" {
		ft.low = strings.ToLower(ft.norm)
	}
	return ft.low
}

func (j *job) add(r *Rule, sev Severity, file string, line int, msg string) {
	k := findingKey{r.ID, file, line}
	if _, dup := j.found[k]; dup {
		return
	}
	if j.perFile == nil {
		j.perFile = map[string]int{}
	}
	pk := r.ID + "\x00" + file
	if j.perFile[pk] >= maxPerRuleFile {
		return
	}
	j.perFile[pk]++
	j.found[k] = len(j.findings)
	j.findings = append(j.findings, Finding{Rule: r.ID, Severity: sev, File: file, Line: line, Message: msg})
}

func (j *job) run(ctx context.Context) {
	sk := j.sk
	// The skill file, then the companions.
	data := sk.SkillData
	if data == nil && sk.SkillAbs != "" {
		var err error
		if data, err = j.read(sk.SkillAbs); err != nil {
			data = nil
		}
	}
	if data != nil {
		j.scanText(ctx, &fileText{rel: sk.SkillFile, kind: KindInstructions, markdown: true, bodyLine: bodyLine(data)}, data)
	}
	for _, f := range sk.Files {
		if ctx.Err() != nil {
			return
		}
		rel := path.Join(sk.DirRel, f.Path)
		if sk.Dir == "" {
			continue
		}
		abs := sk.Dir + string(os.PathSeparator) + strings.ReplaceAll(f.Path, "/", string(os.PathSeparator))
		if !f.Text {
			head, err := f.Data[:min(len(f.Data), 512)], error(nil)
			if f.Data == nil {
				head, err = j.readHead(abs, 512)
			}
			if err == nil {
				j.files = append(j.files, &fileText{rel: rel, path: f.Path, binary: head})
			}
			continue
		}
		data := f.Data
		if data == nil {
			var err error
			if data, err = j.read(abs); err != nil {
				continue
			}
		}
		ft := &fileText{rel: rel, path: f.Path, truncated: int64(len(data)) > j.s.max}
		if ft.truncated {
			data = data[:j.s.max]
		}
		ft.kind, ft.markdown = kindOf(f.Path, data)
		j.scanText(ctx, ft, data)
	}
	j.skillChecks()
}

func (j *job) read(abs string) ([]byte, error) {
	f, err := j.s.open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, j.s.max+1))
}

func (j *job) readHead(abs string, n int) ([]byte, error) {
	f, err := j.s.open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err != nil && m == 0 {
		return nil, err
	}
	return buf[:m], nil
}

// bodyLine is the first line after a skill file's frontmatter (1 when it
// has none).
func bodyLine(data []byte) int {
	s := string(data)
	if !strings.HasPrefix(s, "---") {
		return 1
	}
	lines := newLineIndex(s)
	for n := 2; n <= len(lines); n++ {
		if strings.TrimRight(lines.text(s, n), " \t\r") == "---" {
			return n + 1
		}
	}
	return 1
}

// Extensions by kind.
var (
	instructionExt = map[string]bool{".md": true, ".mdx": true, ".markdown": true, ".txt": true, ".rst": true, ".adoc": true, ".prompt": true}
	codeExt        = map[string]bool{
		".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ksh": true, ".py": true, ".pyw": true,
		".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true, ".jsx": true, ".tsx": true,
		".rb": true, ".pl": true, ".pm": true, ".php": true, ".ps1": true, ".psm1": true, ".bat": true, ".cmd": true,
		".lua": true, ".r": true, ".go": true, ".rs": true, ".java": true, ".kt": true, ".swift": true, ".c": true,
		".cc": true, ".cpp": true, ".h": true, ".cs": true, ".vbs": true, ".applescript": true, ".groovy": true,
		".tcl": true, ".awk": true, ".nu": true, ".ex": true, ".exs": true, ".jl": true, ".dart": true, ".scala": true,
	}
	codeNames = map[string]bool{"makefile": true, "justfile": true, "rakefile": true}
)

// kindOf classifies a companion file; markdown says it is prose documentation.
func kindOf(p string, data []byte) (Kind, bool) {
	base := strings.ToLower(path.Base(p))
	ext := path.Ext(base)
	switch {
	case instructionExt[ext]:
		return KindInstructions, ext != ".txt"
	case codeExt[ext], codeNames[base], strings.HasPrefix(string(data[:min(len(data), 2)]), "#!"):
		return KindCode, false
	case ext == ".html" || ext == ".htm" || ext == ".xhtml" || ext == ".ipynb":
		return KindInstructions | KindCode, false
	case ext == ".svg":
		return KindData | KindCode, false
	case base == "dockerfile" || base == "containerfile" || ext == ".dockerfile":
		// A container build runs in the container, not on the user's
		// machine: the instructions' rules apply, not the scripts'.
		return KindData, false
	}
	return KindData, false
}

// view is one text the patterns run over.
type view struct {
	file  *fileText
	kind  Kind
	text  string
	lines lineIndex
	// line, for a decoded text found on one line, is that line; how names
	// the encoding ("" for the file's own text).
	line int
	how  string
	// hidden says the view is the hidden part of a markdown file.
	hidden bool
	// seen and hits say which atoms occur in the text, and where they end.
	seen []bool
	hits [][]int32
}

// maxDepth bounds decoding inside decoded text.
const maxDepth = 2

func (j *job) scanText(ctx context.Context, ft *fileText, data []byte) {
	if !utf8.Valid(data) {
		data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	ft.raw = string(data)
	ft.plain = !suspicious(ft.raw)
	ft.norm = normalize(ft.raw)
	ft.lines = newLineIndex(ft.raw)
	j.files = append(j.files, ft)
	j.fileChecks(ft)

	base := &view{file: ft, kind: ft.kind, text: ft.norm}
	j.match(base)
	if ft.kind&KindInstructions != 0 {
		if h, ok := hiddenView(ft.norm); ok {
			j.match(&view{file: ft, kind: KindHidden, text: h, hidden: true})
		}
	}
	type pending struct {
		text, raw string
		line      int
		depth     int
	}
	queue := []pending{{text: ft.norm, raw: ft.raw, depth: 0}}
	budget := maxDecodedPerText * 2
	for len(queue) > 0 && budget > 0 && ctx.Err() == nil {
		p := queue[0]
		queue = queue[1:]
		for _, d := range decodeAll(p.text, p.raw, ft.kind) {
			if budget--; budget < 0 {
				break
			}
			line := p.line
			if line == 0 {
				line = d.line
			}
			text := normalize(d.text)
			// A blob found on a line is decoded text; a transformation of
			// the whole text (strings joined, reversed, ROT13) is the
			// file's own kind of text, read another way.
			kind := ft.kind
			if d.line != 0 {
				kind |= KindDecoded
			}
			v := &view{file: ft, kind: kind, text: text, line: line, how: d.how}
			j.match(v)
			if p.depth+1 < maxDepth {
				queue = append(queue, pending{text: text, raw: d.text, line: line, depth: p.depth + 1})
			}
		}
	}
}

// Windows. A pattern runs only around the places where its atoms occur:
// from windowLines lines before the line of an atom to windowLines lines
// after it (at most windowBytes on each side). A match longer than that is
// not found; patterns are written to match within a line or two.
const (
	windowLines = 2
	windowBytes = 2048
	// maxHits bounds the occurrences recorded per atom in one text; past it
	// the patterns of that atom run over the whole text.
	maxHits = 4096
)

// match runs the pattern rules that apply to a view.
func (j *job) match(v *view) {
	j.index(v)
	for ri, r := range j.s.set.rules {
		if r.Check != "" || r.In&v.kind == 0 {
			continue
		}
		j.matchRule(v, ri, r)
	}
}

// index finds the atoms of a view and where they end.
func (j *job) index(v *view) {
	ac := j.s.automaton()
	n := ac.natoms
	v.hits = make([][]int32, n)
	v.seen = make([]bool, n)
	ac.findAll(v.text, v.seen, v.hits)
}

// seen reports whether the view holds an atom of each set of pf (true when
// pf knows none).
func (pf prefilter) seen(v *view) bool {
	for _, set := range pf.sets {
		found := false
		for _, id := range set {
			if v.seen[id] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// windows returns the merged spans of v around the occurrences of the atoms
// of pf's set that occurs least in v; nil and true mean "the whole text"
// (no atoms known, or too many occurrences).
func (j *job) windows(v *view, pf prefilter) ([][2]int, bool) {
	if pf.sets == nil {
		return nil, true
	}
	var best []int32
	bestHits := -1
	for _, set := range pf.sets {
		n := 0
		over := false
		for _, id := range set {
			n += len(v.hits[id])
			if len(v.hits[id]) > maxHits {
				over = true
			}
		}
		if over {
			continue
		}
		if bestHits < 0 || n < bestHits {
			best, bestHits = set, n
		}
	}
	if bestHits < 0 {
		return nil, true
	}
	var ends []int
	for _, id := range best {
		for _, e := range v.hits[id] {
			ends = append(ends, int(e))
		}
	}
	if len(ends) == 0 {
		return nil, false
	}
	slices.Sort(ends)
	lines := v.lineIndex()
	var out [][2]int
	for _, e := range ends {
		ln := lines.line(max(e-1, 0))
		lo := lines[max(ln-1-windowLines, 0)]
		hi := len(v.text)
		if ln+windowLines < len(lines) {
			hi = lines[ln+windowLines] - 1
		}
		lo = max(lo, e-windowBytes)
		hi = min(hi, e+windowBytes)
		if k := len(out) - 1; k >= 0 && lo <= out[k][1] {
			out[k][1] = max(out[k][1], hi)
			continue
		}
		out = append(out, [2]int{lo, hi})
	}
	return out, false
}

// find returns up to limit matches of re in v (offsets into v.text), looking
// only around the occurrences of ids.
func (j *job) find(v *view, re *pattern, pf prefilter, limit int) [][]int {
	wins, whole := j.windows(v, pf)
	if whole {
		return re.FindAllStringIndex(v.text, limit)
	}
	var out [][]int
	last := -1
	for _, w := range wins {
		for _, loc := range re.FindAllStringIndex(v.text[w[0]:w[1]], limit) {
			start := loc[0] + w[0]
			if start <= last {
				continue
			}
			last = start
			out = append(out, []int{start, loc[1] + w[0]})
			if len(out) >= limit {
				return out
			}
		}
	}
	return out
}

func (v *view) lineIndex() lineIndex { return lazyLineIndex(&v.lines, v.text) }

func (j *job) matchRule(v *view, ri int, r *Rule) {
	for _, pf := range j.s.alsoAtoms[ri] {
		if !pf.seen(v) {
			return
		}
	}
	alsoWhole := -1 // unknown; 0 false, 1 true
	for pi, re := range r.match {
		pf := j.s.ruleAtoms[ri][pi]
		if !pf.seen(v) {
			continue
		}
		if an := j.s.anchors[ri][pi]; an != nil && !an.candidate(v, j.s.atoms) {
			continue
		}
		for _, loc := range j.find(v, re, pf, maxPerRuleFile*4) {
			lines := v.lineIndex()
			ln := lines.line(loc[0])
			lineText := lines.text(v.text, ln)
			if slices.ContainsFunc(r.unless, func(u *pattern) bool { return u.MatchString(lineText) }) {
				continue
			}
			if !j.alsoHolds(v, ri, r, ln, &alsoWhole) {
				continue
			}
			line := ln
			if v.line != 0 {
				line = v.line
			}
			sev := r.Severity
			note := ""
			switch {
			case r.Docs != 0 && v.file.markdown && !v.hidden && j.mention(v, line, loc):
				sev = r.Docs
				note = " (in documentation about attacks: review that it is only quoted)"
			case v.how != "":
				sev = sev.raise(1)
				note = fmt.Sprintf(" (hidden as %s", v.how)
				if v.line != 0 {
					note += fmt.Sprintf(" on line %d", v.line)
				}
				note += ")"
			case v.hidden:
				note = " (in a part of the page readers do not see)"
			}
			msg := fmt.Sprintf("%s: %s%s. %s", r.Title, excerpt(v.text[loc[0]:loc[1]]), note, r.Message)
			j.add(r, sev, v.file.rel, line, msg)
		}
	}
}

// alsoHolds checks a rule's "also" patterns for a match on line ln: within
// the rule's near lines of it, or anywhere in the text (near 0).
func (j *job) alsoHolds(v *view, ri int, r *Rule, ln int, whole *int) bool {
	if len(r.also) == 0 {
		return true
	}
	if r.near == 0 {
		if *whole < 0 {
			*whole = 1
			for ai, re := range r.also {
				if len(j.find(v, re, j.s.alsoAtoms[ri][ai], 1)) == 0 {
					*whole = 0
					break
				}
			}
		}
		return *whole == 1
	}
	win := j.around(v, ln, r.near)
	for _, re := range r.also {
		if !re.MatchString(win) {
			return false
		}
	}
	return true
}

// around is the text of lines ln-n to ln+n of v.
func (j *job) around(v *view, ln, n int) string {
	lines := v.lineIndex()
	lo := max(1, ln-n)
	hi := min(len(lines), ln+n)
	end := len(v.text)
	if hi < len(lines) {
		end = lines[hi]
	}
	return v.text[lines[lo-1]:end]
}

// mention reports whether a match is quoted in documentation about attacks
// rather than used: it lies in markdown that discusses attacks (see
// docsContext), inside a fenced code block, a table row, a block quote, or
// quotes or backticks on its line. (For decoded text, the line the blob
// was found on must be so.)
func (j *job) mention(v *view, line int, loc []int) bool {
	ft := v.file
	if !j.docsContext(ft, line) {
		return false
	}
	lines := ft.lineIndex()
	text := ft.norm
	if line < 1 || line > len(lines) {
		return false
	}
	if ft.fences == nil {
		ft.fences = fencedRanges(text)
		if ft.fences == nil {
			ft.fences = [][2]int{}
		}
	}
	off := lines[line-1]
	for _, f := range ft.fences {
		if off >= f[0] && off < f[1] {
			return true
		}
	}
	lt := lines.text(text, line)
	if t := strings.TrimSpace(lt); strings.HasPrefix(t, "|") || strings.HasPrefix(t, ">") {
		return true
	}
	if v.line != 0 || v.how != "" {
		// Decoded: the blob's line must be quoted as a whole.
		return strings.ContainsAny(lt, "`\"“”'")
	}
	// The match within its line.
	lvl := v.lineIndex()
	start := loc[0] - lvl[lvl.line(loc[0])-1]
	vt := lvl.text(v.text, lvl.line(loc[0]))
	if start > len(vt) {
		return false
	}
	before := vt[:start]
	for _, q := range []string{"`", "\"", "“", "'"} {
		if strings.Count(before, q)%2 == 1 || (q == "“" && strings.Count(before, "“") > strings.Count(before, "”")) {
			return true
		}
	}
	return false
}

// maxSectionLines bounds how far up docsContext looks for the heading of
// the section a line is in.
const maxSectionLines = 80

// docsContext reports whether line ln of a markdown file is documentation
// about attacks: the documentation context matches the file's path, the
// heading of the section the line is in, or a line within the context's
// distance of it. (For a decoded text, ln is the line it was found on.)
func (j *job) docsContext(ft *fileText, ln int) bool {
	d := &j.s.set.docs
	if ft.docsFile == 0 {
		ft.docsFile = -1
		if matchAny(d.match, ft.rel) {
			ft.docsFile = 1
		}
	}
	if ft.docsFile > 0 {
		return true
	}
	lines := ft.lineIndex()
	text := ft.norm
	// The frontmatter is metadata, not documentation.
	lo := max(1, ln-d.within, ft.bodyLine)
	hi := min(len(lines), ln+d.within)
	end := len(text)
	if hi < len(lines) {
		end = lines[hi]
	}
	if lo <= hi && matchAny(d.match, text[lines[lo-1]:end]) {
		return true
	}
	// The heading of the section.
	for n := ln - d.within - 1; n >= max(1, ft.bodyLine) && n >= ln-maxSectionLines; n-- {
		if t := strings.TrimSpace(lines.text(text, n)); strings.HasPrefix(t, "#") {
			return matchAny(d.match, t)
		}
	}
	return false
}

func matchAny(res []*pattern, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

func (ft *fileText) lineIndex() lineIndex { return lazyLineIndex(&ft.normLines, ft.norm) }

// excerpt quotes matched text for a message: one line, at most 80
// characters, invisible and control characters shown as escapes.
func excerpt(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n >= 80 {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case invisible(r) || r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteRune(r)
		}
		n++
	}
	return "\"" + strings.Join(strings.Fields(b.String()), " ") + "\""
}

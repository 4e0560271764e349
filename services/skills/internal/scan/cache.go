package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/skillsd/skillsd/services/skills/internal/statefile"
)

// engineVersion changes whenever the scanner's code finds differently (new
// checks, decoders, normalisation), so that results kept on disk by an older
// version are not reused.
const engineVersion = 1

// cacheFormat names the layout of the cache file.
const cacheFormat = "skillsd-scan-cache/1"

// maxCacheFile bounds what is read back from the cache file.
const maxCacheFile = 256 << 20

// fingerprint identifies what a scan depends on besides the skill: the
// engine, the rule files and the scanned size.
func (s *Scanner) fingerprint(sources [][]byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "engine %d max %d\n", engineVersion, s.max)
	for _, src := range sources {
		fmt.Fprintf(h, "%d\n", len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Fingerprint identifies what a scan depends on besides the skill (the
// engine, the rule files, the scanned size): scanners with the same
// fingerprint find the same findings in the same skill.
func (s *Scanner) Fingerprint() string { return s.rulesPrint }

type cacheHeader struct {
	Format string `json:"format"`
	Rules  string `json:"rules"`
}

type cacheEntry struct {
	Key      string        `json:"key"`
	Findings []cachedEntry `json:"findings"`
}

type cachedEntry struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
}

// cacheLoaded reads the cache file, once (Options.CacheFile).
func (s *Scanner) cacheLoaded() {
	if s.cacheFile != "" {
		s.cacheOnce.Do(s.loadCache)
	}
}

// Preload reads the cache file now if it was not read yet: a server calls
// it in the background, beside its first catalog build, so that the build
// does not wait for the file when it asks for the scans it holds.
func (s *Scanner) Preload() {
	if s != nil {
		s.cacheLoaded()
	}
}

// loadCache reads the scans kept by an earlier process with the same engine
// and rules. A missing, foreign or damaged file is ignored (everything is
// scanned again).
func (s *Scanner) loadCache() {
	data, err := statefile.Read(s.cacheFile, maxCacheFile)
	if err != nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var h cacheHeader
	if err := dec.Decode(&h); err != nil || h.Format != cacheFormat || h.Rules != s.rulesPrint {
		return
	}
	loaded := map[string][]Finding{}
	for {
		var e cacheEntry
		if err := dec.Decode(&e); err != nil {
			if !errors.Is(err, io.EOF) {
				return // damaged: keep nothing from it
			}
			break
		}
		fs := make([]Finding, 0, len(e.Findings))
		for _, c := range e.Findings {
			sev, err := ParseSeverity(c.Severity)
			if err != nil || sev < Info {
				return
			}
			fs = append(fs, Finding{Rule: c.Rule, Severity: sev, File: c.File, Line: c.Line, Message: c.Message})
		}
		loaded[e.Key] = fs
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	for k, v := range loaded {
		s.cache.putLocked(k, v)
	}
	s.cache.epoch++
}

// Flush writes the scans made since the last Flush to the cache file
// (Options.CacheFile), so that the next process does not scan unchanged
// skills again. It does nothing without a cache file or new scans. The file
// is replaced atomically and readable by its owner only.
func (s *Scanner) Flush() error {
	if s.cacheFile == "" {
		return nil
	}
	s.cacheLoaded()
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	c := &s.cache
	c.mu.Lock()
	if !c.dirty {
		c.mu.Unlock()
		return nil
	}
	entries := make(map[string][]Finding, len(c.young)+len(c.old))
	for k, v := range c.old {
		entries[k] = v
	}
	for k, v := range c.young {
		entries[k] = v
	}
	c.dirty = false
	c.mu.Unlock()

	err := statefile.Write(s.cacheFile, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		if err := enc.Encode(cacheHeader{Format: cacheFormat, Rules: s.rulesPrint}); err != nil {
			return err
		}
		for k, v := range entries {
			e := cacheEntry{Key: k, Findings: make([]cachedEntry, 0, len(v))}
			for _, f := range v {
				e.Findings = append(e.Findings, cachedEntry{Rule: f.Rule, Severity: f.Severity.String(), File: f.File, Line: f.Line, Message: f.Message})
			}
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan cache: %w", err)
	}
	return nil
}

// CacheFileName is the file name of the scan cache under a state folder.
func CacheFileName() string { return "scan-cache-" + strconv.Itoa(engineVersion) + ".jsonl" }

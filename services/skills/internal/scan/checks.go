package scan

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A built-in check is what a pattern cannot say: it looks at characters one
// by one, at the skill's name and metadata, or at several files at once. A
// rule names it with "check"; the rule gives its id, severity and message.
type checkSpec struct {
	// file runs on each text or binary file; skill once per skill, after
	// the files.
	file  func(j *job, r *Rule, ft *fileText)
	skill func(j *job, r *Rule)
	doc   string
}

var checks = map[string]checkSpec{
	"invisible-zero-width": {file: checkZeroWidth, doc: "zero-width characters inside or next to ASCII text (emoji sequences and joiners between letters of other scripts are left alone)"},
	"invisible-bidi":       {file: checkBidi, doc: "bidirectional embedding, override and isolate controls (direction marks on lines with right-to-left text are left alone)"},
	"invisible-tags":       {file: checkTags, doc: "Unicode tag characters (outside emoji flags) and runs of variation selectors that spell text"},
	"homoglyph-name":       {skill: checkHomoglyphName, doc: "a name or folder with letters of another script that look Latin"},
	"homoglyph-words":      {file: checkHomoglyphWords, doc: "words that mix Latin letters with look-alike letters of another script"},
	"tools-wildcard":       {skill: checkToolsWildcard, doc: "allowed-tools that pre-approves every tool or every shell command"},
	"tools-risky":          {skill: checkToolsRisky, doc: "allowed-tools that pre-approves network, privilege, deletion or remote-shell commands"},
	"tools-unused":         {skill: checkToolsUnused, doc: "allowed-tools that pre-approves a shell or web tool the skill never uses"},
	"undeclared-script":    {skill: checkUndeclaredScript, doc: "a script that the skill neither declares nor mentions anywhere"},
	"binary-undeclared":    {skill: checkBinaryUndeclared, doc: "a compiled program (ELF, PE, Mach-O, WebAssembly) the skill neither declares nor mentions"},
	"binary-declared":      {skill: checkBinaryDeclared, doc: "a compiled program the skill declares or mentions"},
	"archive":              {file: checkArchive, doc: "an archive or macro-enabled document, whose content is not scanned"},
	"oversized":            {file: checkOversized, doc: "a text file larger than the scanned size"},
	"description-mismatch": {skill: checkDescriptionMismatch, doc: "scripts that use the network while the name and description never say so"},
	"description-contradiction": {skill: checkDescriptionContradiction,
		doc: "scripts that use the network while the description says the skill works offline or locally"},
}

func checkNames() []string {
	var names []string
	for n := range checks {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CheckDoc describes a built-in check.
func CheckDoc(name string) string { return checks[name].doc }

// fileChecks runs the file-level checks on a file.
func (j *job) fileChecks(ft *fileText) {
	for _, r := range j.s.set.rules {
		if c, ok := checks[r.Check]; ok && c.file != nil {
			c.file(j, r, ft)
		}
	}
}

// skillChecks runs the skill-level checks, and the file checks of binary
// files.
func (j *job) skillChecks() {
	for _, ft := range j.files {
		if ft.binary != nil {
			j.fileChecks(ft)
		}
	}
	for _, r := range j.s.set.rules {
		if c, ok := checks[r.Check]; ok && c.skill != nil {
			c.skill(j, r)
		}
	}
}

func (j *job) checkFinding(r *Rule, file string, line int, detail string) {
	j.add(r, r.Severity, file, line, fmt.Sprintf("%s: %s. %s", r.Title, detail, r.Message))
}

// checkFindingIn is checkFinding for a line of a file, where documentation
// about attacks takes the rule's docs severity.
func (j *job) checkFindingIn(r *Rule, ft *fileText, line int, detail string) {
	if r.Docs != 0 && ft.markdown && line > 0 && j.mention(&view{file: ft, text: ft.norm, how: "check"}, line, nil) {
		j.add(r, r.Docs, ft.rel, line, fmt.Sprintf("%s: %s (in documentation about attacks: review that it is only quoted). %s", r.Title, detail, r.Message))
		return
	}
	j.checkFinding(r, ft.rel, line, detail)
}

// runeInfo names a character for a message: U+200B and its name if known.
func runeInfo(r rune) string {
	names := map[rune]string{
		0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
		0x2060: "WORD JOINER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN",
		0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
		0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
		0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
		0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK", 0x061C: "ARABIC LETTER MARK",
	}
	if n, ok := names[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, n)
	}
	return fmt.Sprintf("U+%04X", r)
}

// visible shows a line with its invisible characters as escapes (at most
// 100 characters around the first one).
func visible(line string) string {
	return excerpt(line)
}

// perLine calls fn for each line of text holding a character bad reports,
// with the line's characters.
func forEachLine(raw string, fn func(n int, line string)) {
	n := 0
	for len(raw) > 0 {
		n++
		i := strings.IndexByte(raw, '\n')
		if i < 0 {
			fn(n, raw)
			return
		}
		fn(n, raw[:i])
		raw = raw[i+1:]
	}
}

// forEachNonASCIILine calls fn for each line of a text file (not binary,
// not plain) with a character outside ASCII.
func forEachNonASCIILine(ft *fileText, fn func(n int, line string)) {
	if ft.binary != nil || ft.plain {
		return
	}
	forEachLine(ft.raw, func(n int, line string) {
		if isASCIIString(line) {
			return
		}
		fn(n, line)
	})
}

// forEachHidingLine calls fn for each line that may hide characters: a line
// of forEachNonASCIILine other than the fence escape idiom (fenceEscape).
func forEachHidingLine(ft *fileText, fn func(n int, line string)) {
	forEachNonASCIILine(ft, func(n int, line string) {
		if !fenceEscape(line) {
			fn(n, line)
		}
	})
}

func checkZeroWidth(j *job, r *Rule, ft *fileText) {
	forEachHidingLine(ft, func(n int, line string) {
		rs := []rune(line)
		var bad []string
		for i, c := range rs {
			if !isZeroWidth(c) || (c == 0xFEFF && n == 1 && i == 0) {
				continue
			}
			// Between two characters of other scripts (emoji sequences, Thai
			// word breaks, Persian non-joiners) they are how text is written;
			// next to ASCII, or at a line's end, they hide or split words.
			prev, next := neighbour(rs, i, -1), neighbour(rs, i, 1)
			if prev >= utf8.RuneSelf && next >= utf8.RuneSelf {
				continue
			}
			if s := runeInfo(c); !slices.Contains(bad, s) {
				bad = append(bad, s)
			}
		}
		if len(bad) > 0 {
			j.checkFindingIn(r, ft, n, strings.Join(bad, ", ")+" in "+visible(line))
		}
	})
}

// fenceEscape reports the markdown idiom of an invisible character before a
// code fence, which keeps a fence shown inside another one from closing it:
// the line is the invisible characters, then the fence.
func fenceEscape(line string) bool {
	rest := strings.TrimLeftFunc(strings.TrimLeft(line, " \t"), invisible)
	if len(rest) == len(strings.TrimLeft(line, " \t")) {
		return false
	}
	rest = strings.TrimLeftFunc(rest, invisible)
	return strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~")
}

// neighbour is the nearest character in direction dir that is not
// invisible; 0 at the ends.
func neighbour(rs []rune, i, dir int) rune {
	for k := i + dir; k >= 0 && k < len(rs); k += dir {
		if !invisible(rs[k]) {
			return rs[k]
		}
	}
	return 0
}

func checkBidi(j *job, r *Rule, ft *fileText) {
	forEachHidingLine(ft, func(n int, line string) {
		rtl := strings.IndexFunc(line, func(c rune) bool {
			return unicode.In(c, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko)
		}) >= 0
		var bad []string
		for _, c := range line {
			if !isBidi(c) {
				continue
			}
			if rtl && (c == 0x200E || c == 0x200F || c == 0x061C) {
				continue
			}
			if s := runeInfo(c); !slices.Contains(bad, s) {
				bad = append(bad, s)
			}
		}
		if len(bad) > 0 {
			j.checkFindingIn(r, ft, n, strings.Join(bad, ", ")+" in "+visible(line))
		}
	})
}

func checkTags(j *job, r *Rule, ft *fileText) {
	forEachNonASCIILine(ft, func(n int, line string) {
		rs := []rune(line)
		var tags []byte
		vsRun, vsMax := 0, 0
		var vsText []byte
		for i := 0; i < len(rs); i++ {
			c := rs[i]
			switch {
			case c == 0x1F3F4: // a black flag starts an emoji tag sequence (🏴󠁧󠁢󠁳󠁣󠁴󠁿)
				k := i + 1
				for k < len(rs) && isTag(rs[k]) && rs[k] != 0xE007F && k-i <= 8 {
					k++
				}
				if k < len(rs) && rs[k] == 0xE007F {
					i = k
				}
			case isTag(c):
				if c >= 0xE0020 && c <= 0xE007E {
					tags = append(tags, byte(c-0xE0000))
				} else {
					tags = append(tags, '?')
				}
			case isVariation(c):
				vsRun++
				if c >= 0xE0100 {
					vsText = append(vsText, byte(c-0xE0100+16))
				} else {
					vsText = append(vsText, byte(c-0xFE00))
				}
				vsMax = max(vsMax, vsRun)
			default:
				vsRun = 0
			}
		}
		switch {
		case len(tags) > 0:
			j.checkFindingIn(r, ft, n, fmt.Sprintf("%d invisible tag characters spelling %s", len(tags), excerpt(string(tags))))
		case vsMax >= 4:
			detail := fmt.Sprintf("a run of %d variation selectors", vsMax)
			if printable(vsText) {
				detail += " spelling " + excerpt(string(vsText))
			}
			j.checkFindingIn(r, ft, n, detail)
		}
	})
}

// scriptOf names the script of a letter ("Latin", "Cyrillic", …).
func scriptOf(r rune) string {
	for _, name := range []string{"Latin", "Cyrillic", "Greek", "Armenian", "Cherokee", "Han", "Hiragana", "Katakana",
		"Hangul", "Arabic", "Hebrew", "Devanagari", "Thai", "Georgian"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

func checkHomoglyphName(j *job, r *Rule) {
	sk := j.sk
	seen := map[string]bool{}
	for _, c := range []struct{ what, name string }{{"name", sk.Name}, {"folder", sk.Folder}} {
		if c.name == "" || isASCIIString(c.name) || seen[c.name] {
			continue
		}
		seen[c.name] = true
		var looks []string
		latin := false
		allLook := true
		for _, ch := range c.name {
			switch {
			case ch < utf8.RuneSelf:
				if unicode.IsLetter(ch) {
					latin = true
				}
			case scriptOf(ch) == "Latin":
				latin = true
			default:
				if lat, ok := confusables[ch]; ok {
					looks = append(looks, fmt.Sprintf("%q (U+%04X, %s) looks like Latin %q", ch, ch, scriptOf(ch), lat))
				} else if unicode.IsLetter(ch) {
					allLook = false
				}
			}
		}
		// Mixed with Latin letters, or made only of look-alikes (a whole
		// word that reads as Latin).
		if len(looks) == 0 || (!latin && !allLook) {
			continue
		}
		slices.Sort(looks)
		looks = slices.Compact(looks)
		detail := fmt.Sprintf("the %s %q reads as %q: %s", c.what, c.name, skeleton(c.name), strings.Join(looks, "; "))
		line := sk.KeyLines["name"]
		if c.what == "folder" {
			line = 0
		}
		j.checkFinding(r, sk.SkillFile, line, detail)
	}
}

func checkHomoglyphWords(j *job, r *Rule, ft *fileText) {
	forEachNonASCIILine(ft, func(n int, line string) {
		for _, w := range strings.FieldsFunc(line, func(c rune) bool { return !unicode.IsLetter(c) && !invisible(c) }) {
			if isASCIIString(w) {
				continue
			}
			// Short mixed tokens are notation (Xβ, αβ-test); a word passing
			// for a Latin one has several Latin letters.
			ascii, look := 0, false
			for _, c := range w {
				if c < utf8.RuneSelf {
					ascii++
				} else if _, ok := confusables[c]; ok {
					look = true
				}
			}
			if ascii >= 3 && look && utf8.RuneCountInString(w) >= 4 {
				j.checkFindingIn(r, ft, n, fmt.Sprintf("%s reads as %q", excerpt(w), skeleton(w)))
				return
			}
		}
	})
}

// tool is one allowed-tools entry: "Bash", "Bash(git:*)", "WebFetch".
type tool struct{ name, arg string }

func parseTools(list []string) []tool {
	var out []tool
	for _, t := range list {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		name, arg, ok := strings.Cut(t, "(")
		if ok {
			arg = strings.TrimSuffix(strings.TrimSpace(arg), ")")
		}
		out = append(out, tool{strings.TrimSpace(name), strings.TrimSpace(arg)})
	}
	return out
}

func isShellTool(name string) bool {
	switch strings.ToLower(name) {
	case "bash", "shell", "terminal", "run_shell_command", "exec", "powershell", "run_terminal_cmd":
		return true
	}
	return false
}

func checkToolsWildcard(j *job, r *Rule) {
	for _, t := range parseTools(j.sk.AllowedTools) {
		arg := strings.ReplaceAll(t.arg, " ", "")
		switch {
		case t.name == "*" || strings.EqualFold(t.name, "all"):
			j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"], fmt.Sprintf("%q pre-approves every tool", t.name))
		case isShellTool(t.name) && (arg == "*" || arg == "*:*" || arg == ":*" || arg == "**"):
			j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"], fmt.Sprintf("%s(%s) pre-approves every shell command", t.name, t.arg))
		case isShellTool(t.name):
			if cmd := strings.Fields(strings.NewReplacer(":", " ", "*", " ").Replace(t.arg)); len(cmd) > 0 && shellCommand.get().MatchString(strings.ToLower(path.Base(cmd[0]))) {
				j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"], fmt.Sprintf("%s(%s) pre-approves a shell, hence every command", t.name, t.arg))
			}
		}
	}
}

// riskyCommand are commands whose pre-approval lets a skill reach the
// network, gain privileges, delete, or run arbitrary code.
var riskyCommand = compileLater(`^(?:sudo|su|doas|curl|wget|nc|ncat|netcat|socat|ssh|scp|rsync|ftp|telnet|rm|dd|mkfs|shred|chmod|chown|osascript|security|crontab|launchctl|systemctl)$`)

// shellCommand are commands whose pre-approval approves any command line:
// as wide as a wildcard. (Interpreters such as python3 run the skill's own
// scripts: pre-approving them is the usual way skills work.)
var shellCommand = compileLater(`^(?:bash|sh|zsh|dash|fish|ksh|eval|exec|env|xargs|powershell|pwsh|cmd|iex|invoke-expression)$`)

func checkToolsRisky(j *job, r *Rule) {
	var risky []string
	for _, t := range parseTools(j.sk.AllowedTools) {
		if !isShellTool(t.name) || t.arg == "" {
			continue
		}
		cmd := strings.Fields(strings.NewReplacer(":", " ", "*", " ").Replace(t.arg))
		if len(cmd) == 0 {
			continue
		}
		if riskyCommand.get().MatchString(strings.ToLower(path.Base(cmd[0]))) {
			risky = append(risky, fmt.Sprintf("%s(%s)", t.name, t.arg))
		}
	}
	if len(risky) > 0 {
		j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"], strings.Join(risky, ", ")+" pre-approved")
	}
}

// commandHint finds what suggests a skill runs shell commands: a fenced
// shell block, an inline command, a script.
var commandHint = compileLater("(?m)^\\s*(?:```|~~~)\\s*(?:bash|sh|shell|console|zsh|terminal|powershell|ps1|cmd)?\\s*$|`[^`\\n]*\\b(?:run|npm|npx|pip|uv|python3?|node|git|make|go|cargo|docker|kubectl|bash|sh)\\b[^`\\n]*`|\\$ [a-z]")

// webHint finds what suggests a skill fetches web pages.
var webHint = compileLater(`(?i)https?://|\b(?:web|url|fetch|download|website|page|online|internet|search|browse|api|docs?)\b`)

func checkToolsUnused(j *job, r *Rule) {
	tools := parseTools(j.sk.AllowedTools)
	if len(tools) == 0 {
		return
	}
	hasCode := false
	var prose strings.Builder
	for _, ft := range j.files {
		if ft.kind&KindCode != 0 {
			hasCode = true
		}
		if ft.kind&KindInstructions != 0 {
			prose.WriteString(ft.norm)
			prose.WriteByte('\n')
		}
	}
	text := prose.String()
	for _, t := range tools {
		switch {
		case isShellTool(t.name) && t.arg == "" && !hasCode && !commandHint.get().MatchString(text):
			j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"],
				fmt.Sprintf("%s is pre-approved without limits, but the skill has no scripts and shows no commands", t.name))
		case (strings.EqualFold(t.name, "WebFetch") || strings.EqualFold(t.name, "WebSearch")) && !webHint.get().MatchString(text+" "+j.sk.Description):
			j.checkFinding(r, j.sk.SkillFile, j.sk.KeyLines["allowed-tools"],
				fmt.Sprintf("%s is pre-approved, but the skill never mentions the web", t.name))
		}
	}
}

func checkUndeclaredScript(j *job, r *Rule) {
	var code []*fileText
	for _, ft := range j.files {
		if ft.path != "" && ft.kind&KindCode != 0 && ft.kind&KindInstructions == 0 {
			code = append(code, ft)
		}
	}
	if len(code) == 0 {
		return
	}
	declared := map[string]bool{}
	for _, s := range j.sk.Scripts {
		declared[path.Clean(s)] = true
	}
	for _, ft := range code {
		if declared[ft.path] {
			continue
		}
		base := strings.ToLower(path.Base(ft.path))
		stem := strings.TrimSuffix(base, path.Ext(base))
		dir := strings.ToLower(path.Dir(ft.path)) + "/"
		// Mentioned by name (or imported as a module) in another file, or
		// its folder pointed at ("run the scripts in scripts/").
		mentioned := false
		for _, o := range j.files {
			if o == ft || o.binary != nil {
				continue
			}
			low := o.lower()
			if strings.Contains(low, base) || (len(stem) >= 3 && strings.Contains(low, stem)) || (dir != "./" && strings.Contains(low, dir)) {
				mentioned = true
				break
			}
		}
		if !mentioned {
			j.checkFinding(r, ft.rel, 0, fmt.Sprintf("%s is never declared or mentioned by the skill", ft.path))
		}
	}
}

// executableKind names a compiled program's format from its first bytes;
// "" when it is none.
func executableKind(h []byte, name string) string {
	switch {
	case bytes.HasPrefix(h, []byte("\x7fELF")):
		return "an ELF program (Linux)"
	case bytes.HasPrefix(h, []byte("MZ")):
		return "a PE program (Windows)"
	case bytes.HasPrefix(h, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(h, []byte{0xce, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(h, []byte{0xfe, 0xed, 0xfa, 0xcf}), bytes.HasPrefix(h, []byte{0xfe, 0xed, 0xfa, 0xce}):
		return "a Mach-O program (macOS)"
	case bytes.HasPrefix(h, []byte{0xca, 0xfe, 0xba, 0xbe}) && !strings.HasSuffix(name, ".class"):
		return "a universal Mach-O program (macOS)"
	case bytes.HasPrefix(h, []byte("\x00asm")):
		return "a WebAssembly module"
	}
	return ""
}

// mentioned reports whether the skill declares the file as a script or
// names it in one of its text files (other than itself).
func (j *job) mentioned(ft *fileText) bool {
	for _, s := range j.sk.Scripts {
		if path.Clean(s) == ft.path {
			return true
		}
	}
	base := strings.ToLower(path.Base(ft.path))
	for _, o := range j.files {
		if o != ft && o.binary == nil && strings.Contains(strings.ToLower(o.norm), base) {
			return true
		}
	}
	return false
}

func checkBinaryUndeclared(j *job, r *Rule) {
	for _, ft := range j.files {
		if ft.binary == nil {
			continue
		}
		if kind := executableKind(ft.binary, ft.path); kind != "" && !j.mentioned(ft) {
			j.checkFinding(r, ft.rel, 0, fmt.Sprintf("%s is %s", ft.path, kind))
		}
	}
}

func checkBinaryDeclared(j *job, r *Rule) {
	for _, ft := range j.files {
		if ft.binary == nil {
			continue
		}
		if kind := executableKind(ft.binary, ft.path); kind != "" && j.mentioned(ft) {
			j.checkFinding(r, ft.rel, 0, fmt.Sprintf("%s is %s", ft.path, kind))
		}
	}
}

// documentExt are zip-based document formats: archives by structure, but
// documents a skill legitimately ships (templates, samples).
var documentExt = map[string]bool{".docx": true, ".xlsx": true, ".pptx": true, ".odt": true, ".ods": true, ".odp": true,
	".epub": true, ".dotx": true, ".potx": true, ".xltx": true, ".vsdx": true, ".key": true, ".pages": true, ".numbers": true}

var archiveExt = map[string]bool{".zip": true, ".tar": true, ".gz": true, ".tgz": true, ".bz2": true, ".xz": true, ".7z": true,
	".rar": true, ".jar": true, ".war": true, ".whl": true, ".egg": true, ".apk": true, ".dmg": true, ".pkg": true, ".deb": true,
	".rpm": true, ".msi": true, ".cab": true, ".zst": true, ".docm": true, ".xlsm": true, ".pptm": true, ".crx": true, ".xpi": true, ".vsix": true}

func checkArchive(j *job, r *Rule, ft *fileText) {
	h := ft.binary
	if h == nil {
		return
	}
	ext := strings.ToLower(path.Ext(ft.path))
	if documentExt[ext] {
		return
	}
	magic := bytes.HasPrefix(h, []byte("PK\x03\x04")) || bytes.HasPrefix(h, []byte{0x1f, 0x8b}) ||
		bytes.HasPrefix(h, []byte("7z\xbc\xaf\x27\x1c")) || bytes.HasPrefix(h, []byte("Rar!")) ||
		bytes.HasPrefix(h, []byte("BZh")) || bytes.HasPrefix(h, []byte{0xfd, '7', 'z', 'X', 'Z', 0}) ||
		bytes.HasPrefix(h, []byte{0x28, 0xb5, 0x2f, 0xfd}) || (len(h) > 262 && string(h[257:262]) == "ustar")
	if magic || archiveExt[ext] {
		j.checkFinding(r, ft.rel, 0, fmt.Sprintf("%s is an archive or a macro-enabled document", ft.path))
	}
}

func checkOversized(j *job, r *Rule, ft *fileText) {
	if ft.truncated {
		j.checkFinding(r, ft.rel, 0, fmt.Sprintf("%s is larger than %d bytes; the rest was not scanned", ft.rel, j.s.max))
	}
}

// networkUse finds code that reaches the network.
var networkUse = compileLater(`(?i)\brequests\.(?:get|post|put|patch|delete|request|session)\b|\burllib\.request\b|\burlopen\s*\(|\bhttp\.client\b|\bhttpx\.|\baiohttp\b|\bsocket\.(?:socket|create_connection)\b|\bfetch\s*\(\s*["'` + "`" + `h]|\baxios\b|\bXMLHttpRequest\b|\bnew\s+WebSocket\b|\bhttps?\.request\s*\(|\bnet\.Dial|\bhttp\.(?:Get|Post|NewRequest)\b|\b(?:curl|wget)\s+[^|\n]*https?://|\bInvoke-(?:WebRequest|RestMethod)\b|\bNet\.WebClient\b|\bnc\s+-|/dev/tcp/|\bsmtplib\b|\bftplib\b|\bparamiko\b`)

// networkWords are what a description says when a skill uses the network.
var networkWords = compileLater(`(?i)\b(?:api|apis|http|https|url|urls|web|website|online|internet|download|downloads|upload|fetch|remote|server|service|cloud|endpoint|request|requests|network|github|gitlab|slack|jira|notion|sentry|stripe|supabase|cloudflare|aws|gcp|azure|s3|webhook|email|smtp|search|crawl|scrape|browser|saas|rest|graphql|oauth|token|sync|publish|deploy|post|send|external|third-party|provider|platform|registry|npm|pypi|hub|model|llm|openai|anthropic|claude|gemini|database|db|sql|http\w*|\w+\.(?:com|io|dev|org|net|ai))\b`)

// offlineClaim finds a description saying the skill does not use the network.
var offlineClaim = compileLater(`(?i)\b(?:offline|air-?gapped|no (?:network|internet)|without (?:network|internet)|(?:never|not|n't|no) (?:\w+ ){0,2}(?:network|internet|send|upload|transmit|phone[s]? home)|local(?:ly)?[- ]only|entirely local|runs locally|stays? (?:on|in) (?:your|the) (?:machine|computer|device))`)

// networkHints are literals one of which a line using the network holds
// (networkUse runs only on those lines).
var networkHints = []string{"requests.", "urllib", "urlopen", "http.client", "httpx", "aiohttp", ".request(", "http.Get", "http.Post",
	"http.NewRequest", "socket.", "fetch(", "fetch (", "axios", "XMLHttpRequest", "WebSocket", "net.Dial", "curl", "wget", "Invoke-",
	"WebClient", "nc ", "/dev/tcp", "smtplib", "ftplib", "paramiko"}

// networkEvidence returns the first code file and line using the network
// (computed once per scan).
func (j *job) networkEvidence() (*fileText, int, string) {
	if j.net != nil {
		return j.net.ft, j.net.line, j.net.what
	}
	j.net = &evidence{}
	for _, ft := range j.files {
		if ft.kind&KindCode == 0 || ft.binary != nil {
			continue
		}
		first := -1
		for _, h := range networkHints {
			for off := 0; ; {
				i := strings.Index(ft.norm[off:], h)
				if i < 0 || (first >= 0 && off+i >= first) {
					break
				}
				at := off + i
				start := strings.LastIndexByte(ft.norm[:at], '\n') + 1
				end := strings.IndexByte(ft.norm[at:], '\n')
				if end < 0 {
					end = len(ft.norm)
				} else {
					end += at
				}
				if loc := networkUse.get().FindStringIndex(ft.norm[start:end]); loc != nil {
					first = start + loc[0]
					j.net = &evidence{ft, newLineIndex(ft.norm).line(first), ft.norm[start+loc[0] : start+loc[1]]}
					break
				}
				off = end
			}
		}
		if first >= 0 {
			break
		}
	}
	return j.net.ft, j.net.line, j.net.what
}

// evidence is where a capability shows in the code.
type evidence struct {
	ft   *fileText
	line int
	what string
}

func checkDescriptionMismatch(j *job, r *Rule) {
	if networkWords.get().MatchString(j.sk.Name+" "+j.sk.Description+" "+j.sk.Path) || offlineClaim.get().MatchString(j.sk.Description) {
		return
	}
	ft, line, what := j.networkEvidence()
	if ft == nil {
		return
	}
	// The body may say it too.
	for _, f := range j.files {
		if f.path == "" && networkWords.get().MatchString(f.norm) {
			return
		}
	}
	j.checkFinding(r, ft.rel, line, fmt.Sprintf("%s uses the network (%s), but the skill never says it does", ft.path, excerpt(what)))
}

func checkDescriptionContradiction(j *job, r *Rule) {
	claim := offlineClaim.get().FindString(j.sk.Description)
	if claim == "" {
		return
	}
	if ft, line, what := j.networkEvidence(); ft != nil {
		j.checkFinding(r, ft.rel, line, fmt.Sprintf("the description says %s, but %s uses the network (%s)", excerpt(claim), ft.path, excerpt(what)))
	}
}

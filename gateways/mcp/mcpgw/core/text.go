package core

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxTextBytes caps the text of an answer that gives a skill's instructions
// or content (load_skill's, instructions and content together), so that
// hosts that cap tool output (about 25k tokens) take it whole.
const MaxTextBytes = 96 << 10

// CutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func CutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CapContent keeps content under MaxTextBytes (as load_skill does), saying
// at the end where the rest is when the server has load_skill (has): the
// answers that use it have their seed's shapes, so the note goes into the
// text itself.
func CapContent(content, skillPath string, has func(string) bool) string {
	if len(content) <= MaxTextBytes {
		return content
	}
	note := fmt.Sprintf("\n\n[Content cut at 96 KiB of %d bytes.]", len(content))
	if has(ToolLoadSkill) {
		note = fmt.Sprintf("\n\n[Content cut at 96 KiB of %d bytes: call load_skill with name %q for how to read the rest.]", len(content), skillPath)
	}
	return CutUTF8(content, MaxTextBytes-len(note)) + note
}

// CutWords cuts s to at most n characters, at a word boundary where there
// is one in the second half, marking the cut with "…"; s as it is when it
// fits.
func CutWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if sp := strings.LastIndexByte(cut, ' '); sp > n/2 {
		cut = cut[:sp]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}

// RestatedList is the restated argument as the RPCs take it: none when
// blank (a model may send "" for an optional argument).
func RestatedList(restated string) []string {
	if strings.TrimSpace(restated) == "" {
		return nil
	}
	return []string{restated}
}

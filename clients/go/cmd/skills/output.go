package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// jsonOptions writes messages with their proto field names (skill_path) and
// every field, so that empty lists are [] and absent strings "".
var jsonOptions = protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}

// messageJSON returns m as compact JSON.
func messageJSON(m proto.Message) (json.RawMessage, error) {
	b, err := jsonOptions.Marshal(m)
	if err != nil {
		return nil, err
	}
	// protojson's spacing is deliberately unstable: normalise it.
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// messagesJSON returns ms as a JSON array ([] when empty).
func messagesJSON[M proto.Message](ms []M) (json.RawMessage, error) {
	items := make([]json.RawMessage, 0, len(ms))
	for _, m := range ms {
		b, err := messageJSON(m)
		if err != nil {
			return nil, err
		}
		items = append(items, b)
	}
	return json.Marshal(items)
}

// writeMessage writes one message as indented JSON.
func writeMessage(w io.Writer, m proto.Message) error {
	b, err := messageJSON(m)
	if err != nil {
		return err
	}
	return writeJSONValue(w, b)
}

// writeMessages writes messages as an indented JSON array.
func writeMessages[M proto.Message](w io.Writer, ms []M) error {
	b, err := messagesJSON(ms)
	if err != nil {
		return err
	}
	return writeJSONValue(w, b)
}

// writeList answers a command that lists ms: as JSON with --json; else none
// on stderr when there are none; else table's rendering of them on stdout.
func writeList[M proto.Message](e *env, ms []M, none string, table func(io.Writer, []M, int)) error {
	if e.global.json {
		return writeMessages(e.stdout, ms)
	}
	if len(ms) == 0 {
		fmt.Fprintln(e.stderr, none)
		return nil
	}
	table(e.stdout, ms, e.width())
	return nil
}

// writeJSONValue writes v (any encoding/json value, json.RawMessage included)
// indented, with a final newline.
func writeJSONValue(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// defaultWidth is the line width used when neither COLUMNS nor the terminal
// says otherwise (output to a pipe or a file).
const defaultWidth = 100

// width is the line width to fit text tables in: COLUMNS when set, else the
// terminal's width when stdout is one, else defaultWidth.
func (e *env) width() int {
	if n, err := strconv.Atoi(strings.TrimSpace(e.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if n := terminalWidth(e.stdout); n > 0 {
		return n
	}
	return defaultWidth
}

// oneLine collapses runs of white space (newlines included) into one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// trim shortens s to at most n runes, ending with "…" when it cut.
func trim(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

// pad right-pads s with spaces to n runes.
func pad(s string, n int) string {
	if c := utf8.RuneCountInString(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// writeDescribed writes rows (the header first) as two columns and a
// description cut to fit width.
func writeDescribed(w io.Writer, rows [][3]string, width int) {
	const gap = 2
	w0, w1 := 0, 0
	for _, r := range rows {
		w0 = max(w0, utf8.RuneCountInString(r[0]))
		w1 = max(w1, utf8.RuneCountInString(r[1]))
	}
	descW := max(width-w0-w1-2*gap, 20)
	for _, r := range rows {
		fmt.Fprintln(w, strings.TrimRight(pad(r[0], w0+gap)+pad(r[1], w1+gap)+trim(oneLine(r[2]), descW), " "))
	}
}

// plural returns "1 skill" or "2 skills".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

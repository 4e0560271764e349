package skillsd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		done      bool
		help      bool
		usage     bool
		out, dirs string
	}{
		{args: nil},
		{args: []string{"--dir", "a", "--dir", "b"}, dirs: "a,b"},
		{args: []string{"--version"}, done: true, out: "1.2.3\n"},
		{args: []string{"-h"}, help: true},
		{args: []string{"--nope"}, usage: true},
		{args: []string{"--dir", "a", "extra"}, usage: true, dirs: "a"},
	} {
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var dirs Strings
		fs.Var(&dirs, "dir", "a folder (repeatable)")
		var out strings.Builder
		done, err := ParseFlags(fs, tc.args, "1.2.3", &out)
		var usage UsageError
		if done != tc.done || errors.Is(err, flag.ErrHelp) != tc.help || errors.As(err, &usage) != tc.usage ||
			(err != nil) != (tc.help || tc.usage) || out.String() != tc.out || dirs.String() != tc.dirs {
			t.Errorf("ParseFlags(%q) = %v, %v; printed %q, dirs %q", tc.args, done, err, out.String(), dirs.String())
		}
	}
}

func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{flag.ErrHelp, 0},
		{UsageError{Err: errors.New("unexpected argument")}, 2},
		{fmt.Errorf("run: %w", UsageError{Err: errors.New("bad flag")}), 2},
		{errors.New("listen: address in use"), 1},
	} {
		if got := ExitStatus(tc.err); got != tc.want {
			t.Errorf("ExitStatus(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

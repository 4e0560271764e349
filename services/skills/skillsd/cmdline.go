package skillsd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// What the binaries that embed the service (skillsd, skills-rest, skills)
// share on their command lines.

// Strings is a flag that may repeat, such as --skills-dir: each use adds its
// value, in order. Register it with flag.FlagSet.Var.
type Strings []string

// String is the values joined with commas.
func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set adds v.
func (s *Strings) Set(v string) error { *s = append(*s, v); return nil }

// UsageError is a mistake in a command line; the commands exit with status
// 2 on one.
type UsageError struct{ Err error }

// Error is the mistake.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake.
func (e UsageError) Unwrap() error { return e.Err }

// ExitStatus is the exit status of a command whose run ended with err: 0
// for none and for flag.ErrHelp (-h), 2 for a UsageError, 1 for any other.
func ExitStatus(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(UsageError)):
		return 2
	}
	return 1
}

// ParseFlags parses args, a command line of flags only, with fs, to which it
// adds --version. With --version it prints version to stdout and
// answers done: the command has nothing more to do. -h and -help answer
// flag.ErrHelp; any other mistake, an argument that is not a flag included,
// is a UsageError.
func ParseFlags(fs *flag.FlagSet, args []string, version string, stdout io.Writer) (done bool, err error) {
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, err
		}
		return false, UsageError{Err: err}
	}
	if fs.NArg() > 0 {
		return false, UsageError{Err: fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *showVersion {
		fmt.Fprintln(stdout, version)
		return true, nil
	}
	return false, nil
}

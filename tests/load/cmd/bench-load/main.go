// Command bench-load loads a running skillsd (gRPC) and skills-rest (REST)
// with searches and gets for a bounded time while the catalog is edited and
// rebuilt, then prints calls, errors, p50/p99 per surface and the servers'
// memory. `make bench-load` starts the servers (scripts/bench-load.sh).
//
//	bench-load --grpc ADDR --rest URL --catalog DIR [--duration 60s]
//	           [--concurrency 50] [--rebuild-every 2s] [--pid NAME=PID]...
//
// It exits 1 when a call failed or a catalog smaller than the first was
// served, 2 on a bad command line.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
	"github.com/skillsd/skillsd/tests/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "bench-load:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "bench-load:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

// pids is the repeatable --pid NAME=PID flag.
type pids map[string]int

func (p pids) String() string { return fmt.Sprint(map[string]int(p)) }

func (p pids) Set(v string) error {
	name, num, ok := strings.Cut(v, "=")
	pid, err := strconv.Atoi(num)
	if !ok || name == "" || err != nil || pid <= 0 {
		return fmt.Errorf("want NAME=PID, got %q", v)
	}
	p[name] = pid
	return nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts load.Options
	grpcAddr := fs.String("grpc", "", "skillsd's gRPC address (host:port)")
	fs.StringVar(&opts.REST, "rest", "", "skills-rest's base URL (http://host:port)")
	fs.StringVar(&opts.CatalogDir, "catalog", "", "the folder skillsd serves; the run edits its SKILL.md files (give it a copy)")
	fs.DurationVar(&opts.Duration, "duration", load.DefaultDuration, "how long the load runs")
	fs.IntVar(&opts.Concurrency, "concurrency", load.DefaultConcurrency, "workers, half on gRPC and half on REST")
	fs.DurationVar(&opts.RebuildEvery, "rebuild-every", load.DefaultRebuildEvery, "time between two catalog edits, each followed by RefreshSkills (negative: none)")
	p := pids{}
	fs.Var(p, "pid", "a server process whose memory is reported, as NAME=PID (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	case *grpcAddr == "" || opts.REST == "" || opts.CatalogDir == "":
		return usageError{errors.New("--grpc, --rest and --catalog are required")}
	case opts.Duration <= 0 || opts.Concurrency < 2:
		return usageError{errors.New("--duration must be positive and --concurrency at least 2")}
	}
	opts.PIDs = p
	opts.Progress = stderr
	conn, err := skillsclient.Dial(*grpcAddr, skillsclient.DialOptions{})
	if err != nil {
		return err
	}
	defer conn.Close()
	opts.Client = skillsclient.New(conn)
	rep, err := load.Run(ctx, opts)
	if err != nil {
		return err
	}
	if err := rep.Write(stdout); err != nil {
		return err
	}
	if n := rep.Errors(); n > 0 {
		return fmt.Errorf("%d calls or rebuilds failed", n)
	}
	if rep.MinSkills < rep.Skills {
		return fmt.Errorf("a catalog of %d skills was served during the load (%d before it)", rep.MinSkills, rep.Skills)
	}
	return nil
}

// Command crosscheck type-checks Go packages for other operating systems:
// for each GOOS it loads the packages and everything they import, the
// standard library included, from source, as `go build` would select the
// files there (build constraints, _windows.go and _darwin.go files, cgo off
// as in a cross build), and reports what would not build: a symbol or file
// missing on that system, any type error, an embed pattern that matches
// nothing, an import that does not resolve.
//
// It does not generate code or link, which is what makes it cheap (seconds
// where a cold `GOOS=windows go build` of the same packages takes minutes);
// `make cross-build` does the full build.
//
// Usage, from the directory whose go.mod or go.work the patterns belong to:
//
//	crosscheck [-os darwin,windows] [-arch amd64] PATTERN...
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

func main() {
	goos := flag.String("os", "darwin,windows", "comma-separated GOOS values to check")
	goarch := flag.String("arch", "amd64", "the GOARCH to check them with")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: crosscheck [-os darwin,windows] [-arch amd64] PATTERN...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	failed := false
	for _, o := range strings.Split(*goos, ",") {
		if !check(strings.TrimSpace(o), *goarch, flag.Args()) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// check type-checks patterns for one GOOS/GOARCH, prints the errors and a
// summary line, and reports whether there were none.
func check(goos, goarch string, patterns []string) bool {
	start := time.Now()
	cfg := &packages.Config{
		// NeedDeps with NeedTypes type-checks the imported packages from
		// source too (without it, go/packages compiles them for their
		// export data); NeedEmbedFiles makes go list resolve the embed
		// patterns, and report those that match nothing.
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedEmbedFiles,
		Env: append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "crosscheck: %s/%s: %v\n", goos, goarch, err)
		return false
	}
	n := 0
	packages.Visit(pkgs, nil, func(*packages.Package) { n++ })
	errs := packages.PrintErrors(pkgs)
	took := time.Since(start).Round(100 * time.Millisecond)
	if errs > 0 {
		fmt.Printf("crosscheck: %s/%s: %d errors in %d packages (%s)\n", goos, goarch, errs, n, took)
		return false
	}
	fmt.Printf("crosscheck: %s/%s: %d packages type-check (%d named, the rest imported), %s\n", goos, goarch, n, len(pkgs), took)
	return true
}

// Command oas3gen writes the OpenAPI 3 document of skills-rest from the
// OpenAPI 2 document protoc-gen-openapiv2 generates (make generate):
//
//	oas3gen IN.swagger.json OUT.json
package main

import (
	"fmt"
	"os"

	"github.com/skillsd/skillsd/gateways/rest/internal/oas3gen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "oas3gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: oas3gen IN.swagger.json OUT.json")
	}
	in, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	out, err := oas3gen.Convert(in)
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], out, 0o644)
}

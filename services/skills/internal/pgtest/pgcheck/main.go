// Command pgcheck says in one line whether the PostgreSQL tests will run
// (make unit runs it first): they use SKILLSD_TEST_DATABASE_URL, else the
// local default. With CI=true and no server it exits 1, as the tests would
// fail then too.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
)

func main() {
	os.Exit(run(os.Getenv("CI") == "true"))
}

func run(ci bool) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := pgtest.Check(ctx); err != nil {
		fmt.Println(pgtest.SkipMessage(err))
		if ci {
			fmt.Println("CI=true: the PostgreSQL tests may not be skipped")
			return 1
		}
		return 0
	}
	fmt.Println("PostgreSQL tests: server", pgtest.Redact(pgtest.ServerURL()))
	return 0
}

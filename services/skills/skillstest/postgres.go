package skillstest

import (
	"database/sql"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/pgtest"
)

// PostgresDatabase creates a database of the test's own on the test
// PostgreSQL server (SKILLSD_TEST_DATABASE_URL, else the machine's,
// postgres://postgres@127.0.0.1:5432) and returns its postgres:// URL; it is
// dropped when the test ends. Without a server the test is skipped, saying
// how to run it (it fails instead when CI=true).
func PostgresDatabase(t testing.TB) string { return pgtest.Database(t) }

// OpenPostgres opens dbURL for the test's own queries; closed when the test
// ends.
func OpenPostgres(t testing.TB, dbURL string) *sql.DB { return pgtest.Open(t, dbURL) }

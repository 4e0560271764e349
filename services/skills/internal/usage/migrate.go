package usage

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// The schema of each store is a numbered list of SQL files embedded in the
// binary: migrations/<dialect>/NNNN_name.sql, applied in order, each once,
// in one transaction with its record in usage_schema_migrations. A store
// whose database holds a version this binary does not know is refused.

//go:embed migrations
var migrationFiles embed.FS

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the dialect's migrations in order; their versions run
// 1, 2, … without a gap (a test checks).
func migrations(dialect string) ([]migration, error) {
	dir := path.Join("migrations", dialect)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %s/%s: want NNNN_name.sql", dir, name)
		}
		b, err := fs.ReadFile(migrationFiles, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if v != len(out)+1 {
			return nil, fmt.Errorf("migration %s/%s: want version %d", dir, name, len(out)+1)
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(b)})
	}
	return out, nil
}

const migrationsTable = `CREATE TABLE IF NOT EXISTS usage_schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at BIGINT NOT NULL
)`

// newerSchemaError is the refusal of a database migrated by a newer skillsd.
func newerSchemaError(where string, have, known int) error {
	return failure.New(failure.FailedPrecondition, "",
		"the usage store %s is at schema version %d, but this skillsd knows versions up to %d: "+
			"a newer skillsd migrated it. Upgrade this skillsd (or point analytics.store at another database)", where, have, known)
}

// migrateTx brings the schema of the database tx works in to the last of
// ms, in tx (the caller holds whatever lock makes it the only migrator and
// commits). It returns how many migrations it applied.
func migrateTx(ctx context.Context, tx *sql.Tx, d *dialect, where string, ms []migration) (int, error) {
	if _, err := tx.ExecContext(ctx, migrationsTable); err != nil {
		return 0, err
	}
	var have sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM usage_schema_migrations`).Scan(&have); err != nil {
		return 0, err
	}
	if int(have.Int64) > len(ms) {
		return 0, newerSchemaError(where, int(have.Int64), len(ms))
	}
	applied := 0
	for _, m := range ms[have.Int64:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return applied, fmt.Errorf("schema migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, d.rebind(`INSERT INTO usage_schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			m.version, m.name, time.Now().UnixNano()); err != nil {
			return applied, fmt.Errorf("schema migration %s: %w", m.name, err)
		}
		applied++
	}
	return applied, nil
}

// migrateIn brings the store's schema to this binary's version in one
// transaction: first (when set) runs before the migrations, then (when set)
// after them.
func (s *sqlStore) migrateIn(ctx context.Context, first, then func(*sql.Tx) error) (int, error) {
	ms, err := migrations(s.d.name)
	if err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	if first != nil {
		if err := first(tx); err != nil {
			return 0, err
		}
	}
	n, err := migrateTx(ctx, tx, s.d, s.where, ms)
	if err != nil {
		return 0, err
	}
	if then != nil {
		if err := then(tx); err != nil {
			return 0, err
		}
	}
	return n, tx.Commit()
}

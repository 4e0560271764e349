package usage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Defaults of OpenPostgres.
const (
	defaultPostgresConns   = 8
	defaultConnectTimeout  = 5 * time.Second
	startMigrationDeadline = 30 * time.Second
)

// migrationLockKey is the PostgreSQL advisory lock the migrators of one
// database take: "skillsd" in ASCII.
const migrationLockKey int64 = 0x736b696c6c7364

var postgresDialect = &dialect{
	name:     "postgres",
	greatest: "GREATEST",
	least:    "LEAST",
	numbered: true,
	// One snapshot for all the queries of a Stats call.
	readTx: &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true},
	retryable: func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001") // deadlock, serialization
	},
	unreachable: postgresUnreachable,
}

// postgresUnreachable reports an error of the connection rather than of
// the statement: the server cannot be reached, went away, refuses
// connections for now, or the database is gone.
func postgresUnreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code[:2] {
		case "08", // connection exception
			"53", // insufficient resources (too many connections, disk full)
			"57", // operator intervention (shutdown, terminated connection)
			"58", // system error
			"3D", // the database does not exist (dropped)
			"28": // authorization (a password changed)
			return true
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "conn closed")
}

// refusedAtStart reports an answer of the server that a retry will not
// change: wrong credentials, no such database.
func refusedAtStart(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code[:2] == "28" || pe.Code == "3D000")
}

// isPostgresURL reports whether s names a PostgreSQL database (a
// postgres:// or postgresql:// URL).
func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// OpenPostgres opens the PostgreSQL store at the database of rawURL (a
// postgres:// URL; libpq's parameters and PG* variables apply, as in
// pgx.ParseConfig) and brings its schema to this binary's version, under an
// advisory lock so that replicas starting together migrate once.
//
// When the database cannot be reached at start, the store is returned all
// the same (skills keep being served; events wait in the spool) and
// migrates on its first successful use; its calls fail as Unavailable until
// then. A database that refuses the connection (credentials, no such
// database), or holds a newer schema than this binary knows, is an error.
func OpenPostgres(ctx context.Context, rawURL string, opts StoreOptions) (Store, error) {
	log := opts.logger()
	if !isPostgresURL(rawURL) {
		return nil, errors.New("the usage database must be a postgres:// or postgresql:// URL")
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("the usage database URL does not parse: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = defaultConnectTimeout
	}
	var query url.Values
	if u, err := url.Parse(rawURL); err == nil {
		query = u.Query()
	}
	if !query.Has("default_query_exec_mode") {
		// No server-side prepared statements: the statements of a batch
		// vary in length, and this works through PgBouncer's transaction
		// pooling too.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	if !query.Has("jit") {
		// The statistics queries are short: compiling them (which the
		// server starts above a cost, as data grows) costs more than it
		// saves.
		cfg.RuntimeParams["jit"] = "off"
	}
	db := stdlib.OpenDB(*cfg)
	conns := opts.MaxConns
	if conns <= 0 {
		conns = defaultPostgresConns
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(min(conns, 2))
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)
	s := &sqlStore{db: db, d: postgresDialect, where: describePostgres(cfg), log: log}
	s.migrate = s.migratePostgres

	mctx, cancel := context.WithTimeout(ctx, startMigrationDeadline)
	defer cancel()
	err = s.ensureReady(mctx)
	switch {
	case err == nil:
		return s, nil
	case ctx.Err() != nil:
		_ = db.Close()
		return nil, ctx.Err()
	case isFailure(err) || refusedAtStart(err) || !postgresUnreachable(err):
		_ = db.Close()
		return nil, fmt.Errorf("the usage database %s: %w", s.where, err)
	}
	log.Warn("the usage database cannot be reached; skills are served, events wait in the spool, and usage statistics answer UNAVAILABLE until it is back",
		"store", s.where, "err", err)
	return s, nil
}

// describePostgres names the database of cfg for messages and logs:
// host, port and database, never the password.
func describePostgres(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("postgres://%s/%s", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port)), cfg.Database)
}

// migratePostgres applies the migrations in one transaction that first
// takes the database's migration lock: of replicas starting together, one
// migrates and the others wait, then find nothing to do.
func (s *sqlStore) migratePostgres(ctx context.Context) (int, error) {
	return s.migrateIn(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey)
		return err
	}, nil)
}

// Package pgtest gives tests a real PostgreSQL database of their own.
//
// The server is SKILLSD_TEST_DATABASE_URL, else the local default
// (postgres://postgres@127.0.0.1:5432/test?sslmode=disable). Database
// creates a fresh database there for one test and drops it when the test
// ends. When no server answers, the test is skipped with a line saying how
// to run it, unless CI=true: then it fails, so that CI never passes with the
// PostgreSQL tests quietly skipped.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// EnvURL names the variable that points the tests at a server.
const EnvURL = "SKILLSD_TEST_DATABASE_URL"

// DefaultURL is the server tried when EnvURL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// prefix starts the name of every database Database creates, followed by
// its creation time in Unix seconds.
const prefix = "skillsd_t_"

// staleAfter is the age after which a test database left behind by a
// killed test run is dropped.
const staleAfter = 6 * time.Hour

// ServerURL is the URL of the test server (EnvURL, else DefaultURL).
func ServerURL() string {
	if u := strings.TrimSpace(os.Getenv(EnvURL)); u != "" {
		return u
	}
	return DefaultURL
}

// Check connects to the test server and reports why it cannot.
func Check(ctx context.Context) error {
	conn, err := connect(ctx, ServerURL())
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// SkipMessage is the line of a skipped PostgreSQL test.
func SkipMessage(err error) string {
	return fmt.Sprintf("PostgreSQL tests skipped: no server at %s (%s); to run them, set %s to a postgres:// URL of a server where tests may create databases",
		Redact(ServerURL()), strings.Join(strings.Fields(err.Error()), " "), EnvURL)
}

// Redact is a URL without its password.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	return u.String()
}

func connect(ctx context.Context, serverURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(serverURL)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 5*time.Second {
		cfg.ConnectTimeout = 5 * time.Second
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// server connects to the test server, or skips (fails when CI=true).
func server(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := connect(context.Background(), ServerURL())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the PostgreSQL tests cannot run: %s", SkipMessage(err))
		}
		t.Skip(SkipMessage(err))
	}
	return conn
}

// Database creates an empty database on the test server and returns its
// URL; it is dropped (connections and all) when t ends.
func Database(t testing.TB) string {
	t.Helper()
	conn := server(t)
	ctx := context.Background()
	defer func() { _ = conn.Close(ctx) }()
	dropStale(ctx, conn)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("%s%d_%s", prefix, time.Now().Unix(), hex.EncodeToString(b[:]))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating the test database %s: %v", name, err)
	}
	t.Cleanup(func() { Drop(t, name) })
	return WithDatabase(t, ServerURL(), name)
}

// Drop drops the database name (terminating its connections), if it exists.
func Drop(t testing.TB, name string) {
	t.Helper()
	ctx := context.Background()
	conn, err := connect(ctx, ServerURL())
	if err != nil {
		t.Errorf("dropping the test database %s: %v", name, err)
		return
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Errorf("dropping the test database %s: %v", name, err)
	}
}

// Terminate ends every connection to the database name but this one's,
// as an administrator or a failover would.
func Terminate(t testing.TB, name string) {
	t.Helper()
	ctx := context.Background()
	conn := server(t)
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name); err != nil {
		t.Fatalf("terminating the connections to %s: %v", name, err)
	}
}

// dropStale drops the test databases older than staleAfter (left by a test
// run that was killed before its cleanup).
func dropStale(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", prefix)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, n := range names {
		ts, _, _ := strings.Cut(strings.TrimPrefix(n, prefix), "_")
		sec, err := strconv.ParseInt(ts, 10, 64)
		if err == nil && time.Since(time.Unix(sec, 0)) > staleAfter {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize()+" WITH (FORCE)")
		}
	}
}

// WithDatabase is serverURL naming the database name instead.
func WithDatabase(t testing.TB, serverURL, name string) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", EnvURL)
	}
	u.Path = "/" + name
	return u.String()
}

// DatabaseName is the database a postgres:// URL names.
func DatabaseName(t testing.TB, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Open opens dbURL for a test's own queries; closed when t ends.
func Open(t testing.TB, dbURL string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(2)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// Proxy is a TCP proxy to the test server on a loopback port: closing it
// cuts the connections through it and refuses new ones, as a database that
// went away does; Reopen listens on the same port again.
type Proxy struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the host of dbURL; closed when t ends.
func NewProxy(t testing.TB, dbURL string) *Proxy {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	p := &Proxy{t: t, target: net.JoinHostPort(u.Hostname(), port), conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Close)
	return p
}

// URL is dbURL pointed at the proxy.
func (p *Proxy) URL(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln { // closed meanwhile
				p.mu.Unlock()
				_ = c.Close()
				_ = up.Close()
				continue
			}
			p.conns[c], p.conns[up] = struct{}{}, struct{}{}
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
}

func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	p.wg.Wait()
}

// Reopen listens on the same port again.
func (p *Proxy) Reopen() {
	p.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port may linger for a moment
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("reopening the proxy on %s: %v", p.addr, err)
	}
	p.serve(ln)
}

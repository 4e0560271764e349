package edge

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// TLSFiles are a server's certificate files (PEM).
type TLSFiles struct {
	// CertFile is the certificate chain, leaf first; with KeyFile it turns TLS on.
	CertFile string
	// KeyFile is the leaf's private key.
	KeyFile string
	// ClientCAFile, when set, makes client certificates required and
	// verified against these CAs (mutual TLS).
	ClientCAFile string
}

// Enabled reports whether TLS is asked for.
func (f TLSFiles) Enabled() bool { return f.CertFile != "" || f.KeyFile != "" || f.ClientCAFile != "" }

// fileStamp tells whether a file changed: a renewed certificate is written in
// place or renamed over the old one, and either changes one of these.
type fileStamp struct {
	mod  time.Time
	size int64
	ino  uint64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size(), ino: inode(fi)}, nil
}

// certSource serves a certificate (and client CAs) that it re-reads when the
// files change on disk: every handshake compares the files' stamps, and a
// change loads them again. A renewal caught half-written (a key that does not
// match the certificate) keeps the previous pair serving and is logged once.
type certSource struct {
	files TLSFiles
	log   *slog.Logger

	mu     sync.Mutex
	stamps [3]fileStamp
	failed [3]fileStamp // the stamps of the last failed load, logged once
	cert   *tls.Certificate
	pool   *x509.CertPool
}

// newCertSource loads the files once: a missing or broken file is an error
// (naming from, the setting the files came from) that stops start-up.
func newCertSource(files TLSFiles, from string, log *slog.Logger) (*certSource, error) {
	if files.CertFile == "" || files.KeyFile == "" {
		return nil, fmt.Errorf("%s: TLS needs both a certificate and its key (--tls-cert and --tls-key, tls.cert_file and tls.key_file)", from)
	}
	c := &certSource{files: files, log: log}
	stamps, cert, pool, err := c.load()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	c.stamps, c.cert, c.pool = stamps, cert, pool
	return c, nil
}

// load reads the files.
func (c *certSource) load() ([3]fileStamp, *tls.Certificate, *x509.CertPool, error) {
	var stamps [3]fileStamp
	var err error
	for i, p := range []string{c.files.CertFile, c.files.KeyFile, c.files.ClientCAFile} {
		if p == "" {
			continue
		}
		if stamps[i], err = stampOf(p); err != nil {
			return stamps, nil, nil, fmt.Errorf("reading TLS file: %w", err)
		}
	}
	pair, err := tls.LoadX509KeyPair(c.files.CertFile, c.files.KeyFile)
	if err != nil {
		return stamps, nil, nil, fmt.Errorf("loading the certificate %s and key %s: %w", c.files.CertFile, c.files.KeyFile, err)
	}
	var pool *x509.CertPool
	if c.files.ClientCAFile != "" {
		if pool, err = readPool(c.files.ClientCAFile); err != nil {
			return stamps, nil, nil, err
		}
	}
	return stamps, &pair, pool, nil
}

// current returns the certificate and CAs to use, reloading them first when
// a file changed.
func (c *certSource) current() (*tls.Certificate, *x509.CertPool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var now [3]fileStamp
	for i, p := range []string{c.files.CertFile, c.files.KeyFile, c.files.ClientCAFile} {
		if p != "" {
			now[i], _ = stampOf(p) // a file missing for a moment (being replaced) reads as changed
		}
	}
	if now == c.stamps || now == c.failed {
		return c.cert, c.pool
	}
	stamps, cert, pool, err := c.load()
	if err != nil {
		c.failed = now
		c.log.Warn("TLS files changed but could not be loaded; still serving the previous certificate", "cert", c.files.CertFile, "error", err)
		return c.cert, c.pool
	}
	c.stamps, c.cert, c.pool, c.failed = stamps, cert, pool, [3]fileStamp{}
	c.log.Info("TLS certificate reloaded", "cert", c.files.CertFile, "not_after", cert.Leaf.NotAfter)
	return c.cert, c.pool
}

// config is the server's TLS configuration: every handshake gets the current
// certificate and client CAs.
func (c *certSource) config() *tls.Config {
	base := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	base.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		cert, pool := c.current()
		cfg := base.Clone()
		cfg.GetConfigForClient = nil
		cfg.Certificates = []tls.Certificate{*cert}
		if pool != nil {
			cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
		}
		return cfg, nil
	}
	return base
}

func readPool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", file)
	}
	return pool, nil
}

// ClientTLS configures TLS towards a remote skillsd (a gateway's --server,
// the skills CLI): the zero value is no TLS.
type ClientTLS struct {
	// Enabled turns TLS on with the system's roots; CAFile, CertFile or
	// KeyFile turn it on too.
	Enabled bool
	// CAFile is a PEM bundle of the CAs to trust instead of the system's.
	CAFile string
	// CertFile and KeyFile are a client certificate, for a server that asks
	// for one (mutual TLS).
	CertFile, KeyFile string
	// ServerName overrides the name checked in the server's certificate;
	// empty is the host of the address dialled.
	ServerName string
}

// On reports whether TLS is asked for.
func (c ClientTLS) On() bool {
	return c.Enabled || c.CAFile != "" || c.CertFile != "" || c.KeyFile != ""
}

// Config builds the client's *tls.Config; nil (and no error) when TLS is off.
func (c ClientTLS) Config() (*tls.Config, error) {
	if !c.On() {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pool, err := readPool(c.CAFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case c.CertFile != "" && c.KeyFile != "":
		pair, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading the client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case c.CertFile != "" || c.KeyFile != "":
		return nil, errors.New("a client certificate needs both its file and its key")
	}
	return cfg, nil
}

// Register adds the flags of a connection to a remote skillsd to fs:
// --server-tls, --server-ca, --client-cert and --client-key.
func (c *ClientTLS) Register(fs *flag.FlagSet) {
	fs.BoolVar(&c.Enabled, "server-tls", false, "reach --server over TLS, trusting the system's CAs")
	fs.StringVar(&c.CAFile, "server-ca", "", "reach --server over TLS, trusting the CAs of this PEM `FILE` (implies --server-tls)")
	fs.StringVar(&c.CertFile, "client-cert", "", "the certificate `FILE` (PEM) to present to --server, when it asks for one (mutual TLS)")
	fs.StringVar(&c.KeyFile, "client-key", "", "the private key `FILE` of --client-cert")
}

package skillsclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/skillsd/skillsd/services/skills/upstream"
)

// DialOptions say how [Dial] reaches a skillsd. The zero value is a
// plaintext connection without a token (a server on loopback).
type DialOptions struct {
	// Token is sent as "authorization: Bearer <token>" with every call;
	// empty sends none.
	Token string
	// TLS turns TLS on, trusting the system's CAs; CAFile, CertFile and
	// KeyFile turn it on too.
	TLS bool
	// CAFile is a PEM bundle of the CAs to trust instead of the system's
	// (a server certificate of a private CA).
	CAFile string
	// CertFile and KeyFile are a client certificate (PEM), for a server
	// that asks for one (mutual TLS).
	CertFile, KeyFile string
	// ServerName overrides the name checked in the server's certificate;
	// empty is the host of the target (of each replica's address, for a
	// list).
	ServerName string
	// Extra are more grpc.DialOptions, applied last.
	Extra []grpc.DialOption
}

// Dial connects to the skillsd at target as opts say. target is host:port
// (or any gRPC target), dialed as before; or several replicas, dns:///host:port
// or a comma-separated list (a:1,b:2,c:3), over which calls are balanced
// round-robin, unhealthy replicas skipped and reads retried on UNAVAILABLE
// (package upstream). A malformed list is an error. It reads the certificate files at once: a missing or broken file
// is an error. The caller closes the connection; pass it to [New].
func Dial(target string, opts DialOptions) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	secure := opts.TLS || opts.CAFile != "" || opts.CertFile != "" || opts.KeyFile != ""
	if secure {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: opts.ServerName}
		if opts.CAFile != "" {
			pem, err := os.ReadFile(opts.CAFile)
			if err != nil {
				return nil, fmt.Errorf("skillsclient: reading the CA file: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("skillsclient: CA file %s holds no PEM certificate", opts.CAFile)
			}
		}
		switch {
		case opts.CertFile != "" && opts.KeyFile != "":
			pair, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("skillsclient: loading the client certificate: %w", err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		case opts.CertFile != "" || opts.KeyFile != "":
			return nil, errors.New("skillsclient: a client certificate needs both CertFile and KeyFile")
		}
		creds = credentials.NewTLS(cfg)
	}
	dialOpts := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if opts.Token != "" {
		dialOpts = append(dialOpts, grpc.WithPerRPCCredentials(bearer{token: opts.Token, secure: secure}))
	}
	conn, err := upstream.Dial(target, append(dialOpts, opts.Extra...)...)
	if err != nil {
		return nil, fmt.Errorf("skillsclient: target: %w", err)
	}
	return conn, nil
}

// bearer sends the token with every call.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

// RequireTransportSecurity is true over TLS, so that gRPC never sends the
// token in clear on a connection that was meant to be secure.
func (b bearer) RequireTransportSecurity() bool { return b.secure }

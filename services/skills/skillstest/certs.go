package skillstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority made for one test: it signs server and
// client certificates written as PEM files in the test's folder.
type CA struct {
	t    testing.TB
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// File is the CA's certificate (PEM): what clients trust, or what a
	// server checks client certificates against.
	File   string
	serial int64
}

// NewCA makes a CA named name.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{t: t, dir: t.TempDir(), cert: cert, key: key, serial: 1}
	ca.File = ca.write(name+"-ca.pem", "CERTIFICATE", der)
	return ca
}

// Pair is a certificate and its key, as PEM files.
type Pair struct {
	CertFile, KeyFile string
	// Serial tells two certificates of one CA apart.
	Serial int64
}

// Server signs a server certificate for 127.0.0.1, ::1 and localhost.
func (ca *CA) Server(name string) Pair {
	ca.t.Helper()
	return ca.sign(name, x509.ExtKeyUsageServerAuth)
}

// Client signs a client certificate (mutual TLS) for name.
func (ca *CA) Client(name string) Pair {
	ca.t.Helper()
	return ca.sign(name, x509.ExtKeyUsageClientAuth)
}

// WriteServer signs a new server certificate into the files of p (a
// renewal in place): a server that reloads its files serves the new one.
func (ca *CA) WriteServer(p Pair) Pair {
	ca.t.Helper()
	n := ca.sign("renewed", x509.ExtKeyUsageServerAuth)
	for _, f := range [][2]string{{n.CertFile, p.CertFile}, {n.KeyFile, p.KeyFile}} {
		data, err := os.ReadFile(f[0])
		if err != nil {
			ca.t.Fatal(err)
		}
		// Write beside, then rename: a reader never sees half a file.
		tmp := f[1] + ".new"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			ca.t.Fatal(err)
		}
		if err := os.Rename(tmp, f[1]); err != nil {
			ca.t.Fatal(err)
		}
	}
	return Pair{CertFile: p.CertFile, KeyFile: p.KeyFile, Serial: n.Serial}
}

func (ca *CA) sign(name string, usage x509.ExtKeyUsage) Pair {
	ca.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ca.t.Fatal(err)
	}
	ca.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	if usage == x509.ExtKeyUsageServerAuth {
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		ca.t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		ca.t.Fatal(err)
	}
	base := name + "-" + big.NewInt(ca.serial).String()
	return Pair{
		CertFile: ca.write(base+".pem", "CERTIFICATE", der),
		KeyFile:  ca.write(base+"-key.pem", "EC PRIVATE KEY", keyDER),
		Serial:   ca.serial,
	}
}

func (ca *CA) write(name, kind string, der []byte) string {
	ca.t.Helper()
	p := filepath.Join(ca.dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		ca.t.Fatal(err)
	}
	return p
}

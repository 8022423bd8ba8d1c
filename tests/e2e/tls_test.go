package e2e

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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCertificate writes a self-signed certificate and its key for
// 127.0.0.1 as PEM files in dir.
func writeCertificate(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestPsqlOverTLS: started with a certificate and --tls-required, the
// server serves psql with sslmode=require (and verify-ca against the
// certificate) over TLS, and refuses it in the clear with the reason.
func TestPsqlOverTLS(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatal("psql is required (apt-get install postgresql-client)")
	}
	dir := t.TempDir()
	cert, key := writeCertificate(t, dir)
	s := startBinary(t, "--tls-cert", cert, "--tls-key", key, "--tls-required")
	s.env = []string{"PGSSLMODE=require"}
	s.expect("SELECT 1", "1")
	s.env = []string{"PGSSLMODE=verify-ca", "PGSSLROOTCERT=" + cert}
	s.expect("SELECT 2", "2")
	s.env = []string{"PGSSLMODE=disable"}
	out, err := s.psql("SELECT 3")
	if err == nil || !strings.Contains(out, "the server requires SSL") {
		t.Fatalf("psql in the clear: %v\n%s", err, out)
	}
	s.stop(os.Interrupt)

	// A key that does not match the certificate stops the server at once
	// with the reason.
	_, other := writeCertificate(t, t.TempDir())
	out2, err := exec.Command(s.bin, "--listen", freeAddr(t), "--data-dir", t.TempDir(), "--tls-cert", cert, "--tls-key", other).CombinedOutput()
	if err == nil || !strings.Contains(string(out2), "bad TLS settings") {
		t.Fatalf("a mismatched key: %v\n%s", err, out2)
	}
}

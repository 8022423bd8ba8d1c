package main

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// loadTLS builds the server's TLS configuration from a certificate and
// key file, or returns nil when neither is given. TLS 1.2 is the oldest
// version offered, as in PostgreSQL's default ssl_min_protocol_version.
func loadTLS(certFile, keyFile string, required bool) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		if required {
			return nil, errors.New("--tls-required needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

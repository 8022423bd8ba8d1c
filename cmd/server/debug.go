package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// serveDebug serves Go's profiles (net/http/pprof) on addr until ctx
// ends. The profiles show the server's code and data, so addr must be a
// loopback address.
func serveDebug(ctx context.Context, addr string, logger *slog.Logger) (net.Addr, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, fmt.Errorf("--debug-listen: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	addPprof(mux)
	serveMux(ctx, ln, mux, "debug listener", logger)
	return ln.Addr(), nil
}

// checkLoopback refuses an address whose host is not a loopback IP or
// "localhost".
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q: what it serves must stay on a loopback address (127.0.0.1, ::1, localhost)", addr)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"freshet/coord"
)

// defaultHTTPListen is --http-listen's default: loopback, next to the
// SQL port.
const defaultHTTPListen = "127.0.0.1:6876"

// serveHTTP serves, on addr until ctx ends: Prometheus metrics
// (/metrics), a health check (/healthz: 200 while the server serves and
// storage takes writes, 503 otherwise), and Go's profiles
// (/debug/pprof/). Any other path is 404. What it shows is not guarded
// by the SQL port's roles, so addr must be a loopback address unless
// insecure.
func serveHTTP(ctx context.Context, addr string, insecure bool, sup *coord.Supervisor, logger *slog.Logger) (net.Addr, error) {
	if err := checkLoopback(addr); err != nil && !insecure {
		return nil, fmt.Errorf("--http-listen: %w (give --insecure to serve it on another address)", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(sup.Metrics().Registry(), promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := sup.Healthy(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	addPprof(mux)
	serveMux(ctx, ln, mux, "http listener", logger)
	return ln.Addr(), nil
}

// addPprof adds Go's profiles under /debug/pprof/.
func addPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// serveMux serves mux on ln until ctx ends.
func serveMux(ctx context.Context, ln net.Listener, mux *http.ServeMux, what string, logger *slog.Logger) {
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			logger.Error(what+" failed", "error", err)
		}
	}()
	context.AfterFunc(ctx, func() { srv.Close() })
}

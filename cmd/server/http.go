package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"freshet/coord"
)

// defaultHTTPListen is --http-listen's default: loopback, next to the
// SQL port.
const defaultHTTPListen = "127.0.0.1:6876"

// serveHTTP serves, on addr until ctx ends: the web console (/ and
// /api/), Prometheus metrics (/metrics), a health check (/healthz: 200
// while the server serves and storage takes writes, 503 otherwise), and
// Go's profiles (/debug/pprof/). Any other path is 404. What it shows is not guarded
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
	addConsole(mux, sup)
	serveMux(ctx, ln, mux, "http listener", logger)
	return ln.Addr(), nil
}

//go:embed console/index.html
var consolePage []byte

// consoleWait is the longest an event response waits for the state to
// change; consoleRetry is the delay the browser waits before the next.
const (
	consoleWait  = time.Second
	consoleRetry = 500 * time.Millisecond
)

// addConsole adds the web console: the page at /, and the JSON it reads:
// /api/state (ConsoleState), /api/graph?object=ID (ConsoleGraph) and
// /api/events, server-sent events of the state as it changes, from
// subscriptions over the introspection relations (coord.ConsoleEvents).
func addConsole(mux *http.ServeMux, sup *coord.Supervisor) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(consolePage)
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		st := sup.ConsoleState(r.Context())
		if st == nil {
			http.Error(w, "the server is restarting", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, st)
	})
	mux.HandleFunc("GET /api/graph", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseUint(r.URL.Query().Get("object"), 10, 64)
		if err != nil {
			http.Error(w, "object: want an object id", http.StatusBadRequest)
			return
		}
		g, ok := sup.ConsoleGraph(r.Context(), id)
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, g)
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		// One event a response: the state once it has moved past the
		// version the client has (EventSource sends the last event's id
		// as Last-Event-ID when it connects again), or after
		// consoleWait as it is. The retry delay makes the browser
		// connect again at once; no response stays open longer than
		// consoleWait.
		after, _ := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64)
		st, version, err := sup.ConsoleEvents(r.Context(), after, consoleWait)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		if st == nil {
			// The feed has no state yet: no event, only the delay.
			fmt.Fprintf(w, "retry: %d\n\n", consoleRetry.Milliseconds())
			return
		}
		b, err := json.Marshal(st)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "id: %d\nretry: %d\ndata: %s\n\n", version, consoleRetry.Milliseconds(), b)
	})
}

// writeJSON writes v as the response's JSON body.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
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

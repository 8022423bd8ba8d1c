// Command server runs Freshet: a Postgres-wire SQL server whose
// materialized views are incremental dataflows.
//
//	go run ./cmd/server [--listen 127.0.0.1:6875] [--data-dir ./freshet-data] [--workers N]
//
// It keeps its data in embedded storage in --data-dir and needs no other
// service. SIGINT or SIGTERM shut it down cleanly.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"freshet/coord"
	"freshet/pgwire"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:6875", "address to accept Postgres connections on")
	dataDir := flag.String("data-dir", "./freshet-data", "directory for the server's data")
	workers := flag.Int("workers", runtime.NumCPU(), "number of dataflow workers")
	maxConns := flag.Int("max-connections", pgwire.DefaultMaxConnections, "sessions served at once; more are refused with 53300")
	reserved := flag.Int("superuser-reserved-connections", 3, "of --max-connections, the slots only superusers may take")
	faults := flag.Bool("unsafe-fault-injection", false, "allow SET freshet_inject_fault, which fails a dataflow on purpose (tests only)")
	memLimit := flag.String("memory-limit", "", "live heap past which the newest queries are canceled with 53200, also Go's soft memory limit (default: 3/4 of the machine's memory; 0: none)")
	tlsCert := flag.String("tls-cert", "", "PEM certificate (chain) file: with --tls-key, clients may connect over TLS (sslmode=require)")
	tlsKey := flag.String("tls-key", "", "PEM private key file of --tls-cert")
	debugListen := flag.String("debug-listen", "", "loopback address to serve Go's profiles on (net/http/pprof), e.g. 127.0.0.1:6060; off by default")
	tlsRequired := flag.Bool("tls-required", false, "refuse sessions that do not use TLS (FATAL 28000); needs --tls-cert and --tls-key")
	authFlag := flag.String("auth", "auto", "how sessions authenticate: auto (trust on loopback, scram-sha-256 from any other address), trust, or scram")
	insecure := flag.Bool("insecure", false, "allow --auth trust, or --http-listen, on an address other than loopback")
	httpListen := flag.String("http-listen", defaultHTTPListen, "loopback address to serve /metrics (Prometheus), /healthz and /debug/pprof on; empty: none")
	flag.Parse()
	httpExplicit := false
	flag.Visit(func(f *flag.Flag) { httpExplicit = httpExplicit || f.Name == "http-listen" })
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	auth, ok := coord.ParseAuthMode(*authFlag)
	if !ok {
		logger.Error("bad --auth: want auto, trust or scram", "auth", *authFlag)
		os.Exit(2)
	}
	if auth == coord.AuthTrust && !*insecure && !loopbackListen(*listen) {
		logger.Error("--auth trust on an address other than loopback lets anyone in as any user; give --insecure to do it anyway", "listen", *listen)
		os.Exit(2)
	}
	tlsConfig, err := loadTLS(*tlsCert, *tlsKey, *tlsRequired)
	if err != nil {
		logger.Error("bad TLS settings", "error", err)
		os.Exit(2)
	}
	limit := defaultMemoryLimit()
	if *memLimit != "" {
		var err error
		if limit, err = parseSize(*memLimit); err != nil {
			logger.Error("bad --memory-limit", "error", err)
			os.Exit(2)
		}
	}
	if limit > 0 {
		// The collector works harder as the heap nears the limit, which
		// keeps garbage from being what pushes the server over it.
		debug.SetMemoryLimit(limit)
	}
	cfg := coord.Config{Workers: *workers, DataDir: *dataDir, Logger: logger, FaultInjection: *faults, MemoryLimit: limit}
	if *reserved < 0 || *reserved >= max(*maxConns, 1) {
		logger.Error("--superuser-reserved-connections must be at least 0 and less than --max-connections", "reserved", *reserved, "max_connections", *maxConns)
		os.Exit(2)
	}
	srv := &pgwire.Server{Logger: logger, MaxConnections: *maxConns, SuperuserReservedConnections: *reserved, TLSConfig: tlsConfig, RequireTLS: *tlsRequired}
	web := httpOptions{addr: *httpListen, explicit: httpExplicit, insecure: *insecure}
	if err := run(*listen, *debugListen, web, cfg, srv, auth, logger); err != nil {
		logger.Error("server failed", "error", err)
		os.Exit(1)
	}
}

// httpOptions are --http-listen's: the address, whether it was given
// (the default address may be taken, which only costs the metrics), and
// --insecure.
type httpOptions struct {
	addr               string
	explicit, insecure bool
}

func run(listen, debugListen string, web httpOptions, cfg coord.Config, srv *pgwire.Server, auth coord.AuthMode, logger *slog.Logger) error {
	dataDir, workers := cfg.DataDir, cfg.Workers
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	// Each engine opened, at the start and after a restart in place,
	// leaves a replay's garbage behind (returnIdleMemory).
	opened := make(chan struct{}, 1)
	cfg.OnOpen = func() {
		select {
		case opened <- struct{}{}:
		default:
		}
	}
	paceCollector(ctx, nil)
	if debugListen != "" {
		addr, err := serveDebug(ctx, debugListen, logger)
		if err != nil {
			return err
		}
		logger.Info("serving profiles", "url", "http://"+addr.String()+"/debug/pprof/")
	}
	// The supervisor restarts the engine in place once a storage fault
	// (a full disk, an I/O error) has cleared.
	sup, err := coord.Supervise(ctx, cfg, auth)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dataDir, err)
	}
	defer sup.Close()
	go returnIdleMemory(ctx, time.Second, opened, sup.Metrics().Statements)
	if web.addr != "" {
		addr, err := serveHTTP(ctx, web.addr, web.insecure, sup, logger)
		switch {
		case err == nil:
			logger.Info("serving metrics", "url", "http://"+addr.String()+"/metrics")
		case web.explicit:
			return err
		default:
			logger.Warn("no metrics: the default --http-listen address is not available", "addr", web.addr, "error", err)
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	logger.Info("freshet is ready", "listen", ln.Addr().String(), "data_dir", dataDir, "workers", workers, "tls", srv.TLSConfig != nil)
	srv.Backend = sup
	srv.Auth = sup
	err = srv.Serve(ctx, ln)
	logger.Info("freshet is shutting down")
	return err
}

// loopbackListen reports whether listen is an address only this machine
// can reach: a loopback IP, or localhost.
func loopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

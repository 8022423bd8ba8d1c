package coord

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"freshet/pgwire"
	"freshet/scram"
	"freshet/sqlerr"
)

// storageCheckEvery is how often a Supervisor looks at its engine's
// storage, and, while it has failed, probes whether the fault cleared.
var storageCheckEvery = time.Second

// errRecovering is what a client that connects while the engine restarts
// after a storage fault receives, in PostgreSQL's words for a server in
// crash recovery.
var errRecovering = sqlerr.New(sqlerr.CannotConnectNow, "the database system is in recovery mode").
	WithSeverity(sqlerr.SeverityFatal)

// errStorageRecovery ends the sessions of an engine restarted after a
// storage fault, as PostgreSQL ends its sessions (57P02) to recover from
// a crash.
var errStorageRecovery = sqlerr.New(sqlerr.CrashShutdown, "terminating connection because the server is recovering from a storage fault").
	WithSeverity(sqlerr.SeverityFatal).
	WithDetail("Storage could not make a write durable; the fault has cleared, and the server restarts to recover every acknowledged write from its write-ahead log.").
	WithHint("In a moment you should be able to reconnect to the database and repeat your command.")

// Supervisor is a server's engine and backend, which it restarts in place
// after a storage fault. While storage refuses writes (53100 disk_full,
// 58030 io_error) the engine serves reads; the Supervisor probes the data
// directory, and once it takes a durable write again it ends every
// session (57P02), closes the engine and opens a new one on the same
// directory. The new engine replays the write-ahead log, so it holds
// every acknowledged write and none that was refused, and rebuilds every
// view; PostgreSQL recovers from a failed fsync the same way, by a crash
// restart. Clients that connect meanwhile get 57P03.
//
// It implements pgwire.Backend, pgwire.Authenticator and
// pgwire.Superusers for the backend of the engine that runs.
type Supervisor struct {
	ctx  context.Context
	cfg  Config
	auth AuthMode
	// mu guards engine and backend; backend is nil while the engine
	// restarts.
	mu       sync.Mutex
	engine   *Engine
	backend  *Backend
	closed   chan struct{}
	done     chan struct{}
	restarts atomic.Int64
	metrics  *Metrics
	// feed is the console's live state (console_feed.go), under mu.
	feed *consoleFeed
}

// Supervise opens an engine with cfg (cfg.Store must be nil: a restart
// opens storage again) and watches its storage until Close or until ctx
// ends.
func Supervise(ctx context.Context, cfg Config, auth AuthMode) (*Supervisor, error) {
	if cfg.Store != nil {
		return nil, sqlerr.AssertionFailedf("a supervised engine opens its own storage")
	}
	s := &Supervisor{ctx: ctx, auth: auth, closed: make(chan struct{}), done: make(chan struct{})}
	// The metrics outlive the engines: they read whichever runs.
	s.metrics = NewMetrics(s.Engine)
	cfg.Metrics = s.metrics
	s.cfg = cfg
	e, err := openEngine(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.engine, s.backend = e, NewBackend(e)
	if cfg.OnOpen != nil {
		cfg.OnOpen()
	}
	go s.watch()
	return s, nil
}

// openEngine opens an engine on cfg's data directory and restores its
// column defaults.
func openEngine(ctx context.Context, cfg Config) (*Engine, error) {
	e, err := Open(ctx, cfg, Rebuild(ctx))
	if err != nil {
		return nil, err
	}
	if err := RestoreDefaults(e); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// watch restarts the engine once its storage has failed and the fault
// has cleared.
func (s *Supervisor) watch() {
	defer close(s.done)
	tick := time.NewTicker(storageCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-s.closed:
			return
		case <-s.ctx.Done():
			return
		}
		s.mu.Lock()
		e := s.engine
		s.mu.Unlock()
		if e == nil {
			s.reopen() // a restart whose open failed: try again
			continue
		}
		fault := e.store.Fault()
		if fault == nil {
			continue
		}
		if err := e.store.Probe(); err != nil {
			continue
		}
		e.log.Warn("storage fault cleared: restarting the engine to recover", "fault", fault)
		s.mu.Lock()
		b := s.backend
		s.engine, s.backend = nil, nil
		s.mu.Unlock()
		for _, sess := range b.liveSessions() {
			sess.terminateWith(errStorageRecovery)
		}
		e.Close()
		s.reopen()
	}
}

// reopen opens the engine again; on failure it stays down (57P03) and
// watch tries again at its next check.
func (s *Supervisor) reopen() {
	e, err := openEngine(s.ctx, s.cfg)
	if err != nil {
		if l := s.cfg.Logger; l != nil {
			l.Error("restarting the engine after a storage fault", "error", err)
		}
		return
	}
	// Counted and announced before it serves, so that whoever sees the
	// new engine sees its restart counted.
	s.restarts.Add(1)
	if s.cfg.OnOpen != nil {
		s.cfg.OnOpen()
	}
	s.mu.Lock()
	s.engine, s.backend = e, NewBackend(e)
	s.mu.Unlock()
	e.log.Info("engine restarted after a storage fault")
}

// Metrics returns the server's metrics.
func (s *Supervisor) Metrics() *Metrics { return s.metrics }

// Healthy reports whether the server serves and its storage takes
// writes: nil, or why not (for /healthz).
func (s *Supervisor) Healthy() error {
	e := s.Engine()
	if e == nil {
		return errRecovering
	}
	return e.store.Fault()
}

// Restarts returns how many times the engine was restarted.
func (s *Supervisor) Restarts() int64 { return s.restarts.Load() }

// current returns the backend serving now, or nil while restarting.
func (s *Supervisor) current() *Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.backend
}

// NewSession implements pgwire.Backend.
func (s *Supervisor) NewSession(ctx context.Context, st pgwire.Startup) (pgwire.Session, error) {
	b := s.current()
	if b == nil {
		return nil, errRecovering
	}
	return b.NewSession(ctx, st)
}

// Cancel implements pgwire.Backend.
func (s *Supervisor) Cancel(key pgwire.CancelKey) {
	if b := s.current(); b != nil {
		b.Cancel(key)
	}
}

// IsSuperuser implements pgwire.Superusers.
func (s *Supervisor) IsSuperuser(user string) bool {
	b := s.current()
	return b != nil && b.IsSuperuser(user)
}

// Authenticate implements pgwire.Authenticator: the running engine's
// roles decide. While the engine restarts, a client is let through to
// NewSession, which refuses it with 57P03.
func (s *Supervisor) Authenticate(user string, addr net.Addr, tls bool) (pgwire.AuthMethod, scram.Verifier, bool) {
	b := s.current()
	if b == nil {
		return pgwire.AuthTrust, scram.Verifier{}, true
	}
	return b.Authenticator(s.auth).Authenticate(user, addr, tls)
}

// Engine returns the engine running now, or nil while restarting.
func (s *Supervisor) Engine() *Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.engine
}

// Close stops watching and closes the engine.
func (s *Supervisor) Close() {
	close(s.closed)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine != nil {
		s.engine.Close()
		s.engine, s.backend = nil, nil
	}
}

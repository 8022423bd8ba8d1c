package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"freshet/sqlerr"
)

// Server accepts PostgreSQL connections and serves each with a Session
// of its Backend. Set the fields before calling Serve and do not change
// them afterwards.
type Server struct {
	// Backend creates the sessions. It must be set.
	Backend Backend
	// Logger receives the server's logs; nil means slog.Default().
	Logger *slog.Logger
	// MaxMessageSize is the largest message body a client may send, in
	// bytes; a larger one is a protocol violation that ends the
	// connection. 0 means DefaultMaxMessageSize.
	MaxMessageSize int
	// StartupTimeout bounds the time a new connection may take to
	// complete its startup (PostgreSQL's authentication_timeout). 0 means
	// one minute.
	StartupTimeout time.Duration
	// ShutdownTimeout bounds how long Serve waits, once its context is
	// done, for canceled sessions to end before it closes their
	// connections. 0 means ten seconds.
	ShutdownTimeout time.Duration
	// MaxConnections bounds the sessions served at once (PostgreSQL's
	// max_connections); a client past it gets FATAL 53300 "sorry, too
	// many clients already" after its startup packet. 0 means
	// DefaultMaxConnections. Cancel requests are never counted.
	MaxConnections int
	// SuperuserReservedConnections are the last of MaxConnections' slots,
	// kept for superusers (PostgreSQL's superuser_reserved_connections):
	// once MaxConnections minus these are taken, a client whose user the
	// Backend does not call a superuser (Superusers) gets FATAL 53300
	// "remaining connection slots are reserved for non-replication
	// superuser connections". 0 reserves none.
	SuperuserReservedConnections int
	// TLSConfig, when set, makes the server accept SSLRequest: the
	// client gets 'S' and the connection continues over TLS with this
	// configuration (it must hold a certificate). Nil refuses encryption
	// with 'N', and the client goes on in the clear or gives up.
	TLSConfig *tls.Config
	// RequireTLS refuses a session that did not negotiate TLS with FATAL
	// 28000, like a PostgreSQL pg_hba.conf of hostssl lines only. It
	// needs TLSConfig.
	RequireTLS bool
	// Auth decides how each session's user authenticates (auth.go); nil
	// lets everyone in (trust).
	Auth Authenticator

	mu struct {
		sync.Mutex
		// conns holds the connections being served, so that shutdown can
		// close them.
		conns map[net.Conn]struct{}
		// sessions counts the connections admitted past their startup
		// packet. Invariant: 0 <= sessions <= maxConnections().
		sessions int
	}
	// readAhead counts the bytes watchers read while messages ran
	// (watch.go), for the tests to see that they did.
	readAhead atomic.Int64
}

// DefaultMaxConnections is the default of Server.MaxConnections,
// PostgreSQL's default max_connections.
const DefaultMaxConnections = 100

// Superusers is what a Backend implements to tell which users are
// superusers, for the connections reserved to them.
type Superusers interface {
	IsSuperuser(user string) bool
}

// admit counts a new session of a superuser (super) or not in, unless
// the server already serves MaxConnections, or all but the slots
// reserved for superusers and super is false. It returns the error the
// client gets if not.
func (s *Server) admit(super bool) error {
	limit := s.MaxConnections
	if limit <= 0 {
		limit = DefaultMaxConnections
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.sessions >= limit {
		return sqlerr.New(sqlerr.TooManyConnections, "sorry, too many clients already")
	}
	if !super && s.mu.sessions >= limit-s.SuperuserReservedConnections {
		return sqlerr.New(sqlerr.TooManyConnections, "remaining connection slots are reserved for non-replication superuser connections")
	}
	s.mu.sessions++
	return nil
}

// leave counts a session that admit let in out again.
func (s *Server) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.sessions--
}

// DefaultMaxMessageSize is the default of Server.MaxMessageSize.
const DefaultMaxMessageSize = 64 << 20

// errServerShutdown is the cause with which sessions are canceled when
// the server shuts down, and the last message of their connections.
var errServerShutdown = sqlerr.New(sqlerr.AdminShutdown, "terminating connection due to administrator command").
	WithSeverity(sqlerr.SeverityFatal)

// Serve accepts connections on ln and serves each on its own goroutine,
// until ctx is done or ln fails. Then it shuts down gracefully: it stops
// accepting (closing ln), cancels every session (idle connections get a
// FATAL 57P01 `terminating connection due to administrator command`,
// running queries see their context canceled), and waits for the
// connections to end, closing those still open after ShutdownTimeout.
// Serve returns nil after a shutdown that ctx asked for, and the
// listener's error otherwise. A Server serves one listener at a time.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.Backend == nil {
		return errors.New("pgwire: Server.Backend is nil")
	}
	// Sessions see errServerShutdown as the cause of their cancellation,
	// whatever ended ctx.
	srvCtx, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stop(nil)
	stopWatching := context.AfterFunc(ctx, func() { stop(errServerShutdown) })
	defer stopWatching()
	stopClosing := context.AfterFunc(srvCtx, func() { ln.Close() })
	defer stopClosing()

	var wg sync.WaitGroup
	var err error
	var backoff time.Duration
	for {
		nc, aerr := ln.Accept()
		if aerr != nil {
			if srvCtx.Err() != nil {
				break
			}
			var temp interface{ Temporary() bool }
			if errors.As(aerr, &temp) && temp.Temporary() {
				// Out of file descriptors and the like: wait and retry, as
				// net/http does, rather than give up the listener.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.logger().Warn("pgwire: accept failed; retrying", "err", aerr, "delay", backoff)
				select {
				case <-time.After(backoff):
				case <-srvCtx.Done():
				}
				continue
			}
			err = aerr
			break
		}
		backoff = 0
		s.track(nc, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.track(nc, false)
			s.serveConn(srvCtx, nc)
		}()
	}
	stop(errServerShutdown)
	ln.Close()
	s.waitConns(&wg)
	return err
}

// waitConns waits for the connection goroutines, closing the connections
// that outlive ShutdownTimeout so that their blocked reads and writes
// fail.
func (s *Server) waitConns(wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timeout := s.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	s.mu.Lock()
	n := len(s.mu.conns)
	for nc := range s.mu.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.logger().Warn("pgwire: closed connections that outlived the shutdown timeout", "count", n)
	<-done
}

// track adds nc to the open connections, or removes it.
func (s *Server) track(nc net.Conn, open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open {
		if s.mu.conns == nil {
			s.mu.conns = map[net.Conn]struct{}{}
		}
		s.mu.conns[nc] = struct{}{}
	} else {
		delete(s.mu.conns, nc)
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Server) maxMessageSize() int {
	if s.MaxMessageSize > 0 {
		return s.MaxMessageSize
	}
	return DefaultMaxMessageSize
}

func (s *Server) startupTimeout() time.Duration {
	if s.StartupTimeout > 0 {
		return s.StartupTimeout
	}
	return time.Minute
}

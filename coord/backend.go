package coord

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"sync"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/sqlerr"
)

// Backend is the pgwire.Backend of the server: it opens a Session per
// connection on one Engine and routes CancelRequests to them.
type Backend struct {
	engine *Engine
	// started is when the backend began serving, in milliseconds since
	// the Unix epoch (pg_postmaster_start_time()).
	started uint64
	mu      struct {
		sync.Mutex
		sessions map[pgwire.CancelKey]*Session
		nextPID  uint32
	}
}

// NewBackend returns the backend of engine e.
func NewBackend(e *Engine) *Backend {
	b := &Backend{engine: e, started: e.Clock()}
	b.mu.sessions = map[pgwire.CancelKey]*Session{}
	e.backendsMu.Lock()
	e.backends = append(e.backends, b)
	e.backendsMu.Unlock()
	return b
}

// NewSession implements pgwire.Backend.
func (b *Backend) NewSession(ctx context.Context, s pgwire.Startup) (pgwire.Session, error) {
	exists := false
	b.engine.Catalog(func(c *catalog.Catalog) error {
		exists = c.HasDatabase(s.Database)
		return nil
	})
	if !exists {
		return nil, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", s.Database).
			WithSeverity(sqlerr.SeverityFatal).
			WithHint("Connect to the database %q, which every server has, and CREATE DATABASE %s there.", catalog.DefaultDatabase, s.Database)
	}
	if err := checkConnect(b.engine, s.User, s.Database); err != nil {
		return nil, err
	}
	var secret [4]byte
	rand.Read(secret[:])
	b.mu.Lock()
	b.mu.nextPID++
	key := pgwire.CancelKey{ProcessID: b.mu.nextPID, Secret: binary.BigEndian.Uint32(secret[:])}
	sess := newSession(b, key, s)
	b.mu.sessions[key] = sess
	b.mu.Unlock()
	b.engine.sessions.Add(1)
	return sess, nil
}

// Cancel implements pgwire.Backend.
func (b *Backend) Cancel(key pgwire.CancelKey) {
	b.mu.Lock()
	s := b.mu.sessions[key]
	b.mu.Unlock()
	if s != nil {
		s.cancelRunning()
	}
}

// sessionByPID returns the live session with process id pid, or nil.
func (b *Backend) sessionByPID(pid uint32) *Session {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, s := range b.mu.sessions {
		// A terminated session is on its way out: it is no longer one.
		if key.ProcessID == pid && s.terminated.Err() == nil {
			return s
		}
	}
	return nil
}

func (b *Backend) forget(key pgwire.CancelKey) {
	b.mu.Lock()
	_, known := b.mu.sessions[key]
	delete(b.mu.sessions, key)
	b.mu.Unlock()
	if known {
		b.engine.sessions.Add(-1)
	}
}

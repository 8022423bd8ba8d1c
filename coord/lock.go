package coord

import (
	"context"
	"time"

	"freshet/pgwire"
	"freshet/sqlerr"
)

// waitLock is a mutex that a statement can stop waiting for. The
// engine's locks are held across long work (dmlMu across an UPDATE's
// read of its table, mu while a unique index counts its keys), and a
// statement queued behind such work must still end when it is canceled,
// when its statement_timeout passes (57014), or when the session's
// lock_timeout passes (55P03), as a PostgreSQL backend waiting for a
// lock does.
//
// Lock and Unlock make it a sync.Locker, for the waits that cannot be
// given up (the engine's own bookkeeping) and for sync.Cond.
type waitLock struct {
	// held has room for one token: sending it takes the lock.
	held chan struct{}
}

func newWaitLock() waitLock { return waitLock{held: make(chan struct{}, 1)} }

// Lock takes the lock, waiting as long as it takes.
func (l *waitLock) Lock() { l.held <- struct{}{} }

// Unlock releases the lock; releasing one that is not held is a bug.
func (l *waitLock) Unlock() {
	select {
	case <-l.held:
	default:
		panic("coord: unlock of an unlocked waitLock")
	}
}

// acquire takes the lock for a statement running under ctx. It gives up
// when ctx ends (the cause, or 57014) or, if ctx carries one, when the
// session's lock_timeout passes (55P03); the lock is then not held.
func (l *waitLock) acquire(ctx context.Context) error {
	select {
	case l.held <- struct{}{}:
		return nil
	default:
	}
	var expired <-chan time.Time
	if d, ok := ctx.Value(lockTimeoutKey{}).(time.Duration); ok && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case l.held <- struct{}{}:
		return nil
	case <-ctx.Done():
		return readError(ctx, ctx.Err())
	case <-expired:
		return errLockTimeout
	}
}

// errLockTimeout is how a statement ends when it waited for a lock past
// the session's lock_timeout, in PostgreSQL's words.
var errLockTimeout = sqlerr.New(sqlerr.LockNotAvailable, "canceling statement due to lock timeout")

// lockTimeoutKey is the context key of a statement's lock_timeout.
type lockTimeoutKey struct{}

// withLockTimeout gives ctx the session's lock_timeout, if one is set:
// each wait for an engine lock in the statement may last that long.
func (s *Session) withLockTimeout(ctx context.Context) context.Context {
	d, err := pgwire.ParseDurationSetting("lock_timeout", s.settings["lock_timeout"])
	if err != nil || d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, lockTimeoutKey{}, d)
}

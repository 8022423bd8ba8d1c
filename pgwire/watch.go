package pgwire

import (
	"errors"
	"os"
	"sync"
	"time"
)

// A connection's messages are read by its own goroutine, the one that
// runs them, when it needs the next one: a client's statement reaches
// the session without a hand-over between goroutines, which on two cores
// cost a thread's wake-up, tens of microseconds, on every message.
//
// A message that runs longer than watchAfter gets a watcher: a goroutine
// that reads the socket while the message runs, so that a client that
// goes away is noticed and the running statement canceled (errClientGone).
// What it reads is kept (source.ahead) and read first once the message
// is done. Before the connection's goroutine reads again, it stops the
// watcher by moving the read deadline to the past, waits for it to
// return, and clears the deadline; only one goroutine reads at a time.
//
// The same deadline interrupts a read of the connection's goroutine when
// the connection's context ends (the server shuts down, the client is
// gone) or the session is terminated: serve registers both once. A
// client found gone is gone: the messages a watcher read before its end
// are not run.

// watchAfter is how long a message runs before the client's socket is
// watched.
const watchAfter = time.Millisecond

// aheadLimit is the number of bytes a watcher reads ahead before it
// stops: it bounds what a client can make the server hold by pipelining
// behind a long statement. A client that pipelines more than this and
// then vanishes is noticed when the statement ends.
const aheadLimit = 1 << 20

// aLongTimeAgo is a read deadline that has passed: setting it interrupts
// a read at once.
var aLongTimeAgo = time.Unix(1, 0)

// source is what a connection's buffered reader reads: the bytes a
// watcher read ahead and the error that ended its read, then the
// connection's socket (its nc, TLS once started). Only the connection's
// goroutine calls Read, and never while a watcher runs (watcher.stop
// orders the two).
type source struct {
	c     *conn
	ahead []byte
	err   error
}

func (s *source) Read(p []byte) (int, error) {
	if len(s.ahead) > 0 {
		n := copy(p, s.ahead)
		if s.ahead = s.ahead[n:]; len(s.ahead) == 0 {
			s.ahead = nil
		}
		return n, nil
	}
	if s.err != nil {
		return 0, s.err
	}
	return s.c.nc.Read(p)
}

// watchState is where a connection's watcher is.
type watchState uint8

const (
	// watchIdle: no message runs, or it no longer wants a watcher.
	watchIdle watchState = iota
	// watchArmed: a message runs and its timer is set.
	watchArmed
	// watchRunning: the watcher reads the socket.
	watchRunning
)

// watcher watches a connection's socket while a message runs.
type watcher struct {
	c     *conn
	timer *time.Timer
	mu    sync.Mutex
	state watchState
	// done is closed when a running watcher returns.
	done chan struct{}
}

func newWatcher(c *conn) *watcher {
	w := &watcher{c: c}
	w.timer = time.AfterFunc(time.Hour, w.run)
	w.timer.Stop()
	return w
}

// arm starts the clock of a message that is about to run.
func (w *watcher) arm() {
	w.mu.Lock()
	w.state = watchArmed
	w.mu.Unlock()
	w.timer.Reset(watchAfter)
}

// run is the watcher, started by the timer: it reads the socket into
// the source's ahead until the client goes away, the read fails, it has
// read aheadLimit bytes, or stop interrupts it.
func (w *watcher) run() {
	w.mu.Lock()
	if w.state != watchArmed {
		// The message ended before the timer's goroutine ran.
		w.mu.Unlock()
		return
	}
	w.state = watchRunning
	done := make(chan struct{})
	w.done = done
	w.mu.Unlock()
	defer close(done)

	src := &w.c.src
	var buf [4096]byte
	for len(src.ahead) < aheadLimit && src.err == nil {
		n, err := w.c.nc.Read(buf[:])
		src.ahead = append(src.ahead, buf[:n]...)
		w.c.srv.readAhead.Add(int64(n))
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			// stop, or the connection's end, interrupted the read:
			// nothing is lost, and the next read goes on from here.
			return
		default:
			// The client is gone: what runs for it is pointless. The
			// error is read after the bytes before it.
			src.err = err
			w.c.cancel(errClientGone)
		}
	}
}

// stop ends the watch of the message that ran: its timer, and the
// watcher if it started, which it waits for. It clears the read
// deadline the interruption set; the caller checks the connection's
// contexts before it reads (conn.closing), since an end of the
// connection may have set the deadline too.
func (w *watcher) stop() {
	w.timer.Stop()
	w.mu.Lock()
	state, done := w.state, w.done
	w.state, w.done = watchIdle, nil
	w.mu.Unlock()
	if state != watchRunning {
		return
	}
	w.c.nc.SetReadDeadline(aLongTimeAgo)
	<-done
	w.c.nc.SetReadDeadline(time.Time{})
}

package pgwire

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

// conn is one client connection. Its goroutine (serveConn) runs the
// startup, then the message loop, reading each message when it needs it;
// a watcher (watch.go) reads the socket while a message runs long, so
// that a client that goes away is noticed, and its running query
// canceled, while the loop is busy.
type conn struct {
	srv *Server
	nc  net.Conn
	// br reads src, which reads nc after what a watcher read ahead.
	br  *bufio.Reader
	src source
	// watch watches the socket while a message runs.
	watch *watcher
	log   *slog.Logger
	// tls is set once the connection runs over TLS (nc and br then read
	// and write through it).
	tls bool
	// admitted is set once the server counted the connection as a
	// session (Server.admit); it is counted out when it ends.
	admitted bool
	// idleTxTimeout is how long the client may stay silent now: the
	// session's idle_in_transaction_session_timeout while it is in a
	// transaction block, 0 (no limit) otherwise. Set at ReadyForQuery.
	idleTxTimeout time.Duration

	// srvCtx is canceled when the server shuts down.
	srvCtx context.Context
	// ctx is the context of everything the connection runs. It is
	// canceled, with the cause, when the server shuts down, when the
	// client goes away (errClientGone) and when the connection ends.
	ctx    context.Context
	cancel context.CancelCauseFunc

	// out buffers the messages for the client until flush.
	out []byte
	// writeErr is the error of the first failed write; once set, nothing
	// more is sent.
	writeErr error

	sess    Session
	formats formats
	// stmts and portals are the prepared statements and portals by name;
	// "" is the unnamed one.
	stmts   map[string]*statement
	portals map[string]*portal
	// params holds the ParameterStatus values the client has been sent.
	params map[string]string

	// ignoreTillSync is set by an error in the extended protocol: messages
	// up to the next Sync are discarded.
	ignoreTillSync bool
	// batchFailed reports whether an error was sent since the last Sync.
	batchFailed bool
}

// errClientGone is the cause with which a connection's context is
// canceled when its client closes the connection or the connection fails.
var errClientGone = errors.New("client connection closed")

// errConnDone is the cause with which a connection's context is canceled
// when the server ends it.
var errConnDone = errors.New("connection ended")

// flushThreshold is the size at which buffered output is written even
// before the end of a batch, so that long results stream.
const flushThreshold = 32 << 10

// serveConn serves one connection until it ends.
func (s *Server) serveConn(srvCtx context.Context, nc net.Conn) {
	ctx, cancel := context.WithCancelCause(srvCtx)
	c := &conn{
		srv:     s,
		nc:      nc,
		log:     s.logger().With("remote", nc.RemoteAddr().String()),
		srvCtx:  srvCtx,
		ctx:     ctx,
		cancel:  cancel,
		stmts:   map[string]*statement{},
		portals: map[string]*portal{},
		params:  map[string]string{},
	}
	c.src.c = c
	c.br = bufio.NewReader(&c.src)
	c.watch = newWatcher(c)
	defer func() {
		// A panic here is a bug of pgwire itself, not of the session: the
		// connection's state is unknown, so it ends.
		if r := recover(); r != nil {
			c.log.Error("pgwire: panic serving connection", "panic", r, "stack", string(debug.Stack()))
			c.send(errorResponse(fatal(errPanic(r))))
			c.flush()
		}
		c.release()
		if c.admitted {
			c.srv.leave()
		}
		cancel(errConnDone)
		// A watcher still reading (the loop panicked) returns once the
		// deadline passes; it is waited for, so that nothing of the
		// connection outlives it.
		c.watch.stop()
		nc.Close()
	}()
	if !c.startup() {
		return
	}
	c.serve()
}

// next returns the client's next message. It fails when the connection
// ends: with io.EOF when the client closed it cleanly, with errClientGone
// when it broke, with a protocol error when the client sent garbage, with
// errServerShutdown when the server shuts down, with the session's
// termination error when it was terminated, and with errIdleInTransaction
// when the client stayed silent in a transaction block past its timeout.
func (c *conn) next() (frame, error) {
	c.watch.stop()
	if err := c.closing(); err != nil {
		return frame{}, err
	}
	if c.idleTxTimeout > 0 {
		c.nc.SetReadDeadline(time.Now().Add(c.idleTxTimeout))
		// An end that came before the deadline was set moved it to the
		// past first, and the line above moved it back: look again.
		if err := c.closing(); err != nil {
			return frame{}, err
		}
	}
	f, err := readFrame(c.br, c.srv.maxMessageSize())
	if c.idleTxTimeout > 0 {
		c.nc.SetReadDeadline(time.Time{})
	}
	if err == nil {
		return f, nil
	}
	if cerr := c.closing(); cerr != nil {
		return frame{}, cerr
	}
	var e *sqlerr.Error
	switch {
	case errors.As(err, &e):
		return frame{}, err
	case c.idleTxTimeout > 0 && errors.Is(err, os.ErrDeadlineExceeded):
		return frame{}, errIdleInTransaction
	case err == io.EOF:
		c.cancel(errClientGone)
		return frame{}, io.EOF
	}
	c.cancel(errClientGone)
	return frame{}, errClientGone
}

// closing returns why the connection is ending, if it is: the server
// shuts down, the session was terminated, or the connection's context
// ended (the client went away).
func (c *conn) closing() error {
	if c.srvCtx.Err() != nil {
		return errServerShutdown
	}
	if t, ok := c.sess.(Terminator); ok && t.Terminated().Err() != nil {
		return terminationError(t.Terminated())
	}
	if err := context.Cause(c.ctx); err != nil {
		if err == errServerShutdown || isTermination(err) {
			return err
		}
		return errClientGone
	}
	return nil
}

// interruptRead ends the read in progress, if any, and any read until the
// deadline is cleared.
func (c *conn) interruptRead() {
	c.nc.SetReadDeadline(aLongTimeAgo)
}

// serve is the message loop of a connection after its startup.
func (c *conn) serve() {
	// The ends that interrupt a read of the next message (next).
	defer context.AfterFunc(c.ctx, c.interruptRead)()
	if t, ok := c.sess.(Terminator); ok {
		defer context.AfterFunc(t.Terminated(), c.interruptRead)()
	}
	for {
		// The workers may still be applying what the last message wrote.
		// They go first: the next message's parse would otherwise keep a
		// core from one of them, and both wait for each other's progress.
		// With nothing else to run this returns at once. A bulk load by
		// 1,000-row INSERTs ran a fifth slower without it. A message
		// already buffered (the rest of a pipelined batch) is read
		// without yielding, so that a batch waits for the workers once,
		// not once a message.
		if c.br.Buffered() == 0 {
			runtime.Gosched()
		}
		f, err := c.next()
		if err != nil {
			c.end(err)
			return
		}
		if c.ignoreTillSync && f.typ != 'S' && f.typ != 'X' {
			continue
		}
		c.watch.arm()
		ok := c.handle(f)
		c.watch.stop()
		if !ok {
			return
		}
	}
}

// end reports why the connection ends, if the client should hear it.
func (c *conn) end(err error) {
	switch {
	case err == io.EOF, errors.Is(err, errClientGone):
		c.log.Debug("pgwire: client disconnected", "err", err)
	case errors.Is(err, errServerShutdown):
		c.send(errorResponse(err))
		c.flush()
	default:
		c.log.Info("pgwire: closing connection", "err", err)
		c.send(errorResponse(fatal(err)))
		c.flush()
	}
}

// handle processes one message and reports whether the connection goes
// on.
func (c *conn) handle(f frame) bool {
	switch f.typ {
	case 'Q':
		var m pgproto3.Query
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.query(m.String)
	case 'P':
		var m pgproto3.Parse
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.extended(c.parse(&m))
	case 'B':
		var m pgproto3.Bind
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.extended(c.bind(&m))
	case 'D':
		var m pgproto3.Describe
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.extended(c.describe(&m))
	case 'E':
		var m pgproto3.Execute
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.extended(c.execute(&m))
	case 'C':
		var m pgproto3.Close
		if err := m.Decode(f.body); err != nil {
			return c.malformed(f, err)
		}
		return c.extended(c.closeMessage(&m))
	case 'S':
		if len(f.body) != 0 {
			return c.malformed(f, nil)
		}
		return c.sync()
	case 'H':
		if len(f.body) != 0 {
			return c.malformed(f, nil)
		}
		return c.flush() == nil
	case 'X':
		return false
	case 'd', 'c', 'f':
		// CopyData, CopyDone and CopyFail outside COPY: what is left of a
		// COPY that failed. PostgreSQL drops them silently.
		return true
	case 'F':
		if c.sendError(sqlerr.New(sqlerr.FeatureNotSupported, "fastpath function calls are not supported")) {
			return false
		}
		return c.readyForQuery()
	default:
		c.end(protocolViolation("invalid frontend message type %d", f.typ))
		return false
	}
}

// malformed ends the connection of a client that sent a message that
// does not decode.
func (c *conn) malformed(f frame, err error) bool {
	c.log.Info("pgwire: malformed message", "type", string(rune(f.typ)), "err", err)
	c.end(protocolViolation("invalid message format"))
	return false
}

// extended finishes an extended-protocol message: if it failed, its
// error is sent and the following messages are discarded until Sync.
func (c *conn) extended(err error) bool {
	if err == nil {
		return true
	}
	c.batchFailed = true
	if c.sendError(err) {
		return false
	}
	c.ignoreTillSync = true
	return true
}

// sendError sends err as an ErrorResponse and reports whether it was
// FATAL, which ends the connection.
func (c *conn) sendError(err error) bool {
	resp := errorResponse(err)
	c.send(resp)
	if isFatal(resp) {
		c.flush()
		return true
	}
	return false
}

// readyForQuery ends a batch: it closes the portals of an ended
// transaction, reports changed parameters and the transaction status,
// and flushes. It reports whether the connection goes on.
func (c *conn) readyForQuery() bool {
	status := c.txStatus()
	if status == TxIdle {
		c.closePortals()
	}
	c.sendParameterChanges()
	c.idleTxTimeout = 0
	if it, ok := c.sess.(IdleTimeouter); ok && status != TxIdle {
		c.idleTxTimeout, _ = call(c, func() (time.Duration, error) { return it.IdleInTransactionTimeout(), nil })
	}
	c.send(&pgproto3.ReadyForQuery{TxStatus: byte(status)})
	return c.flush() == nil
}

// txStatus returns the session's transaction status.
func (c *conn) txStatus() TxStatus {
	status, err := call(c, func() (TxStatus, error) { return c.sess.TxStatus(), nil })
	if err != nil {
		return TxIdle
	}
	switch status {
	case TxIdle, TxInBlock, TxFailed:
		return status
	}
	c.log.Error("pgwire: session reported an invalid transaction status", "status", status)
	return TxIdle
}

// send buffers msg for the client, and writes the buffer out once it
// holds flushThreshold bytes. It returns the connection's write error,
// if any.
func (c *conn) send(msg pgproto3.BackendMessage) error {
	if c.writeErr != nil {
		return c.writeErr
	}
	out, err := msg.Encode(c.out)
	if err != nil {
		// Only a message too large for the protocol fails to encode.
		return sqlerr.Wrapf(err, sqlerr.InternalError, "cannot send message")
	}
	c.out = out
	if len(c.out) >= flushThreshold {
		return c.flush()
	}
	return nil
}

// flush writes the buffered messages to the client.
func (c *conn) flush() error {
	if c.writeErr != nil {
		return c.writeErr
	}
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	if cap(c.out) > 4*flushThreshold {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		c.writeErr = err
		c.cancel(errClientGone)
	}
	return err
}

// release closes the connection's portals, statements and session.
func (c *conn) release() {
	c.closePortals()
	for _, name := range slices.Sorted(maps.Keys(c.stmts)) {
		c.closeStatement(name)
	}
	if c.sess != nil {
		call(c, func() (struct{}, error) {
			c.sess.Close()
			return struct{}{}, nil
		})
	}
}

// call runs f, a call into the session, and turns a panic into an XX000
// error: a session's bug fails the statement, not the server.
func call[T any](c *conn, f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("pgwire: panic in session", "panic", r, "stack", string(debug.Stack()))
			err = errPanic(r)
		}
	}()
	return f()
}

// do is call for session methods that return only an error.
func do(c *conn, f func() error) error {
	_, err := call(c, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

package pgwire

import (
	"github.com/jackc/pgx/v5/pgproto3"
)

// query handles a simple Query message: the session runs its statements
// and reports each result through a queryWriter; pgwire ends the message
// with EmptyQueryResponse if nothing ran, the error if one stopped it,
// and ReadyForQuery. It reports whether the connection goes on.
func (c *conn) query(sql string) bool {
	// A Query drops the unnamed statement and portal, as in PostgreSQL.
	c.closeStatement("")
	c.closePortal("")
	w := &queryWriter{resultWriter: resultWriter{c: c}}
	err := w.finish(do(c, func() error { return c.sess.Query(c.ctx, sql, w) }))
	switch {
	case err != nil:
		if c.sendError(err) {
			return false
		}
	case w.completed == 0:
		c.send(&pgproto3.EmptyQueryResponse{})
	}
	return c.readyForQuery()
}

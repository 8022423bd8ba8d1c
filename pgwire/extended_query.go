package pgwire

import (
	"errors"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5/pgproto3"

	"freshet/sqlerr"
)

// The extended query protocol: Parse, Bind, Describe, Execute, Close,
// Sync. pgwire keeps the names of prepared statements and portals and
// their lifetimes, as PostgreSQL does:
//
//   - The unnamed statement is replaced by the next Parse into it, and
//     dropped by a simple Query. A named statement lives until Close or
//     the end of the connection; a second Parse of the same name is an
//     error (42P05).
//   - The unnamed portal is replaced by the next Bind into it, and
//     dropped by a simple Query. Every portal, named or not, is closed
//     when its transaction ends: at Sync outside a transaction block, at
//     the COMMIT or ROLLBACK that ends a block, at the end of a Query
//     outside a block. Inside a block, portals survive Sync.
//   - After an error, messages are discarded up to the next Sync.

// statement is a prepared statement.
type statement struct {
	s Statement
	// paramOIDs and cols are what Parse reported; they do not change.
	paramOIDs []uint32
	cols      []Column
}

// portal is a bound statement.
type portal struct {
	p    Portal
	cols []Column
	// formats holds the result format code of each column.
	formats []int16
}

// parse handles Parse.
func (c *conn) parse(m *pgproto3.Parse) error {
	if m.Name == "" {
		c.closeStatement("")
	} else if _, ok := c.stmts[m.Name]; ok {
		return sqlerr.New(sqlerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name)
	}
	s, err := call(c, func() (Statement, error) { return c.sess.Parse(c.ctx, m.Query, m.ParameterOIDs) })
	if err == nil && s == nil {
		err = sqlerr.New(sqlerr.InternalError, "session parsed no statement")
	}
	if err != nil {
		return err
	}
	st := &statement{s: s}
	err = do(c, func() error {
		st.paramOIDs = slices.Clone(s.ParamOIDs())
		st.cols = slices.Clone(s.Columns())
		return nil
	})
	if err != nil {
		closeStatement(c, s)
		return err
	}
	c.stmts[m.Name] = st
	return c.send(&pgproto3.ParseComplete{})
}

// bind handles Bind.
func (c *conn) bind(m *pgproto3.Bind) error {
	st, err := c.statement(m.PreparedStatement)
	if err != nil {
		return err
	}
	if len(m.Parameters) != len(st.paramOIDs) {
		return protocolViolation("bind message supplies %d parameters, but prepared statement \"%s\" requires %d",
			len(m.Parameters), m.PreparedStatement, len(st.paramOIDs))
	}
	paramFormats, err := expandFormats(m.ParameterFormatCodes, len(m.Parameters))
	if err != nil {
		return protocolViolation("bind message has %d parameter formats but %d parameters",
			len(m.ParameterFormatCodes), len(m.Parameters))
	}
	resultFormats, err := expandFormats(m.ResultFormatCodes, len(st.cols))
	if err != nil {
		return protocolViolation("bind message has %d result formats but query has %d columns",
			len(m.ResultFormatCodes), len(st.cols))
	}
	for _, f := range slices.Concat(paramFormats, resultFormats) {
		if f != pgproto3.TextFormat && f != pgproto3.BinaryFormat {
			return sqlerr.New(sqlerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	for i, f := range resultFormats {
		if oid := st.cols[i].TypeOID; f == pgproto3.BinaryFormat {
			if err := c.learnType(oid); err != nil {
				return err
			}
			if !c.formats.canBinary(oid) {
				return errNoBinaryOutput(c.formats.typeName(oid))
			}
		}
	}
	// The parameters are the message's own bytes (frames are never
	// reused); only binary ones are replaced by their text.
	params := m.Parameters
	for i, v := range params {
		if v == nil || paramFormats[i] != pgproto3.BinaryFormat {
			continue
		}
		if err := c.learnType(st.paramOIDs[i]); err != nil {
			return err
		}
		text, err := c.formats.binaryToText(st.paramOIDs[i], v)
		if err != nil {
			if sqlerr.Code(err) == sqlerr.InvalidBinaryRepresentation {
				return sqlerr.New(sqlerr.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter %d", i+1)
			}
			return err
		}
		params[i] = text
	}
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, ok := c.portals[m.DestinationPortal]; ok {
		return sqlerr.New(sqlerr.DuplicateCursor, "cursor \"%s\" already exists", m.DestinationPortal)
	}
	p, err := call(c, func() (Portal, error) { return st.s.Bind(c.ctx, params) })
	if err == nil && p == nil {
		err = sqlerr.New(sqlerr.InternalError, "session bound no portal")
	}
	if err != nil {
		return err
	}
	c.portals[m.DestinationPortal] = &portal{p: p, cols: st.cols, formats: resultFormats}
	return c.send(&pgproto3.BindComplete{})
}

// learnType makes the catalog type with OID oid known to the
// connection's formats, asking the session unless the OID is known. It
// is called at Bind, never while the session is running a statement.
func (c *conn) learnType(oid uint32) error {
	if c.formats.known(oid) {
		return nil
	}
	return do(c, func() error {
		c.formats.learn(oid, c.sess.LookupType)
		return nil
	})
}

// expandFormats returns the format code of each of n values, given the
// codes of a Bind message: none (all text), one (for all), or one each.
func expandFormats(codes []int16, n int) ([]int16, error) {
	formats := make([]int16, n)
	switch len(codes) {
	case 0:
	case 1:
		for i := range formats {
			formats[i] = codes[0]
		}
	case n:
		copy(formats, codes)
	default:
		return nil, errors.New("format count mismatch")
	}
	return formats, nil
}

// describe handles Describe.
func (c *conn) describe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, err := c.statement(m.Name)
		if err != nil {
			return err
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: st.paramOIDs})
		return c.sendDescription(st.cols, nil)
	case 'P':
		p, err := c.portal(m.Name)
		if err != nil {
			return err
		}
		return c.sendDescription(p.cols, p.formats)
	}
	return protocolViolation("invalid DESCRIBE message subtype %d", m.ObjectType)
}

// sendDescription sends the RowDescription of cols, or NoData if the
// statement returns no rows.
func (c *conn) sendDescription(cols []Column, formats []int16) error {
	if cols == nil {
		return c.send(&pgproto3.NoData{})
	}
	return c.send(rowDescription(cols, formats))
}

// execute handles Execute.
func (c *conn) execute(m *pgproto3.Execute) error {
	p, err := c.portal(m.Portal)
	if err != nil {
		return err
	}
	// The limit is a signed 32-bit count in PostgreSQL: 0 or less is none.
	maxRows := max(int(int32(m.MaxRows)), 0)
	before := c.txStatus()
	w := &resultWriter{c: c, cols: p.cols, formats: p.formats}
	comp, err := call(c, func() (Completion, error) { return p.p.Execute(c.ctx, maxRows, w) })
	err = w.finish(err)
	switch {
	case err != nil:
	case comp.Suspended:
		err = c.send(&pgproto3.PortalSuspended{})
	case comp.Tag == "":
		err = c.send(&pgproto3.EmptyQueryResponse{})
	default:
		err = w.complete(comp.Tag)
	}
	if before != TxIdle && c.txStatus() == TxIdle {
		// COMMIT or ROLLBACK ended a transaction block, successfully or
		// not, and its portals with it.
		c.closePortals()
	}
	return err
}

// closeMessage handles Close. Closing a statement or portal that does not
// exist is not an error.
func (c *conn) closeMessage(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		c.closeStatement(m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return protocolViolation("invalid CLOSE message subtype %d", m.ObjectType)
	}
	return c.send(&pgproto3.CloseComplete{})
}

// sync handles Sync: the end of an extended-protocol batch and of its
// implicit transaction.
func (c *conn) sync() bool {
	c.ignoreTillSync = false
	failed := c.batchFailed
	c.batchFailed = false
	if err := do(c, func() error { return c.sess.Sync(c.ctx, failed) }); err != nil {
		if c.sendError(err) {
			return false
		}
	}
	return c.readyForQuery()
}

func (c *conn) statement(name string) (*statement, error) {
	if st, ok := c.stmts[name]; ok {
		return st, nil
	}
	if name == "" {
		return nil, sqlerr.New(sqlerr.InvalidSQLStatementName, "unnamed prepared statement does not exist")
	}
	return nil, sqlerr.New(sqlerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
}

func (c *conn) portal(name string) (*portal, error) {
	if p, ok := c.portals[name]; ok {
		return p, nil
	}
	return nil, sqlerr.New(sqlerr.InvalidCursorName, "portal \"%s\" does not exist", name)
}

// closeStatement closes the named statement, if it exists.
func (c *conn) closeStatement(name string) {
	if st, ok := c.stmts[name]; ok {
		delete(c.stmts, name)
		closeStatement(c, st.s)
	}
}

func closeStatement(c *conn, s Statement) {
	do(c, func() error {
		s.Close()
		return nil
	})
}

// closePortal closes the named portal, if it exists.
func (c *conn) closePortal(name string) {
	if p, ok := c.portals[name]; ok {
		delete(c.portals, name)
		do(c, func() error {
			p.p.Close()
			return nil
		})
	}
}

// closePortals closes every portal: their transaction has ended.
func (c *conn) closePortals() {
	for _, name := range slices.Sorted(maps.Keys(c.portals)) {
		c.closePortal(name)
	}
}

package coord

import (
	"context"
	"fmt"
	"slices"
	"time"

	"freshet/catalog"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// Parse implements pgwire.Session: it plans one statement with its
// parameters' types, inferring those the client left open.
func (s *Session) Parse(ctx context.Context, sql string, paramOIDs []uint32) (pgwire.Statement, error) {
	given := make([]repr.Type, len(paramOIDs))
	for i, oid := range paramOIDs {
		if oid == 0 {
			continue
		}
		t, ok := repr.TypeFromOID(oid)
		if !ok {
			t, ok = s.enumParamType(oid)
		}
		if !ok {
			return nil, sqlerr.New(sqlerr.FeatureNotSupported, "parameters of type oid %d are not supported", oid)
		}
		given[i] = t
	}
	var generated bool
	var reads []planner.Read
	st, types, err := planner.PlanWithParams(s.planningCatalog(&generated, &reads), sql, given)
	if err != nil {
		return nil, err
	}
	labels, err := s.paramLabels(types)
	if err != nil {
		return nil, err
	}
	ps := &preparedStatement{s: s, sql: sql, stmt: st, types: types, labels: labels, generated: generated, reads: reads}
	ps.columns = s.statementColumns(st)
	return ps, nil
}

// statementColumns returns the columns of the rows st returns, nil if
// it returns none.
func (s *Session) statementColumns(st planner.Statement) []pgwire.Column {
	switch st := st.(type) {
	case *planner.Select:
		return describe(st.Columns)
	case *planner.Explain:
		if st.Format == "json" {
			return []pgwire.Column{{Name: "QUERY PLAN", TypeOID: repr.JSON.OID(), TypeSize: -1, TypeModifier: -1}}
		}
		return []pgwire.Column{textColumn("QUERY PLAN")}
	case *planner.ExplainView:
		return []pgwire.Column{textColumn("QUERY PLAN")}
	case *planner.Insert:
		return returningColumns(st.Returning)
	case *planner.Update:
		return returningColumns(st.Returning)
	case *planner.Delete:
		return returningColumns(st.Returning)
	case *planner.Show:
		return showColumns(st.Name)
	case *planner.Fetch:
		if !st.Move {
			return s.cursorColumns(st.Name)
		}
	}
	return nil
}

// replanIfGone plans a prepared statement (sql with its parameters'
// types, planned as stmt, reading reads) again if a relation it reads was
// dropped since (and perhaps created again under its name), as
// PostgreSQL's plan cache does after DDL, so that drivers that cache
// prepared statements by their text (pgx) keep working; it returns the
// plan to use. A plan whose result columns would change is refused as
// PostgreSQL refuses it. A statement planned at each execution
// (generated) is left alone.
func (s *Session) replanIfGone(sql string, types []repr.Type, stmt planner.Statement, generated bool, reads []planner.Read) (planner.Statement, bool, []planner.Read, error) {
	if generated || !s.readsGone(reads) {
		return stmt, generated, reads, nil
	}
	var again bool
	var rs []planner.Read
	st, ts, err := planner.PlanWithParams(s.planningCatalog(&again, &rs), sql, types)
	if err != nil {
		return nil, false, nil, err
	}
	if !slices.Equal(ts, types) || !sameResultType(s.statementColumns(st), s.statementColumns(stmt)) {
		return nil, false, nil, sqlerr.New(sqlerr.FeatureNotSupported, "cached plan must not change result type")
	}
	return st, again, rs, nil
}

// sameResultType reports whether two statements' result columns have the
// same names and types; the table a column comes from may differ (a view
// created again has a new OID).
func sameResultType(a, b []pgwire.Column) bool {
	return slices.EqualFunc(a, b, func(x, y pgwire.Column) bool {
		return x.Name == y.Name && x.TypeOID == y.TypeOID && x.TypeModifier == y.TypeModifier
	})
}

// readsGone reports whether a relation of reads no longer exists.
func (s *Session) readsGone(reads []planner.Read) bool {
	gone := false
	s.engine.Catalog(func(c *catalog.Catalog) error {
		for _, r := range reads {
			if id := uint64(r.ID); id != 0 && c.Get(id) == nil && !isSystemTable(id) {
				gone = true
				break
			}
		}
		return nil
	})
	return gone
}

// preparedStatement is a planned statement waiting for its parameters.
type preparedStatement struct {
	s     *Session
	sql   string
	stmt  planner.Statement // nil for the empty statement
	types []repr.Type
	// labels are the labels of enum parameters' types at planning, nil
	// when there are none (paramLabels).
	labels  []*repr.EnumLabels
	columns []pgwire.Column
	// generated says the plan read a relation written from the sessions'
	// state when it was planned: each Bind plans it again, so that each
	// execution sees the state of its time.
	generated bool
	// reads are what the statement reads, for the privilege checks made
	// when it runs.
	reads []planner.Read
}

// ParamOIDs implements pgwire.Statement.
func (p *preparedStatement) ParamOIDs() []uint32 {
	oids := make([]uint32, len(p.types))
	for i, t := range p.types {
		oids[i] = t.OID()
	}
	return oids
}

// Columns implements pgwire.Statement.
func (p *preparedStatement) Columns() []pgwire.Column { return p.columns }

// Bind implements pgwire.Statement.
func (p *preparedStatement) Bind(ctx context.Context, params [][]byte) (pgwire.Portal, error) {
	if len(params) != len(p.types) {
		return nil, sqlerr.New(sqlerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.types))
	}
	vals := make([]repr.Datum, len(params))
	for i, raw := range params {
		if raw == nil {
			continue
		}
		v, err := p.s.parseParam(p.types, p.labels, i, string(raw))
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	st, generated, reads, err := p.s.replanIfGone(p.sql, p.types, p.stmt, p.generated, p.reads)
	if err != nil {
		return nil, err
	}
	p.stmt, p.generated, p.reads = st, generated, reads
	if generated {
		reads = nil
		again, _, err := planner.PlanWithParams(p.s.planningCatalog(nil, &reads), p.sql, p.types)
		if err != nil {
			return nil, err
		}
		st = again
	}
	if st != nil && len(vals) > 0 {
		var err error
		if st, err = planner.BindParams(st, vals); err != nil {
			return nil, err
		}
	}
	return &portal{s: p.s, stmt: st, sql: p.sql, reads: reads}, nil
}

// Close implements pgwire.Statement.
func (p *preparedStatement) Close() {}

// portal runs a bound statement, keeping a query's rows between
// Executes so that a row limit can resume where it stopped.
type portal struct {
	s     *Session
	sql   string
	stmt  planner.Statement
	reads []planner.Read
	done  bool
	res   *result
	next  int
}

// Execute implements pgwire.Portal.
func (p *portal) Execute(ctx context.Context, maxRows int, w pgwire.Writer) (pgwire.Completion, error) {
	if p.stmt == nil {
		return pgwire.Completion{}, nil
	}
	if p.res == nil {
		if p.done {
			return pgwire.Completion{Tag: p.stmt.Tag() + " 0"}, nil
		}
		s := p.s
		if s.tx.status == pgwire.TxFailed && !endsTx(p.stmt) {
			return pgwire.Completion{}, sqlerr.New(sqlerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
		var res result
		streamed := false
		s.beginStatement(p.sql)
		start := time.Now()
		defer func() { s.engine.metrics.observeStatement(p.stmt.Tag(), time.Since(start)) }()
		err := s.run(ctx, func(ctx context.Context) error {
			var err error
			res, err = s.execute(ctx, p.stmt, p.reads, w)
			if err != nil || res.stream == nil {
				return err
			}
			// With no row limit the rows go out as they come; with one,
			// they are kept for the Executes that resume the portal.
			emit := w.Row
			if maxRows > 0 {
				emit = func(r [][]byte) error {
					res.rows = append(res.rows, r)
					return nil
				}
			}
			var n int64
			n, err = res.stream(ctx, emit)
			res.stream, res.tag, streamed = nil, fmt.Sprintf("SELECT %d", n), maxRows <= 0
			return err
		})
		defer s.endStatement()
		if err != nil {
			s.failTx()
			return pgwire.Completion{}, err
		}
		if streamed {
			p.done = true
			return pgwire.Completion{Tag: res.tag}, nil
		}
		p.res = &res
	}
	rows := p.res.rows[p.next:]
	if maxRows > 0 && len(rows) > maxRows {
		for _, r := range rows[:maxRows] {
			if err := w.Row(r); err != nil {
				return pgwire.Completion{}, err
			}
		}
		p.next += maxRows
		return pgwire.Completion{Suspended: true}, nil
	}
	for _, r := range rows {
		if err := w.Row(r); err != nil {
			return pgwire.Completion{}, err
		}
	}
	tag := p.res.tag
	if p.res.columns != nil && !returnsRows(p.stmt) {
		tag = fmt.Sprintf("SELECT %d", len(p.res.rows))
	}
	p.res, p.done = nil, true
	return pgwire.Completion{Tag: tag}, nil
}

// Close implements pgwire.Portal.
func (p *portal) Close() {}

// textColumn describes a result column of type text.
func textColumn(name string) pgwire.Column {
	return pgwire.Column{Name: name, TypeOID: repr.Text.OID(), TypeSize: -1, TypeModifier: -1}
}

// returningColumns describes a RETURNING list's result; nil for none.
func returningColumns(ret *planner.Returning) []pgwire.Column {
	if ret == nil {
		return nil
	}
	return describe(ret.Columns)
}

// returnsRows reports whether st is an INSERT, UPDATE or DELETE with a
// RETURNING list, or a FETCH, whose rows complete with the statement's
// own tag.
func returnsRows(st planner.Statement) bool {
	switch st := st.(type) {
	case *planner.Insert:
		return st.Returning != nil
	case *planner.Update:
		return st.Returning != nil
	case *planner.Delete:
		return st.Returning != nil
	case *planner.Fetch:
		return true
	}
	return false
}

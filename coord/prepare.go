package coord

import (
	"context"

	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// SQL-level prepared statements (PREPARE, EXECUTE, DEALLOCATE), kept
// per session beside the protocol's, which they do not share names
// with, as in PostgreSQL.

// sqlPrepared is a statement PREPARE planned.
type sqlPrepared struct {
	sql       string
	stmt      planner.Statement
	types     []repr.Type
	labels    []*repr.EnumLabels
	generated bool
	reads     []planner.Read
}

func (s *Session) prepare(st *planner.Prepare) (result, error) {
	if _, ok := s.sqlPrepared[st.Name]; ok {
		return result{}, sqlerr.New(sqlerr.DuplicatePreparedStatement, "prepared statement %q already exists", st.Name)
	}
	var generated bool
	var reads []planner.Read
	stmt, types, err := planner.PlanWithParams(s.planningCatalog(&generated, &reads), st.SQL, st.Types)
	if err != nil {
		return result{}, err
	}
	switch stmt.(type) {
	case *planner.Prepare, *planner.Execute, *planner.Deallocate:
		return result{}, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near %q", stmt.Tag())
	}
	if s.sqlPrepared == nil {
		s.sqlPrepared = map[string]*sqlPrepared{}
	}
	labels, err := s.paramLabels(types)
	if err != nil {
		return result{}, err
	}
	s.sqlPrepared[st.Name] = &sqlPrepared{sql: st.SQL, stmt: stmt, types: types, labels: labels, generated: generated, reads: reads}
	return result{tag: st.Tag()}, nil
}

func (s *Session) executePrepared(ctx context.Context, st *planner.Execute, w pgwire.Writer) (result, error) {
	p := s.sqlPrepared[st.Name]
	if p == nil {
		return result{}, sqlerr.New(sqlerr.InvalidSQLStatementName, "prepared statement %q does not exist", st.Name)
	}
	if len(st.Args) != len(p.types) {
		return result{}, sqlerr.New(sqlerr.SyntaxError, "wrong number of parameters for prepared statement %q", st.Name).
			WithDetail("Expected %d parameters but got %d.", len(p.types), len(st.Args))
	}
	// The arguments are evaluated once, as the statement's: now() and
	// random() take their values as in a query, nextval its session's.
	args, err := s.bindScalars(st.Args, nil, "the arguments of EXECUTE")
	if err != nil {
		return result{}, err
	}
	vals := make([]repr.Datum, len(args))
	for i, a := range args {
		v, err := a.Eval(nil)
		if err != nil {
			return result{}, err
		}
		if v.IsNull() {
			continue
		}
		// A string literal is read as the parameter's type; any other
		// value is cast to it, as an assignment would.
		if v.Kind() == repr.KindText && p.types[i].Kind() != repr.KindText {
			v, err = s.parseParam(p.types, p.labels, i, v.Text())
		} else {
			v, err = repr.AssignCastIn(v, p.types[i], s.zone())
		}
		if err != nil {
			return result{}, err
		}
		vals[i] = v
	}
	stmt, generated, reads, err := s.replanIfGone(p.sql, p.types, p.stmt, p.generated, p.reads)
	if err != nil {
		return result{}, err
	}
	p.stmt, p.generated, p.reads = stmt, generated, reads
	if generated {
		reads = nil
		again, _, err := planner.PlanWithParams(s.planningCatalog(nil, &reads), p.sql, p.types)
		if err != nil {
			return result{}, err
		}
		stmt = again
	}
	if len(vals) > 0 {
		var err error
		if stmt, err = planner.BindParams(stmt, vals); err != nil {
			return result{}, err
		}
	}
	return s.execute(ctx, stmt, reads, w)
}

func (s *Session) deallocate(st *planner.Deallocate) (result, error) {
	if st.All {
		s.sqlPrepared = nil
		return result{tag: "DEALLOCATE ALL"}, nil
	}
	if _, ok := s.sqlPrepared[st.Name]; !ok {
		return result{}, sqlerr.New(sqlerr.InvalidSQLStatementName, "prepared statement %q does not exist", st.Name)
	}
	delete(s.sqlPrepared, st.Name)
	return result{tag: st.Tag()}, nil
}

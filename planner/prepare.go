package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Prepare is PREPARE name [(types)] AS statement: the session plans SQL
// with parameters of Types (Unknown where the statement decides).
type Prepare struct {
	Name  string
	Types []repr.Type
	SQL   string
}

// Execute is EXECUTE name [(args)]; the arguments are constant
// expressions, evaluated with no row.
type Execute struct {
	Name string
	Args []expr.Scalar
}

// Deallocate is DEALLOCATE [PREPARE] name | ALL.
type Deallocate struct {
	Name string
	All  bool
}

func (*Prepare) Tag() string    { return "PREPARE" }
func (*Execute) Tag() string    { return "EXECUTE" }
func (*Deallocate) Tag() string { return "DEALLOCATE" }

func (p *planner) prepare(s *pg.PrepareStmt) (Statement, error) {
	out := &Prepare{Name: s.Name}
	for _, n := range s.Argtypes {
		t, err := p.b.typeFromName(n.GetTypeName())
		if err != nil {
			return nil, err
		}
		out.Types = append(out.Types, t)
	}
	sql, err := deparse(s.Query)
	if err != nil {
		return nil, sqlerr.Wrap(err, sqlerr.InternalError)
	}
	out.SQL = sql
	return out, nil
}

func (p *planner) execute(s *pg.ExecuteStmt) (Statement, error) {
	out := &Execute{Name: s.Name}
	for _, n := range s.Params {
		h, err := p.b.bindExpr(n, &exprCtx{clause: "EXECUTE parameter"})
		if err != nil {
			return nil, err
		}
		if hasSubquery(h) {
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "cannot use subquery in EXECUTE parameter"), p.b.sql, nodeLocation(n))
		}
		if h, err = foldScalar(h); err != nil {
			return nil, err
		}
		e, err := scalarToExpr(h, &exprConv{params: p.b.paramTypes()})
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, e)
	}
	return out, nil
}

func (p *planner) deallocate(s *pg.DeallocateStmt) (Statement, error) {
	return &Deallocate{Name: s.Name, All: s.Name == ""}, nil
}

package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// binder turns one statement's AST into HIR: it resolves names against
// scopes and the catalog, types every expression, and places aggregates.
type binder struct {
	cat Catalog
	// enumSnapshot names the first call bound whose value is a copy of
	// an enum's labels (enum_range and the like), which views refuse.
	enumSnapshot string
	// enums are the OIDs of the enum types the statement names, for the
	// dependencies of a view or an index (catalog.Object.UsesTypes).
	enums []uint32
	// sql is the text that AST locations index, for error positions.
	sql string
	// params holds the types of $1, $2, ...: given by the client, or
	// inferred from the first context that decides one; unknown if none
	// has yet.
	params []repr.Type
	// ctes is the stack of WITH bindings in effect, innermost last.
	ctes []cte
	// recursions counts the recursive WITH queries bound, for their ids.
	recursions int
	// macroArgs are the bound arguments of the catalog macro whose
	// template is being bound: its $n (bind_catalog_macros.go).
	macroArgs []hscalar
	// callColumns are the values that set-returning and window functions
	// called in a select list read (bind_srf.go, bind_window.go), by
	// call.
	callColumns map[*pg.FuncCall]hscalar
	// records are the record values of calls of record functions in the
	// select list (bind_record.go), by call.
	records map[*pg.FuncCall]recordValue
	// viewDepth counts views being inlined, to stop a cycle.
	viewDepth int
	// via is the view whose definition this binder binds (the innermost
	// one), zero for the statement itself: a relation read here is read
	// with that view owner's privileges.
	via expr.GlobalID
	// reads collects every catalog relation the statement reads, views
	// that are inlined and the relations inside them included; a view
	// definition's binder shares its reader's. Never nil.
	reads *[]Read
	// sessionZone is the session's time zone once zone has asked the
	// catalog for it: a statement is planned in one zone, and a lookup
	// for each cast of each value of a long VALUES list was a cost.
	sessionZone *repr.Zone
}

// Read is a catalog relation a statement reads: what a view or index
// made from the statement depends on, and what its reader needs the
// SELECT privilege on.
type Read struct {
	ID   expr.GlobalID
	Name QualifiedName
	Kind RelationKind
	// Via is the view through whose definition the statement reads the
	// relation (the innermost, if views nest), zero if the statement
	// names it itself. PostgreSQL checks a read through a view against
	// the view owner's privileges.
	Via expr.GlobalID
	// Keys are a table's unique keys, as column indexes; Indexed the key
	// columns of its indexes that joins may read (Relation.IndexKeys).
	Keys, Indexed [][]int
}

// ReadRecorder is what a Catalog implements to be told every relation a
// statement reads, as the statement is planned (once per relation and
// view it is read through).
type ReadRecorder interface {
	RecordRead(Read)
}

// noteRead records that the statement reads r, once per view it is
// read through.
func (b *binder) noteRead(r Relation) {
	for _, x := range *b.reads {
		if x.ID == r.ID && x.Via == b.via {
			return
		}
	}
	read := Read{ID: r.ID, Name: r.Name, Kind: r.Kind, Via: b.via}
	for _, k := range r.UniqueKeys {
		read.Keys = append(read.Keys, k.Columns)
	}
	read.Indexed = r.IndexKeys
	*b.reads = append(*b.reads, read)
	if rec, ok := b.cat.(ReadRecorder); ok {
		rec.RecordRead(read)
	}
}

// cte is a WITH query bound to a name.
type cte struct {
	name  string
	rel   hrel
	names []string
}

func newBinder(cat Catalog, sql string, params []repr.Type) *binder {
	return &binder{cat: cat, sql: sql, params: append([]repr.Type(nil), params...), reads: new([]Read)}
}

// param returns $n as a scalar of the type known so far.
func (b *binder) param(n int) (hscalar, error) {
	if n < 1 {
		return nil, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $%d", n)
	}
	for len(b.params) < n {
		b.params = append(b.params, repr.Unknown)
	}
	return hParam{n: n, t: b.params[n-1]}, nil
}

func (b *binder) setParamType(n int, t repr.Type) {
	if b.params[n-1].Kind() == repr.KindUnknown {
		b.params[n-1] = t
	}
}

// paramTypes returns the parameter types, unknown ones resolved to text
// as PostgreSQL resolves them.
func (b *binder) paramTypes() []repr.Type {
	out := make([]repr.Type, len(b.params))
	for i, t := range b.params {
		if t.Kind() == repr.KindUnknown {
			t = repr.Text
		}
		out[i] = t
	}
	return out
}

// exprCtx is where an expression is bound.
type exprCtx struct {
	// scope holds the columns names resolve to; nil for none.
	scope *scope
	// clause names the clause for messages ("WHERE", "JOIN conditions").
	clause string
	// aggs reports whether aggregates may appear (select list, HAVING,
	// ORDER BY of a query).
	aggs bool
	// inAgg is set inside an aggregate's arguments.
	inAgg bool
}

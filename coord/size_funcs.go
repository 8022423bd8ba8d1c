package coord

import (
	"fmt"
	"strings"

	"freshet/arrange"
	"freshet/catalog"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// The size functions measure what a relation holds where Freshet keeps
// it: the bytes of its arrangement's batches in memory, summed over the
// workers (arrange.Trace.SharedBytes). A table, a materialized view and
// an index each have one; a view that is not materialized, and a
// built-in catalog relation, hold nothing and measure 0. A table's log
// on disk is compacted to the same rows and is not counted again.

// isSizeFunc reports whether f is one of the engine's size functions.
func isSizeFunc(f expr.VariadicFunc) bool {
	switch f {
	case expr.RelationSize, expr.TableSize, expr.IndexesSize, expr.TotalRelationSize, expr.DatabaseSize:
		return true
	}
	return false
}

// sizeCall is a size function of a statement, bound to the engine and to
// the catalog as the statement was bound: it runs for each row, on a
// worker, and so never takes the engine's lock.
type sizeCall struct {
	f    expr.VariadicFunc
	args []expr.Scalar
	e    *Engine
	// indexes are the relations of the catalog, each with its indexes.
	indexes map[uint64][]uint64
	// databases are the databases, each with its relations and indexes.
	databases map[string][]uint64
}

// newSizeCall binds call c of a size function.
func (s *Session) newSizeCall(c expr.CallVariadic) sizeCall {
	sc := sizeCall{f: c.Func, args: c.Args, e: s.engine, indexes: map[uint64][]uint64{}, databases: map[string][]uint64{}}
	s.engine.Catalog(func(cat *catalog.Catalog) error {
		for _, o := range cat.Objects() {
			switch {
			case o.Kind == catalog.Database:
				if _, ok := sc.databases[o.Name]; !ok {
					sc.databases[o.Name] = nil
				}
			case o.Kind == catalog.Index:
				sc.indexes[o.On] = append(sc.indexes[o.On], o.ID)
				if _, ok := sc.indexes[o.ID]; !ok {
					sc.indexes[o.ID] = nil
				}
				sc.databases[o.Database] = append(sc.databases[o.Database], o.ID)
			case o.Kind.IsRelation() || o.Kind == catalog.Sequence:
				if _, ok := sc.indexes[o.ID]; !ok {
					sc.indexes[o.ID] = nil
				}
				sc.databases[o.Database] = append(sc.databases[o.Database], o.ID)
			}
		}
		return nil
	})
	return sc
}

// bytes is what export id holds now, over every worker; 0 if it has no
// arrangement.
func (c sizeCall) bytes(id uint64) int64 {
	var n int64
	for w := range c.e.workers {
		if tr, err := c.e.reg.Trace(arrange.GlobalID(id), w); err == nil {
			n += tr.SharedBytes()
		}
	}
	return n
}

func (c sizeCall) Eval(row []repr.Datum) (repr.Datum, error) {
	vals := make([]repr.Datum, len(c.args))
	for i, a := range c.args {
		v, err := a.Eval(row)
		if err != nil {
			return repr.Null, err
		}
		vals[i] = v
	}
	if vals[0].IsNull() {
		return repr.Null, nil
	}
	if c.f == expr.DatabaseSize {
		ids, ok := c.databases[vals[0].Text()]
		if !ok {
			return repr.Null, sqlerr.New(sqlerr.InvalidCatalogName, "database %q does not exist", vals[0].Text())
		}
		var n int64
		for _, id := range ids {
			n += c.bytes(id)
		}
		return repr.NewInt8(n), nil
	}
	oid := uint64(vals[0].Int())
	if oid < userOIDBase {
		// A built-in relation: a view over the catalog.
		return repr.NewInt8(0), nil
	}
	id := oid - userOIDBase
	indexes, known := c.indexes[id]
	if !known {
		// No such relation (dropped meanwhile): NULL, as in PostgreSQL.
		return repr.Null, nil
	}
	var n int64
	switch c.f {
	case expr.RelationSize:
		// Only the main fork holds anything.
		if len(vals) < 2 || vals[1].IsNull() || strings.EqualFold(vals[1].Text(), "main") {
			n = c.bytes(id)
		} else if f := strings.ToLower(vals[1].Text()); f != "fsm" && f != "vm" && f != "init" {
			return repr.Null, sqlerr.New(sqlerr.InvalidParameterValue, "invalid fork name").
				WithHint(`Valid fork names are "main", "fsm", "vm", and "init".`)
		}
	case expr.TableSize:
		n = c.bytes(id)
	case expr.IndexesSize:
		for _, ix := range indexes {
			n += c.bytes(ix)
		}
	case expr.TotalRelationSize:
		n = c.bytes(id)
		for _, ix := range indexes {
			n += c.bytes(ix)
		}
	}
	return repr.NewInt8(n), nil
}

func (c sizeCall) RewriteScalars(f func(expr.Scalar) expr.Scalar) expr.Scalar {
	out := c
	out.args = make([]expr.Scalar, len(c.args))
	for i, a := range c.args {
		out.args[i] = f(a)
	}
	return out
}

func (c sizeCall) Typ([]expr.ColumnType) expr.ColumnType {
	return expr.ColumnType{Type: repr.Int8, Nullable: true}
}

func (c sizeCall) Columns(dst []int) []int {
	for _, a := range c.args {
		dst = a.Columns(dst)
	}
	return dst
}

func (c sizeCall) String() string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", c.f, strings.Join(args, ", "))
}

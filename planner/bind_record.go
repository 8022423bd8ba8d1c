package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Records. Freshet has no composite types, but one function that
// returns records is called by drivers' catalog queries:
// information_schema._pg_expandarray(array), whose records (x, n) are an
// element and its position (pgjdbc's getPrimaryKeys and getIndexInfo
// select `(_pg_expandarray(i.indkey)).n`, and `_pg_expandarray(i.indkey)
// AS keys` in a subquery whose outer query reads `(result.keys).x`). A
// record is bound as its fields, kept beside the plan: where it is a
// value (a column of the result), it is its text form, as record_out
// prints it ("(3,1)", a NULL field empty); field selection, `(r).x`,
// reads the field itself, from the call or from a column of a FROM
// subquery that selected the record (scopeItem.fields).

// recordField is one named field of a record value.
type recordField struct {
	name  string
	value hscalar
}

// recordValue is a record: its fields, and its text form.
type recordValue struct {
	fields []recordField
	text   hscalar
}

// isRecordSRF reports whether fc calls a set-returning function whose
// values are records.
func isRecordSRF(fc *pg.FuncCall) bool {
	name, err := funcName(fc)
	return err == nil && name == "_pg_expandarray"
}

// record builds a record of fields, with its text form.
func (b *binder) record(fields []recordField) (recordValue, error) {
	args := []hscalar{hLiteral{v: repr.NewText("("), t: repr.Text}}
	for i, f := range fields {
		if i > 0 {
			args = append(args, hLiteral{v: repr.NewText(","), t: repr.Text})
		}
		text, err := b.explicitCast(f.value, repr.Text)
		if err != nil {
			return recordValue{}, err
		}
		args = append(args, text)
	}
	args = append(args, hLiteral{v: repr.NewText(")"), t: repr.Text})
	if b.records == nil {
		b.records = map[*pg.FuncCall]recordValue{}
	}
	return recordValue{fields: fields, text: hVariadic{fn: expr.Concat2, args: args, t: expr.ColumnType{Type: repr.Text}}}, nil
}

// field returns the field of r called name.
func (r recordValue) field(name string) (hscalar, bool) {
	for _, f := range r.fields {
		if f.name == name {
			return f.value, true
		}
	}
	return nil, false
}

// recordOf returns the record that the expression n is, if it is one:
// a call of a record function, or a column that holds a subquery's
// record.
func (b *binder) recordOf(n *pg.Node, c *exprCtx) (recordValue, bool, error) {
	if fc := n.GetFuncCall(); fc != nil {
		rec, ok := b.records[fc]
		return rec, ok, nil
	}
	cr := n.GetColumnRef()
	if cr == nil || c == nil || c.scope == nil {
		return recordValue{}, false, nil
	}
	s, err := b.bindExpr(n, c)
	if err != nil {
		return recordValue{}, false, err
	}
	col, ok := s.(hColumn)
	if !ok {
		return recordValue{}, false, nil
	}
	sc := c.scope
	for range col.level {
		sc = sc.parent
	}
	for _, it := range sc.items {
		if it.col == col.index && it.fields != nil {
			rec := recordValue{text: col}
			for _, f := range it.fields {
				rec.fields = append(rec.fields, recordField{f.name, hColumn{level: col.level, index: f.col, t: f.typ, name: f.name}})
			}
			return rec, true, nil
		}
	}
	return recordValue{}, false, nil
}

// selectField binds (arg).name.
func (b *binder) selectField(arg *pg.Node, name string, c *exprCtx) (hscalar, error) {
	rec, ok, err := b.recordOf(arg, c)
	if err != nil {
		return nil, err
	}
	if !ok {
		s, err := b.bindExpr(arg, c)
		if err != nil {
			return nil, err
		}
		return nil, errorAt(sqlerr.New(sqlerr.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, typeName(s.typ().Type)), b.sql, nodeLocation(arg))
	}
	v, ok := rec.field(name)
	if !ok {
		return nil, errorAt(sqlerr.New(sqlerr.UndefinedColumn, "could not identify column %q in record data type", name), b.sql, nodeLocation(arg))
	}
	return v, nil
}

// recordScopeField is a field of a record column of a FROM subquery: a
// column of the subquery's relation that only field selection reaches.
type recordScopeField struct {
	name string
	col  int
	typ  expr.ColumnType
}

// boundRecord is a record column of a query's result: the output
// position of its text form, and its fields as hidden columns.
type boundRecord struct {
	output int
	fields []recordScopeField
}

package planner

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// target resolves the table a statement writes; verb says what the
// statement does to it, for the error when it is not a table.
func (p *planner) target(rv *pg.RangeVar, verb string) (Target, Relation, error) {
	r, err := p.cat.ResolveRelation(qualifiedName(rv))
	if err != nil {
		return Target{}, Relation{}, errorAt(err, p.b.sql, rv.Location)
	}
	if r.Name.Schema == "pg_catalog" {
		// The system catalogs are the server's; no user writes them.
		return Target{}, r, errorAt(sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied for table %s", rv.Relname), p.b.sql, rv.Location)
	}
	switch r.Kind {
	case KindTable:
	case KindMaterializedView:
		return Target{}, r, errorAt(sqlerr.New(sqlerr.WrongObjectType, "cannot change materialized view %q", rv.Relname), p.b.sql, rv.Location)
	default:
		return Target{}, r, errorAt(sqlerr.New(sqlerr.WrongObjectType, "cannot %s %s %q", verb, r.Kind, rv.Relname), p.b.sql, rv.Location)
	}
	t := Target{ID: r.ID, Name: r.Name, Shape: r.Shape}
	for _, c := range r.Columns {
		t.Columns = append(t.Columns, Column{Name: c.Name, Type: c.Type.Type, Nullable: c.Type.Nullable})
	}
	return t, r, nil
}

// defaultOf is column i's default as a scalar.
func defaultOf(r Relation, i int) hscalar {
	if d := r.Columns[i].Default; d != nil {
		return hExpr{s: d}
	}
	return hLiteral{v: repr.Null, t: r.Columns[i].Type.Type}
}

func errAssignType(column string, to, from repr.Type) error {
	return sqlerr.New(sqlerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", column, typeName(to), typeName(from)).
		WithHint("You will need to rewrite or cast the expression.")
}

// assign casts s to column i's type as a stored value is. A constant
// is cast at once, so that each value of a long VALUES list is one
// literal from here on. A constant the cast refuses stays a cast: the
// folding of the statement's constants reports its error later, as
// PostgreSQL's does (after every value is bound, without a position).
func (p *planner) assign(s hscalar, r Relation, i int) (hscalar, error) {
	t := r.Columns[i].Type.Type
	c, ok, err := p.b.coerce(s, t, repr.CastAssignment)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errAssignType(r.Columns[i].Name, t, s.typ().Type)
	}
	if cast, ok := c.(hCast); ok {
		if l, ok := cast.arg.(hLiteral); ok && isConstant(l) {
			if folded, err := castConstant(cast, l); err == nil {
				return folded, nil
			}
		}
	}
	return c, nil
}

// checkNotNull makes plan fail with 23502 where a NOT NULL column of the
// table, whose columns start at base, is NULL.
func checkNotNull(plan expr.Relation, t Target, base int) expr.Relation {
	ts := plan.Typ()
	var checks []expr.Scalar
	outs := seq(0, len(ts))
	for i, c := range t.Columns {
		if c.Nullable || !ts[base+i].Nullable {
			continue
		}
		col := expr.Column{Index: base + i}
		checks = append(checks, expr.If{
			Cond: expr.CallUnary{Func: expr.IsNull, Arg: col},
			Then: raise{code: sqlerr.NotNullViolation, typ: c.Type,
				message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", c.Name, t.Name.Name)},
			Else: col,
		})
		outs[base+i] = len(ts) + len(checks) - 1
	}
	if len(checks) == 0 {
		return plan
	}
	return expr.Project{Input: expr.Map{Input: plan, Scalars: checks}, Outputs: outs}
}

// insert plans INSERT is. fast, if not nil, holds is's values as
// parseFastInsert read them, and is has no SelectStmt: the rows are made
// from the literals where they can be, and from fast's full tree where
// not.
func (p *planner) insert(is *pg.InsertStmt, fast *fastInsert) (Statement, error) {
	switch {
	case is.WithClause != nil:
		return nil, unsupported("WITH in INSERT")
	}
	tgt, r, err := p.target(is.Relation, "insert into")
	if err != nil {
		return nil, err
	}
	cols, err := p.insertColumns(is.Cols, r, is.Relation.Relname)
	if err != nil {
		return nil, err
	}
	types := make([]repr.Type, len(r.Columns))
	for i, c := range r.Columns {
		types[i] = c.Type.Type
	}
	var rel hrel
	if fast != nil {
		if c, ok := p.constantRows(is.Override, fast.rows(), fast.width, fast.at, r, cols, types); ok {
			rel = c
		} else {
			is = fast.tree().GetInsertStmt()
		}
	}
	sel := is.SelectStmt.GetSelectStmt()
	switch {
	case rel != nil:
	case sel == nil:
		// DEFAULT VALUES
		row := make([]hscalar, len(r.Columns))
		for i := range row {
			row[i] = defaultOf(r, i)
		}
		if rel, err = p.b.valuesRelation([][]hscalar{row}, types); err != nil {
			return nil, err
		}
	case len(sel.ValuesLists) > 0 && sel.Op == pg.SetOperation_SETOP_NONE && sel.SortClause == nil &&
		sel.LimitCount == nil && sel.LimitOffset == nil && sel.WithClause == nil:
		// VALUES: each value is cast to its column's type directly, so an
		// untyped literal is read as that type.
		if c, ok := p.constantRows(is.Override, len(sel.ValuesLists), valuesWidth(sel), valuesLiteral(sel), r, cols, types); ok {
			rel = c
		} else if rel, err = p.valuesInsert(is, sel, r, cols, types); err != nil {
			return nil, err
		}
	default:
		q, err := p.b.bindQuery(sel, nil)
		if err != nil {
			return nil, err
		}
		src, err := p.b.nestedKeepUnknown(q)
		if err != nil {
			return nil, err
		}
		if err := insertArity(q.visible, len(cols), is.Cols != nil); err != nil {
			return nil, err
		}
		cols = cols[:q.visible]
		have := src.types()
		want := make([]repr.Type, len(cols))
		for j, c := range cols {
			want[j] = types[c]
			if have[j].Type.Kind() != repr.KindUnknown && repr.TypeCastContext(have[j].Type, want[j]) < repr.CastAssignment {
				return nil, errAssignType(r.Columns[c].Name, want[j], have[j].Type)
			}
		}
		if src, err = p.b.coerceColumns(src, want, repr.CastAssignment, "INSERT"); err != nil {
			return nil, err
		}
		// The full row: the source's columns where given, else defaults.
		row := make([]hscalar, len(r.Columns))
		for i := range row {
			row[i] = defaultOf(r, i)
		}
		for j, c := range cols {
			if overridden(r, c, is.Override) {
				continue
			}
			if err := checkIdentityInsert(r, c, is.Override); err != nil {
				return nil, err
			}
			row[c] = hColumn{index: j, t: src.types()[j]}
		}
		m, outs := mapOutputs(src, row)
		rel = hProject{input: m, outputs: outs}
	}
	plan, err := p.lower(rel)
	if err != nil {
		return nil, err
	}
	ret, err := p.returning(is.ReturningList, r, aliasOf(is.Relation))
	if err != nil {
		return nil, err
	}
	ins := &Insert{Table: tgt, Plan: checkNotNull(plan, tgt, 0), Returning: ret}
	if is.OnConflictClause != nil {
		if ins.OnConflict, err = p.onConflict(is.OnConflictClause, r, is.Relation); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// valuesInsert binds the values of an INSERT … VALUES into table r, whose
// columns cols the values are for, and makes the relation of their full
// rows: each value is bound and assigned to its column, and each column
// left out takes its default.
func (p *planner) valuesInsert(is *pg.InsertStmt, sel *pg.SelectStmt, r Relation, cols []int, types []repr.Type) (hrel, error) {
	def := func(i int) (hscalar, error) {
		if i >= len(cols) {
			return nil, sqlerr.New(sqlerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		return defaultOf(r, cols[i]), nil
	}
	rows, err := p.b.bindValuesRows(sel.ValuesLists, nil, def)
	if err != nil {
		return nil, err
	}
	full := make([][]hscalar, len(rows))
	// Each row starts from the defaults; a scalar is a value, so
	// the rows share them.
	defaults := make([]hscalar, len(r.Columns))
	for i := range defaults {
		defaults[i] = defaultOf(r, i)
	}
	for ri, row := range rows {
		if err := insertArity(len(row), len(cols), is.Cols != nil); err != nil {
			return nil, errorAt(err, p.b.sql, nodeLocation(sel.ValuesLists[ri].GetList().GetItems()[0]))
		}
		out := make([]hscalar, len(r.Columns))
		copy(out, defaults)
		for j, s := range row {
			item := sel.ValuesLists[ri].GetList().GetItems()[j]
			if item.GetSetToDefault() != nil || overridden(r, cols[j], is.Override) {
				continue
			}
			if err := checkIdentityInsert(r, cols[j], is.Override); err != nil {
				return nil, errorAt(err, p.b.sql, nodeLocation(item))
			}
			if out[cols[j]], err = p.assign(s, r, cols[j]); err != nil {
				return nil, errorAt(err, p.b.sql, nodeLocation(item))
			}
		}
		full[ri] = out
	}
	return p.b.valuesRelation(full, types)
}

// insertColumns resolves an INSERT's column list over table r, named
// relname in the statement, to column indexes; no list is every column.
func (p *planner) insertColumns(list []*pg.Node, r Relation, relname string) ([]int, error) {
	if list == nil {
		return seq(0, len(r.Columns)), nil
	}
	var cols []int
	seen := map[int]bool{}
	for _, n := range list {
		rt := n.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, errorAt(unsupported("assigning to subscripts or fields"), p.b.sql, rt.Location)
		}
		i := columnIndex(r, rt.Name)
		if i < 0 {
			return nil, errorAt(sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, relname), p.b.sql, rt.Location)
		}
		if seen[i] {
			return nil, errorAt(sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", rt.Name), p.b.sql, rt.Location)
		}
		seen[i] = true
		cols = append(cols, i)
	}
	return cols, nil
}

// checkIdentityInsert refuses a value given for column i, a GENERATED
// ALWAYS identity column, unless the INSERT says OVERRIDING SYSTEM
// VALUE, as PostgreSQL does.
func checkIdentityInsert(r Relation, i int, override pg.OverridingKind) error {
	if r.Columns[i].Identity != 'a' || override == pg.OverridingKind_OVERRIDING_SYSTEM_VALUE {
		return nil
	}
	name := r.Columns[i].Name
	return sqlerr.New(sqlerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", name).
		WithHint("Use OVERRIDING SYSTEM VALUE to override.")
}

// overridden reports whether an INSERT's value for column i is ignored
// for its identity column's next value: OVERRIDING USER VALUE.
func overridden(r Relation, i int, override pg.OverridingKind) bool {
	return override == pg.OverridingKind_OVERRIDING_USER_VALUE && r.Columns[i].Identity != 0
}

// insertArity checks the number of values an INSERT gives against the
// number of its target columns: without a column list, fewer values fill
// the first columns and the rest take their defaults, as in PostgreSQL.
func insertArity(values, cols int, listed bool) error {
	switch {
	case values > cols:
		return sqlerr.New(sqlerr.SyntaxError, "INSERT has more expressions than target columns")
	case values < cols && listed:
		return sqlerr.New(sqlerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	return nil
}

func columnIndex(r Relation, name string) int {
	for i, c := range r.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// tableScope reads the target table with its scope, for UPDATE and
// DELETE.
func (p *planner) tableScope(rv *pg.RangeVar, r Relation) (hrel, *scope, error) {
	rel, err := p.b.readRelation(r)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		names[i] = c.Name
	}
	items, err := aliasItems(rel, rv.Relname, names, rv.Alias)
	return rel, &scope{items: items}, err
}

func (p *planner) where(rel hrel, sc *scope, n *pg.Node) (hrel, error) {
	if n == nil {
		return rel, nil
	}
	if containsAggregate([]*pg.Node{n}) {
		return nil, errorAt(sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in WHERE"), p.b.sql, nodeLocation(n))
	}
	pred, err := p.b.bindExpr(n, &exprCtx{scope: sc, clause: "WHERE"})
	if err != nil {
		return nil, err
	}
	if pred, err = p.b.coerceBool(pred, "WHERE"); err != nil {
		return nil, errorAt(err, p.b.sql, nodeLocation(n))
	}
	return hFilter{input: rel, preds: []hscalar{pred}}, nil
}

func (p *planner) update(us *pg.UpdateStmt) (Statement, error) {
	switch {
	case us.WithClause != nil:
		return nil, unsupported("WITH in UPDATE")
	case len(us.FromClause) > 0:
		return nil, unsupported("UPDATE ... FROM")
	}
	tgt, r, err := p.target(us.Relation, "update")
	if err != nil {
		return nil, err
	}
	rel, sc, err := p.tableScope(us.Relation, r)
	if err != nil {
		return nil, err
	}
	if rel, err = p.where(rel, sc, us.WhereClause); err != nil {
		return nil, err
	}
	n := len(r.Columns)
	row := make([]hscalar, n)
	for i := range row {
		row[i] = hColumn{index: i, t: r.Columns[i].Type, name: r.Columns[i].Name}
	}
	if err := p.assignments(us.TargetList, r, sc, row); err != nil {
		return nil, err
	}
	m, outs := mapOutputs(rel, row)
	plan, err := p.lower(hProject{input: m, outputs: append(seq(0, n), outs...)})
	if err != nil {
		return nil, err
	}
	ret, err := p.returning(us.ReturningList, r, aliasOf(us.Relation))
	if err != nil {
		return nil, err
	}
	return &Update{Table: tgt, Plan: checkNotNull(plan, tgt, n), Returning: ret}, nil
}

func (p *planner) delete(ds *pg.DeleteStmt) (Statement, error) {
	switch {
	case ds.WithClause != nil:
		return nil, unsupported("WITH in DELETE")
	case len(ds.UsingClause) > 0:
		return nil, unsupported("DELETE ... USING")
	}
	tgt, r, err := p.target(ds.Relation, "delete from")
	if err != nil {
		return nil, err
	}
	rel, sc, err := p.tableScope(ds.Relation, r)
	if err != nil {
		return nil, err
	}
	if rel, err = p.where(rel, sc, ds.WhereClause); err != nil {
		return nil, err
	}
	plan, err := p.lower(rel)
	if err != nil {
		return nil, err
	}
	ret, err := p.returning(ds.ReturningList, r, aliasOf(ds.Relation))
	if err != nil {
		return nil, err
	}
	return &Delete{Table: tgt, Plan: plan, Returning: ret}, nil
}

func (p *planner) copy(cs *pg.CopyStmt) (Statement, error) {
	if cs.Filename != "" || cs.IsProgram {
		return nil, unsupported("COPY to or from a file or program")
	}
	if cs.WhereClause != nil {
		return nil, unsupported("COPY ... WHERE")
	}
	opts, err := copyOptions(cs.Options, cs.IsFrom)
	if err != nil {
		return nil, err
	}
	if !cs.IsFrom {
		var sel *pg.SelectStmt
		if cs.Query != nil {
			if sel = cs.Query.GetSelectStmt(); sel == nil {
				return nil, unsupported("COPY of this statement")
			}
		} else {
			sel = copySelect(cs)
		}
		q, err := p.selectStmt(sel)
		if err != nil {
			return nil, err
		}
		if opts.ForceQuote, err = p.copyForceQuote(cs, q); err != nil {
			return nil, err
		}
		return &CopyTo{Query: q, Options: opts}, nil
	}
	tgt, r, err := p.target(cs.Relation, "copy to")
	if err != nil {
		return nil, err
	}
	c := &Copy{Table: tgt, Options: opts}
	seen := map[int]bool{}
	for _, a := range cs.Attlist {
		name := a.GetString_().GetSval()
		i := columnIndex(r, name)
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", name, cs.Relation.Relname)
		}
		if seen[i] {
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[i] = true
		c.Columns = append(c.Columns, i)
	}
	if cs.Attlist == nil {
		c.Columns = seq(0, len(r.Columns))
	}
	if c.Options.ForceNotNull, err = copyForced(cs, r, c.Columns, "force_not_null", "FORCE_NOT_NULL"); err != nil {
		return nil, err
	}
	if c.Options.ForceNull, err = copyForced(cs, r, c.Columns, "force_null", "FORCE_NULL"); err != nil {
		return nil, err
	}
	for _, col := range r.Columns {
		c.defaults = append(c.defaults, col.Default)
	}
	c.Labels = make([]*repr.EnumLabels, len(c.Columns))
	for j, i := range c.Columns {
		if t := r.Columns[i].Type.Type; t.EnumOID() != 0 {
			if c.Labels[j], err = p.b.enumLabels(t); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// copySelect is the query COPY table [(columns)] TO reads.
func copySelect(cs *pg.CopyStmt) *pg.SelectStmt {
	var targets []*pg.Node
	if len(cs.Attlist) == 0 {
		targets = append(targets, pg.MakeResTargetNodeWithVal(pg.MakeColumnRefNode([]*pg.Node{pg.MakeAStarNode()}, -1), -1))
	}
	for _, a := range cs.Attlist {
		targets = append(targets, pg.MakeResTargetNodeWithVal(pg.MakeColumnRefNode([]*pg.Node{a}, -1), -1))
	}
	return &pg.SelectStmt{TargetList: targets, FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: cs.Relation}}},
		Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}
}

// copyOptions reads COPY's options and checks them as PostgreSQL 15's
// ProcessCopyOptions does, in its order, so that the first error is
// the one PostgreSQL reports. FORCE_NOT_NULL and FORCE_NULL name columns
// and are resolved by the caller (copyForced).
func copyOptions(defs []*pg.Node, from bool) (CopyOptions, error) {
	o := CopyOptions{Format: "text"}
	set := map[string]bool{}
	for _, n := range defs {
		d := n.GetDefElem()
		if set[d.Defname] {
			return o, sqlerr.New(sqlerr.SyntaxError, "conflicting or redundant options")
		}
		set[d.Defname] = true
		val := defElemString(d.Arg)
		switch d.Defname {
		case "format":
			if val != "text" && val != "csv" && val != "binary" {
				return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY format %q not recognized", val)
			}
			o.Format = val
		case "delimiter":
			o.Delimiter = val
		case "null":
			o.Null = val
		case "header":
			if d.Arg == nil {
				o.Header = true
				break
			}
			if strings.EqualFold(val, "match") {
				if !from {
					return o, sqlerr.New(sqlerr.FeatureNotSupported, "cannot use \"%s\" with HEADER in COPY TO", val)
				}
				o.Header, o.HeaderMatch = true, true
				break
			}
			b, ok := parseBoolOption(val)
			if !ok {
				return o, sqlerr.New(sqlerr.SyntaxError, "%s requires a Boolean value or \"match\"", d.Defname)
			}
			o.Header = b
		case "quote":
			o.Quote = val
		case "escape":
			o.Escape = val
		case "force_quote":
			// FORCE_QUOTE * is an A_Star; a list names columns, which the
			// caller resolves (copyForceQuote).
			if _, star := d.Arg.GetNode().(*pg.Node_AStar); star {
				o.ForceQuoteAll = true
				break
			}
			if _, ok := d.Arg.GetNode().(*pg.Node_List); !ok {
				return o, sqlerr.New(sqlerr.SyntaxError, "argument to option \"%s\" must be a list of column names", d.Defname)
			}
		case "force_not_null", "force_null":
			if _, ok := d.Arg.GetNode().(*pg.Node_List); !ok {
				return o, sqlerr.New(sqlerr.SyntaxError, "argument to option \"%s\" must be a list of column names", d.Defname)
			}
		case "encoding":
			if u := strings.ToUpper(strings.ReplaceAll(val, "-", "")); u != "UTF8" {
				return o, unsupported("COPY encoding %s", val)
			}
		default:
			return o, unsupported("COPY option %s", d.Defname)
		}
	}
	csv := o.Format == "csv"
	if o.Format == "binary" {
		// The binary format has no delimiters, NULL strings or header
		// line: PostgreSQL refuses them, each in its own words.
		switch {
		case set["delimiter"]:
			return o, sqlerr.New(sqlerr.SyntaxError, "cannot specify DELIMITER in BINARY mode")
		case set["null"]:
			return o, sqlerr.New(sqlerr.SyntaxError, "cannot specify NULL in BINARY mode")
		}
	} else {
		if !set["delimiter"] {
			o.Delimiter = "\t"
			if csv {
				o.Delimiter = ","
			}
		}
		if !set["null"] {
			o.Null = `\N`
			if csv {
				o.Null = ""
			}
		}
		if csv && !set["quote"] {
			o.Quote = `"`
		}
		if csv && !set["escape"] {
			o.Escape = o.Quote
		}
		if len(o.Delimiter) != 1 {
			return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		if o.Delimiter == "\n" || o.Delimiter == "\r" {
			return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
		}
		if strings.ContainsAny(o.Null, "\r\n") {
			return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
		}
		if !csv && strings.Contains(`\.abcdefghijklmnopqrstuvwxyz0123456789`, o.Delimiter) {
			return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY delimiter cannot be \"%s\"", o.Delimiter)
		}
	}
	switch {
	case o.Format == "binary" && set["header"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
	case !csv && set["quote"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY quote available only in CSV mode")
	case csv && len(o.Quote) != 1:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY quote must be a single one-byte character")
	case csv && o.Delimiter == o.Quote:
		return o, sqlerr.New(sqlerr.InvalidParameterValue, "COPY delimiter and quote must be different")
	case !csv && set["escape"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY escape available only in CSV mode")
	case csv && len(o.Escape) != 1:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY escape must be a single one-byte character")
	case !csv && set["force_quote"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force quote available only in CSV mode")
	case set["force_quote"] && from:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force quote only available using COPY TO")
	case !csv && set["force_not_null"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force not null available only in CSV mode")
	case set["force_not_null"] && !from:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force not null only available using COPY FROM")
	case !csv && set["force_null"]:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force null available only in CSV mode")
	case set["force_null"] && !from:
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY force null only available using COPY FROM")
	case o.Format != "binary" && strings.Contains(o.Null, o.Delimiter):
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "COPY delimiter must not appear in the NULL specification")
	case csv && strings.Contains(o.Null, o.Quote):
		return o, sqlerr.New(sqlerr.FeatureNotSupported, "CSV quote character must not appear in the NULL specification")
	}
	return o, nil
}

// parseBoolOption reads a Boolean option's value as PostgreSQL's
// parse_bool does: true, false, yes, no and unambiguous prefixes of
// them, on, off, 1 and 0, in any case.
func parseBoolOption(s string) (value, ok bool) {
	l := strings.ToLower(s)
	switch {
	case l == "":
		return false, false
	case strings.HasPrefix("true", l), strings.HasPrefix("yes", l), l == "on", l == "1":
		return true, true
	case strings.HasPrefix("false", l), strings.HasPrefix("no", l), l == "off", l == "0":
		return false, true
	}
	return false, false
}

// copyForced resolves the columns of COPY FROM's FORCE_NOT_NULL or
// FORCE_NULL option (defname) to flags over the data's columns: each
// must name a column of the table (42703) that the COPY reads (42P10).
func copyForced(cs *pg.CopyStmt, r Relation, cols []int, defname, label string) ([]bool, error) {
	var flags []bool
	for _, n := range cs.Options {
		d := n.GetDefElem()
		if d.Defname != defname {
			continue
		}
		flags = make([]bool, len(cols))
		for _, item := range d.Arg.GetList().GetItems() {
			name := item.GetString_().GetSval()
			i := columnIndex(r, name)
			if i < 0 {
				return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", name, cs.Relation.Relname)
			}
			found := false
			for k, c := range cols {
				if c == i {
					flags[k], found = true, true
				}
			}
			if !found {
				return nil, sqlerr.New(sqlerr.InvalidColumnReference, "%s column %q not referenced by COPY", label, name)
			}
		}
	}
	return flags, nil
}

// copyForceQuote resolves COPY TO's FORCE_QUOTE column list to flags
// over the COPY's output columns, as PostgreSQL does: for a table, a name
// the table lacks is 42703 and one the COPY does not write 42P10; for a
// query, a name is one of its output columns (42703 if not). A column
// named twice is 42701. FORCE_QUOTE * is Options.ForceQuoteAll.
func (p *planner) copyForceQuote(cs *pg.CopyStmt, q *Select) ([]bool, error) {
	var list *pg.List
	for _, n := range cs.Options {
		if d := n.GetDefElem(); d.Defname == "force_quote" {
			list = d.Arg.GetList()
		}
	}
	if list == nil {
		return nil, nil
	}
	var table Relation
	if cs.Query == nil {
		// The query over the table has bound, so the name resolves.
		r, err := p.cat.ResolveRelation(qualifiedName(cs.Relation))
		if err != nil {
			return nil, err
		}
		table = r
	}
	flags := make([]bool, len(q.Columns))
	seen := map[string]bool{}
	for _, item := range list.GetItems() {
		name := item.GetString_().GetSval()
		if seen[name] {
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", name)
		}
		seen[name] = true
		if cs.Query == nil && columnIndex(table, name) < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", name, cs.Relation.Relname)
		}
		found := false
		for i, c := range q.Columns {
			if c.Name == name {
				flags[i], found = true, true
				break
			}
		}
		switch {
		case !found && cs.Query == nil:
			return nil, sqlerr.New(sqlerr.InvalidColumnReference, "FORCE_QUOTE column %q not referenced by COPY", name)
		case !found:
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", name)
		}
	}
	return flags, nil
}

func defElemString(n *pg.Node) string {
	switch x := n.GetNode().(type) {
	case *pg.Node_String_:
		return x.String_.Sval
	case *pg.Node_Integer:
		return strconv.Itoa(int(x.Integer.Ival))
	case *pg.Node_Float:
		return x.Float.Fval
	case *pg.Node_Boolean:
		return strconv.FormatBool(x.Boolean.Boolval)
	case *pg.Node_AConst:
		if s := x.AConst.GetSval(); s != nil {
			return s.Sval
		}
		if i := x.AConst.GetIval(); i != nil {
			return strconv.Itoa(int(i.Ival))
		}
	}
	return ""
}

// ParseField reads s, the text of the field of COPY data for Columns[j],
// as its column's type, as PostgreSQL's input function for the type
// does; a timestamptz without an offset is read in zone z.
func (c *Copy) ParseField(j int, s string, z *repr.Zone) (repr.Datum, error) {
	t := c.Table.Columns[c.Columns[j]].Type
	if j < len(c.Labels) && c.Labels[j] != nil {
		return repr.ParseTextLabels(t, s, z, c.Labels[j])
	}
	return repr.ParseTextIn(t, s, z)
}

// Row builds the table row for one row of COPY data: values holds the
// values of Columns, in order, already of their columns' types (or
// strings, which are read as those types); other columns take their
// defaults. A NULL in a NOT NULL column is 23502.
func (c *Copy) Row(values []repr.Datum) ([]repr.Datum, error) {
	if len(values) != len(c.Columns) {
		return nil, sqlerr.New(sqlerr.InvalidTextRepresentation, "expected %d columns, got %d", len(c.Columns), len(values))
	}
	row := make([]repr.Datum, len(c.Table.Columns))
	given := make([]bool, len(row))
	for j, i := range c.Columns {
		row[i], given[i] = values[j], true
		if j < len(c.Labels) && c.Labels[j] != nil && !row[i].IsNull() {
			// A string read as the enum, with the planned labels.
			d, err := c.Labels[j].CastTo(row[i], c.Table.Columns[i].Type)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
	}
	for i, col := range c.Table.Columns {
		if !given[i] && i < len(c.defaults) && c.defaults[i] != nil {
			d, err := c.defaults[i].Eval(nil)
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		if !row[i].IsNull() {
			d, err := repr.AssignCast(row[i], col.Type)
			if err != nil {
				return nil, err
			}
			row[i] = d
		} else if !col.Nullable {
			return nil, sqlerr.New(sqlerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", col.Name, c.Table.Name.Name)
		}
	}
	return row, nil
}

// aliasOf is the name a DML statement's table goes by: its alias, or
// its name.
func aliasOf(rv *pg.RangeVar) string {
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

// assignments binds the SET list of UPDATE or of ON CONFLICT DO UPDATE
// over scope sc into row, the new row of table r: each assigned column
// gets its value (DEFAULT its default), the others keep what row holds.
func (p *planner) assignments(targets []*pg.Node, r Relation, sc *scope, row []hscalar) error {
	assigned := map[int]bool{}
	for _, t := range targets {
		rt := t.GetResTarget()
		if len(rt.Indirection) > 0 {
			return errorAt(unsupported("assigning to subscripts or fields"), p.b.sql, rt.Location)
		}
		if rt.Val.GetMultiAssignRef() != nil {
			return errorAt(unsupported("multiple-column assignment"), p.b.sql, rt.Location)
		}
		i := columnIndex(r, rt.Name)
		if i < 0 {
			return errorAt(sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, r.Name.Name), p.b.sql, rt.Location)
		}
		if assigned[i] {
			return errorAt(sqlerr.New(sqlerr.SyntaxError, "multiple assignments to same column %q", rt.Name), p.b.sql, rt.Location)
		}
		assigned[i] = true
		if rt.Val.GetSetToDefault() != nil {
			row[i] = defaultOf(r, i)
			continue
		}
		if r.Columns[i].Identity == 'a' {
			return errorAt(sqlerr.New(sqlerr.GeneratedAlways, "column %q can only be updated to DEFAULT", rt.Name).
				WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", rt.Name), p.b.sql, rt.Location)
		}
		if containsAggregate([]*pg.Node{rt.Val}) {
			return errorAt(sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in UPDATE"), p.b.sql, nodeLocation(rt.Val))
		}
		s, err := p.b.bindExpr(rt.Val, &exprCtx{scope: sc, clause: "UPDATE"})
		if err != nil {
			return err
		}
		if row[i], err = p.assign(s, r, i); err != nil {
			return errorAt(err, p.b.sql, nodeLocation(rt.Val))
		}
	}
	return nil
}

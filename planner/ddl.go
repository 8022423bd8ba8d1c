package planner

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

func qualifiedName(rv *pg.RangeVar) QualifiedName {
	return QualifiedName{Database: rv.Catalogname, Schema: rv.Schemaname, Name: rv.Relname}
}

func (p *planner) createTable(cs *pg.CreateStmt) (Statement, error) {
	temp, err := temporary(cs.Relation, cs.Oncommit)
	if err != nil {
		return nil, err
	}
	switch {
	case len(cs.InhRelations) > 0:
		return nil, unsupported("INHERITS")
	case cs.Partspec != nil || cs.Partbound != nil:
		return nil, unsupported("partitioned tables")
	case cs.OfTypename != nil:
		return nil, unsupported("typed tables")
	}
	ct := &CreateTable{Name: qualifiedName(cs.Relation), IfNotExists: cs.IfNotExists, Temp: temp}
	index := map[string]int{}
	// keys are the PRIMARY KEY and UNIQUE constraints in the order
	// written, column and table constraints alike, as PostgreSQL takes
	// them.
	var keys []*keySpec
	for _, elt := range cs.TableElts {
		switch x := elt.GetNode().(type) {
		case *pg.Node_ColumnDef:
			cd := x.ColumnDef
			if _, dup := index[cd.Colname]; dup {
				return nil, errorAt(sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", cd.Colname), p.b.sql, cd.Location)
			}
			if cd.CollClause != nil {
				return nil, errorAt(unsupported("COLLATE"), p.b.sql, cd.Location)
			}
			t, serial := serialType(cd.TypeName)
			var err error
			if !serial {
				if t, err = p.b.typeFromName(cd.TypeName); err != nil {
					return nil, err
				}
			}
			index[cd.Colname] = len(ct.Columns)
			ct.Columns = append(ct.Columns, ColumnDef{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull || serial})
			col := &ct.Columns[len(ct.Columns)-1]
			seqName := QualifiedName{Schema: ct.Name.Schema, Name: owningSequenceName(ct.Name.Name, cd.Colname)}
			if serial {
				def, err := p.sequenceDef(seqName, t, nil)
				if err != nil {
					return nil, err
				}
				col.Sequence = &def
			}
			// last is the key constraint that DEFERRABLE and INITIALLY
			// clauses right after it qualify, if any.
			var last *keySpec
			for _, cn := range cd.Constraints {
				c := cn.GetConstraint()
				switch c.Contype {
				case pg.ConstrType_CONSTR_ATTR_DEFERRABLE:
					if last != nil {
						last.deferrable = true
					}
					continue
				case pg.ConstrType_CONSTR_ATTR_DEFERRED:
					if last != nil {
						return nil, errorAt(unsupported("INITIALLY DEFERRED"), p.b.sql, c.Location)
					}
					continue
				case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
					continue
				}
				last = nil
				switch c.Contype {
				case pg.ConstrType_CONSTR_NOTNULL:
					col.NotNull = true
				case pg.ConstrType_CONSTR_NULL:
				case pg.ConstrType_CONSTR_DEFAULT:
					if col.Sequence != nil {
						return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "multiple default values specified for column %q of table %q", col.Name, ct.Name.Name), p.b.sql, c.Location)
					}
					if col.Default, err = p.defaultExpr(c.RawExpr, col.Name, t); err != nil {
						return nil, err
					}
				case pg.ConstrType_CONSTR_IDENTITY:
					switch {
					case col.Sequence != nil || col.Default != nil:
						return nil, errorAt(sqlerr.New(sqlerr.SyntaxError, "both default and identity specified for column %q of table %q", col.Name, ct.Name.Name), p.b.sql, c.Location)
					case t.Kind() != repr.KindInt2 && t.Kind() != repr.KindInt4 && t.Kind() != repr.KindInt8:
						return nil, errorAt(sqlerr.New(sqlerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint"), p.b.sql, c.Location)
					}
					def, err := p.sequenceDef(seqName, t, c.Options)
					if err != nil {
						return nil, errorAt(err, p.b.sql, c.Location)
					}
					col.Sequence, col.NotNull, col.Identity = &def, true, c.GeneratedWhen[0]
				case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
					if last, err = p.keySpecOf(c, cd.Colname); err != nil {
						return nil, err
					}
					keys = append(keys, last)
				default:
					return nil, errorAt(unsupported("%s constraints", constraintName(c.Contype)), p.b.sql, c.Location)
				}
			}
		case *pg.Node_Constraint:
			c := x.Constraint
			if c.Contype != pg.ConstrType_CONSTR_PRIMARY && c.Contype != pg.ConstrType_CONSTR_UNIQUE {
				return nil, errorAt(unsupported("%s constraints", constraintName(c.Contype)), p.b.sql, c.Location)
			}
			k, err := p.keySpecOf(c, "")
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		default:
			return nil, unsupported("%s in CREATE TABLE", nodeName(elt))
		}
	}
	if err := p.uniqueKeys(ct, keys); err != nil {
		return nil, err
	}
	return ct, nil
}

func constraintName(t pg.ConstrType) string {
	return strings.ReplaceAll(strings.TrimPrefix(t.String(), "CONSTR_"), "_", " ")
}

// PlanDefault plans a stored column default again: text is the
// default as its expr.Scalar's String wrote it, for a column of type t.
// The result is what CREATE TABLE planned: a literal for a constant, the
// call itself for now() and the session functions, which each write
// evaluates.
func PlanDefault(cat Catalog, text, column string, t repr.Type) (expr.Scalar, error) {
	stmts, err := Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	var target *pg.Node
	if len(stmts) == 1 {
		if sel := stmts[0].node.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			target = sel.TargetList[0].GetResTarget().GetVal()
		}
	}
	if target == nil {
		return nil, sqlerr.AssertionFailedf("default %q of column %s is not one expression", text, column)
	}
	return newPlanner(cat, stmts[0].SQL, nil).defaultExpr(target, column, t)
}

// defaultExpr binds a column's DEFAULT: a constant expression, cast to
// the column's type as a stored value is.
func (p *planner) defaultExpr(n *pg.Node, column string, t repr.Type) (expr.Scalar, error) {
	if containsAggregate([]*pg.Node{n}) {
		return nil, errorAt(sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in DEFAULT expressions"), p.b.sql, nodeLocation(n))
	}
	s, err := p.b.bindExpr(n, &exprCtx{clause: "DEFAULT"})
	if err != nil {
		return nil, err
	}
	if hasSubquery(s) {
		return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression"), p.b.sql, nodeLocation(n))
	}
	if len(p.b.params) > 0 {
		return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "cannot use parameters in DEFAULT expression"), p.b.sql, nodeLocation(n))
	}
	c, ok, err := p.b.coerce(s, t, repr.CastAssignment)
	if err != nil {
		return nil, errorAt(err, p.b.sql, nodeLocation(n))
	}
	if !ok {
		return nil, errorAt(sqlerr.New(sqlerr.DatatypeMismatch, "column %q is of type %s but default expression is of type %s", column, typeName(t), typeName(s.typ().Type)).
			WithHint("You will need to rewrite or cast the expression."), p.b.sql, nodeLocation(n))
	}
	if c, err = foldScalar(c); err != nil {
		return nil, err
	}
	return scalarToExpr(c, nil)
}

func deparse(n *pg.Node) (string, error) {
	return pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}})
}

// temporary reports whether rel is created TEMPORARY: in the session's
// temporary schema (pg_temp), with its rows kept across transactions
// (ON COMMIT PRESERVE ROWS, the default). A temporary relation named in
// a schema other than pg_temp fails as in PostgreSQL.
func temporary(rel *pg.RangeVar, onCommit pg.OnCommitAction) (bool, error) {
	temp := rel.Relpersistence == "t"
	if !temp && rel.Schemaname == "pg_temp" {
		temp = true
	}
	switch {
	case !temp:
		if onCommit != pg.OnCommitAction_ONCOMMIT_NOOP && onCommit != pg.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
			return false, sqlerr.New(sqlerr.InvalidTableDefinition, "ON COMMIT can only be used on temporary tables")
		}
	case rel.Schemaname != "" && rel.Schemaname != "pg_temp":
		return false, sqlerr.New(sqlerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	case onCommit == pg.OnCommitAction_ONCOMMIT_DELETE_ROWS || onCommit == pg.OnCommitAction_ONCOMMIT_DROP:
		return false, unsupported("ON COMMIT DELETE ROWS and ON COMMIT DROP")
	}
	return temp, nil
}

func (p *planner) createView(vs *pg.ViewStmt) (Statement, error) {
	temp, err := temporary(vs.View, pg.OnCommitAction_ONCOMMIT_NOOP)
	if err != nil {
		return nil, err
	}
	if vs.WithCheckOption != pg.ViewCheckOption_NO_CHECK_OPTION && vs.WithCheckOption != pg.ViewCheckOption_VIEW_CHECK_OPTION_UNDEFINED {
		return nil, unsupported("WITH CHECK OPTION")
	}
	sel := vs.Query.GetSelectStmt()
	plan, cols, err := p.view(sel, vs.Aliases)
	if err != nil {
		return nil, err
	}
	query, err := deparse(vs.Query)
	if err != nil {
		return nil, sqlerr.Wrap(err, sqlerr.InternalError)
	}
	return &CreateView{Name: qualifiedName(vs.View), Plan: plan, Columns: cols, OrReplace: vs.Replace, Query: query, Reads: *p.b.reads, Temp: temp, Enums: p.b.enums}, nil
}

func (p *planner) createTableAs(c *pg.CreateTableAsStmt) (Statement, error) {
	if c.Objtype != pg.ObjectType_OBJECT_MATVIEW {
		return p.createTableAsSelect(c)
	}
	if c.Into.SkipData {
		return nil, unsupported("WITH NO DATA")
	}
	sel := c.Query.GetSelectStmt()
	if sel == nil {
		return nil, unsupported("this materialized view query")
	}
	plan, cols, err := p.view(sel, c.Into.ColNames)
	if err != nil {
		return nil, err
	}
	query, err := deparse(c.Query)
	if err != nil {
		return nil, sqlerr.Wrap(err, sqlerr.InternalError)
	}
	return &CreateView{Name: qualifiedName(c.Into.Rel), Plan: plan, Columns: cols, Materialized: true,
		IfNotExists: c.IfNotExists, Query: query, Reads: *p.b.reads, Enums: p.b.enums}, nil
}

func (p *planner) createIndex(is *pg.IndexStmt) (Statement, error) {
	switch {
	case is.WhereClause != nil:
		return nil, unsupported("partial indexes")
	case len(is.IndexIncludingParams) > 0:
		return nil, unsupported("INCLUDE")
	case is.AccessMethod != "" && is.AccessMethod != "btree" && is.AccessMethod != "hash":
		return nil, unsupported("index access method %s", is.AccessMethod)
	case is.NullsNotDistinct:
		return nil, unsupported("UNIQUE NULLS NOT DISTINCT")
	}
	on := qualifiedName(is.Relation)
	rel, err := p.cat.ResolveRelation(on)
	if err != nil {
		return nil, errorAt(err, p.b.sql, is.Relation.Location)
	}
	sc := &scope{}
	for i, c := range rel.Columns {
		sc.items = append(sc.items, scopeItem{table: is.Relation.Relname, name: c.Name, col: i, typ: c.Type})
	}
	ctx := &exprCtx{scope: sc, clause: "index expressions"}
	ci := &CreateIndex{Name: is.Idxname, On: rel.Name, OnID: rel.ID, OnKind: rel.Kind, Unique: is.Unique, IfNotExists: is.IfNotExists}
	nameParts := []string{is.Relation.Relname}
	conv := &exprConv{col: func(c hColumn) (int, error) { return c.index, nil }}
	for _, n := range is.IndexParams {
		ie := n.GetIndexElem()
		if len(ie.Collation) > 0 || len(ie.Opclass) > 0 {
			return nil, unsupported("index collations and operator classes")
		}
		var s hscalar
		if ie.Name != "" {
			c, err := sc.resolveColumn("", ie.Name)
			if err != nil {
				return nil, errorAt(err, p.b.sql, is.Relation.Location)
			}
			s = c
			nameParts = append(nameParts, ie.Name)
		} else {
			if is.Unique {
				// A unique key is checked on column values (see
				// coord's unique keys); an expression's would need
				// evaluating on every write.
				return nil, errorAt(unsupported("unique indexes on expressions"), p.b.sql, nodeLocation(ie.Expr))
			}
			if containsAggregate([]*pg.Node{ie.Expr}) {
				return nil, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in index expressions")
			}
			if s, err = p.b.bindExpr(ie.Expr, ctx); err != nil {
				return nil, err
			}
			if hasSubquery(s) {
				return nil, sqlerr.New(sqlerr.FeatureNotSupported, "cannot use subquery in index expression")
			}
			nameParts = append(nameParts, "expr")
		}
		e, err := conv.convert(s)
		if err != nil {
			return nil, err
		}
		ci.Keys = append(ci.Keys, e)
	}
	if ci.Name == "" {
		// PostgreSQL's choice: table, columns, "idx"; the catalog makes it
		// unique.
		ci.Name = strings.Join(append(nameParts, "idx"), "_")
	}
	ci.Enums = p.b.enums
	return ci, nil
}

var dropKinds = map[pg.ObjectType]ObjectKind{
	pg.ObjectType_OBJECT_TABLE: ObjectTable, pg.ObjectType_OBJECT_VIEW: ObjectView,
	pg.ObjectType_OBJECT_MATVIEW: ObjectMaterializedView, pg.ObjectType_OBJECT_INDEX: ObjectIndex,
	pg.ObjectType_OBJECT_SEQUENCE: ObjectSequence,
}

func (p *planner) drop(ds *pg.DropStmt) (Statement, error) {
	if ds.RemoveType == pg.ObjectType_OBJECT_SCHEMA {
		return p.dropSchema(ds)
	}
	if ds.RemoveType == pg.ObjectType_OBJECT_TYPE {
		return p.dropType(ds)
	}
	kind, ok := dropKinds[ds.RemoveType]
	if !ok {
		return nil, unsupported("DROP %s", strings.ReplaceAll(strings.TrimPrefix(ds.RemoveType.String(), "OBJECT_"), "_", " "))
	}
	d := &Drop{Kind: kind, IfExists: ds.MissingOk, Cascade: ds.Behavior == pg.DropBehavior_DROP_CASCADE}
	for _, o := range ds.Objects {
		name, err := nameFromList(o.GetList().GetItems())
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
	}
	return d, nil
}

// CreateTableAs is CREATE TABLE name [(columns)] AS query [WITH [NO]
// DATA]: a table with the query's columns, filled with its rows unless
// WITH NO DATA.
type CreateTableAs struct {
	Table  CreateTable
	Query  *Select
	NoData bool
}

func (*CreateTableAs) Tag() string { return "SELECT" }

func (p *planner) createTableAsSelect(c *pg.CreateTableAsStmt) (Statement, error) {
	sel := c.Query.GetSelectStmt()
	if sel == nil || c.Objtype != pg.ObjectType_OBJECT_TABLE {
		return nil, unsupported("this form of CREATE TABLE AS")
	}
	temp, err := temporary(c.Into.Rel, c.Into.OnCommit)
	if err != nil {
		return nil, err
	}
	q, err := p.selectStmt(sel)
	if err != nil {
		return nil, err
	}
	if len(c.Into.ColNames) > len(q.Columns) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "too many column names were specified")
	}
	t := CreateTable{Name: qualifiedName(c.Into.Rel), IfNotExists: c.IfNotExists, Temp: temp}
	for i, col := range q.Columns {
		name := col.Name
		if i < len(c.Into.ColNames) {
			name = c.Into.ColNames[i].GetString_().GetSval()
		}
		t.Columns = append(t.Columns, ColumnDef{Name: name, Type: col.Type})
	}
	return &CreateTableAs{Table: t, Query: q, NoData: c.Into.SkipData}, nil
}

// CreateSchema is CREATE SCHEMA [IF NOT EXISTS] name.
type CreateSchema struct {
	Name        string
	IfNotExists bool
}

// DropSchema is DROP SCHEMA [IF EXISTS] name, … [CASCADE].
type DropSchema struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

func (*CreateSchema) Tag() string { return "CREATE SCHEMA" }
func (*DropSchema) Tag() string   { return "DROP SCHEMA" }

func (p *planner) createSchema(s *pg.CreateSchemaStmt) (Statement, error) {
	switch {
	case s.Authrole != nil:
		return nil, unsupported("CREATE SCHEMA … AUTHORIZATION")
	case len(s.SchemaElts) > 0:
		return nil, unsupported("CREATE SCHEMA with objects in it")
	}
	return &CreateSchema{Name: s.Schemaname, IfNotExists: s.IfNotExists}, nil
}

func (p *planner) dropSchema(ds *pg.DropStmt) (Statement, error) {
	d := &DropSchema{IfExists: ds.MissingOk, Cascade: ds.Behavior == pg.DropBehavior_DROP_CASCADE}
	for _, o := range ds.Objects {
		d.Names = append(d.Names, o.GetString_().GetSval())
	}
	return d, nil
}

package planner

import (
	"errors"
	"slices"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// Parsed is one statement of a SQL string, parsed and not yet planned.
// A session plans the statements of a string one at a time, executing
// each before planning the next, so that a statement sees the catalog
// changes of those before it.
type Parsed struct {
	// SQL is the whole string; error positions index it.
	SQL string
	// Text is this statement's own text.
	Text string
	node *pg.Node
	// fast is an INSERT of constants parseFastInsert read; node is then
	// nil.
	fast *fastInsert
	// sub is a SUBSCRIBE form, which PostgreSQL's grammar lacks;
	// node is then nil.
	sub *subscribeSyntax
	// fetchTimeout is FETCH's WITH (timeout = …), if given.
	fetchTimeout *time.Duration
	// explainView is EXPLAIN MATERIALIZED VIEW's name; node is nil.
	explainView *QualifiedName
}

// Parse splits sql into its statements. A syntax error is 42601 with the
// position PostgreSQL reports.
//
// Text beyond the input bounds (input_bounds.go) is refused, 54000 or
// 54001, before the C parser sees it, so that no text can overflow its
// stack.
func Parse(sql string) ([]Parsed, error) {
	if err := checkLength(sql); err != nil {
		return nil, err
	}
	// What parseFastInsert reads nests three levels, and no C parser
	// reads it: its text is not measured.
	if p, ok := parseFastInsert(sql); ok {
		return []Parsed{p}, nil
	}
	if err := checkNesting(sql); err != nil {
		return nil, err
	}
	if p, ok, err := parseSpecial(sql); ok {
		if err != nil {
			return nil, err
		}
		return []Parsed{p}, nil
	}
	tree, err := pg.Parse(sql)
	if err != nil {
		var pe *pgparser.Error
		if errors.As(err, &pe) {
			e := sqlerr.New(grammarCode(pe.Message), "%s", pe.Message)
			if pe.Cursorpos > 0 {
				e = e.WithPosition(pe.Cursorpos)
			}
			return nil, e
		}
		// The C parser accepted the text, so decoding its tree failed:
		// protobuf refuses messages nested more than 10,000 deep.
		if strings.Contains(err.Error(), "recursion depth") {
			return nil, sqlerr.New(sqlerr.StatementTooComplex, "stack depth limit exceeded").
				WithDetail("The parse tree is nested more than 10,000 levels deep.")
		}
		return nil, sqlerr.Wrap(err, sqlerr.SyntaxError)
	}
	out := make([]Parsed, 0, len(tree.Stmts))
	for _, raw := range tree.Stmts {
		start := int(raw.StmtLocation)
		end := len(sql)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		out = append(out, Parsed{SQL: sql, Text: strings.TrimSpace(sql[start:end]), node: raw.Stmt})
	}
	return out, nil
}

// Plan parses and plans every statement of sql against cat. It suits
// strings whose statements do not depend on each other's catalog
// changes; otherwise use Parse and PlanOne.
func Plan(cat Catalog, sql string) ([]Statement, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return nil, err
	}
	out := make([]Statement, 0, len(stmts))
	for _, p := range stmts {
		s, err := PlanOne(cat, p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// PlanOne plans one parsed statement. Parameters ($1 ...) are not
// allowed: they need PlanWithParams.
func PlanOne(cat Catalog, p Parsed) (Statement, error) {
	pl := newPlanner(cat, p.SQL, nil)
	s, err := pl.parsed(p)
	if err != nil {
		return nil, err
	}
	if len(pl.b.params) > 0 {
		return nil, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $%d", 1)
	}
	return s, nil
}

// PlanWithParams plans a statement with parameters, as the extended
// protocol's Parse does. paramTypes are the types the client gave
// (unknown for those it left open; it may give fewer than the
// statement uses); the result gives every parameter's type, inferred
// from its first use where the client left it open, text where nothing
// decides. The plan holds Param scalars until BindParams replaces them.
// An empty string plans to a nil Statement.
func PlanWithParams(cat Catalog, sql string, paramTypes []repr.Type) (Statement, []repr.Type, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return nil, nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, paramTypes, nil
	case 1:
	default:
		return nil, nil, sqlerr.New(sqlerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	pl := newPlanner(cat, sql, paramTypes)
	s, err := pl.parsed(stmts[0])
	if err != nil {
		return nil, nil, err
	}
	return s, pl.b.paramTypes(), nil
}

// parsed plans what Parse read.
func (p *planner) parsed(ps Parsed) (Statement, error) {
	if ps.sub != nil {
		return p.subscribe(ps.sub)
	}
	if ps.explainView != nil {
		return &ExplainView{Name: *ps.explainView}, nil
	}
	if ps.fast != nil {
		return p.insert(ps.fast.stmt, ps.fast)
	}
	s, err := p.statement(ps.node)
	if f, ok := s.(*Fetch); ok && err == nil {
		f.Timeout = ps.fetchTimeout
	}
	return s, err
}

// planner plans one statement.
type planner struct {
	cat Catalog
	b   *binder
	low *lowerer
	// trace records how the last query was planned, for tests.
	trace trace
}

type trace struct {
	hirRules  []string
	raw       expr.Relation
	exprRules []string
}

func newPlanner(cat Catalog, sql string, params []repr.Type) *planner {
	return &planner{cat: cat, b: newBinder(cat, sql, params)}
}

// lower decorrelates and rewrites a top-level relation.
func (p *planner) lower(rel hrel) (expr.Relation, error) {
	if err := checkPlanSize(rel); err != nil {
		return nil, err
	}
	rel, folded, err := foldConstants(rel)
	if err != nil {
		return nil, err
	}
	rel, fired := rewriteHIR(rel)
	if folded {
		fired = append([]string{"FoldConstants"}, fired...)
	}
	if p.low == nil {
		p.low = &lowerer{}
	}
	p.low.params = p.b.paramTypes()
	plan, err := p.low.lowerRel(rel, unitRelation, colMap{})
	if err != nil {
		return nil, err
	}
	if err := expr.Check(plan); err != nil {
		return nil, err
	}
	raw := plan
	plan, rules := rewrite(plan)
	keys := tableKeys{unique: map[expr.GlobalID][][]int{}, indexed: map[expr.GlobalID][][]int{}}
	for _, r := range *p.b.reads {
		if len(r.Keys) > 0 {
			keys.unique[r.ID] = r.Keys
		}
		if len(r.Indexed) > 0 {
			keys.indexed[r.ID] = r.Indexed
		}
	}
	if pre, ok := preAggregateJoinInputs(plan, keys); ok {
		// The partial sums' inputs and the join they feed settle under
		// the rules again.
		var more []string
		plan, more = rewrite(pre)
		rules = append(rules, "PreAggregateJoinInputs")
		for _, m := range more {
			if !slices.Contains(rules, m) {
				rules = append(rules, m)
			}
		}
	}
	if err := expr.Check(plan); err != nil {
		return nil, err
	}
	p.trace = trace{hirRules: fired, raw: raw, exprRules: rules}
	return plan, nil
}

func (p *planner) statement(n *pg.Node) (Statement, error) {
	switch x := n.GetNode().(type) {
	case *pg.Node_SelectStmt:
		return p.selectStmt(x.SelectStmt)
	case *pg.Node_InsertStmt:
		return p.insert(x.InsertStmt, nil)
	case *pg.Node_UpdateStmt:
		return p.update(x.UpdateStmt)
	case *pg.Node_DeleteStmt:
		return p.delete(x.DeleteStmt)
	case *pg.Node_CopyStmt:
		return p.copy(x.CopyStmt)
	case *pg.Node_CreateStmt:
		return p.createTable(x.CreateStmt)
	case *pg.Node_ViewStmt:
		return p.createView(x.ViewStmt)
	case *pg.Node_CreateTableAsStmt:
		return p.createTableAs(x.CreateTableAsStmt)
	case *pg.Node_IndexStmt:
		return p.createIndex(x.IndexStmt)
	case *pg.Node_DropStmt:
		return p.drop(x.DropStmt)
	case *pg.Node_RenameStmt:
		return p.rename(x.RenameStmt)
	case *pg.Node_AlterTableStmt:
		return p.alterTable(x.AlterTableStmt)
	case *pg.Node_CommentStmt:
		return p.comment(x.CommentStmt)
	case *pg.Node_CreatedbStmt:
		return &CreateDatabase{Name: x.CreatedbStmt.Dbname}, nil
	case *pg.Node_DropdbStmt:
		return &DropDatabase{Name: x.DropdbStmt.Dbname, IfExists: x.DropdbStmt.MissingOk}, nil
	case *pg.Node_VariableSetStmt:
		return p.set(x.VariableSetStmt)
	case *pg.Node_VariableShowStmt:
		return &Show{Name: normalizeSetting(x.VariableShowStmt.Name)}, nil
	case *pg.Node_DiscardStmt:
		return discard(x.DiscardStmt), nil
	case *pg.Node_TransactionStmt:
		return p.transaction(x.TransactionStmt)
	case *pg.Node_ExplainStmt:
		return p.explain(x.ExplainStmt)
	case *pg.Node_RefreshMatViewStmt:
		return p.refresh(x.RefreshMatViewStmt)
	case *pg.Node_TruncateStmt:
		return p.truncate(x.TruncateStmt)
	case *pg.Node_VacuumStmt:
		return p.vacuum(x.VacuumStmt)
	case *pg.Node_CreateRoleStmt:
		return p.createRole(x.CreateRoleStmt)
	case *pg.Node_AlterRoleStmt:
		return p.alterRole(x.AlterRoleStmt)
	case *pg.Node_DropRoleStmt:
		return p.dropRole(x.DropRoleStmt)
	case *pg.Node_CreateSchemaStmt:
		return p.createSchema(x.CreateSchemaStmt)
	case *pg.Node_PrepareStmt:
		return p.prepare(x.PrepareStmt)
	case *pg.Node_ExecuteStmt:
		return p.execute(x.ExecuteStmt)
	case *pg.Node_DeallocateStmt:
		return p.deallocate(x.DeallocateStmt)
	case *pg.Node_DeclareCursorStmt:
		return p.declareCursor(x.DeclareCursorStmt)
	case *pg.Node_FetchStmt:
		return p.fetch(x.FetchStmt)
	case *pg.Node_ClosePortalStmt:
		return p.closeCursor(x.ClosePortalStmt)
	case *pg.Node_CreateEnumStmt:
		return p.createEnum(x.CreateEnumStmt)
	case *pg.Node_AlterEnumStmt:
		return p.alterEnum(x.AlterEnumStmt)
	case *pg.Node_CreateSeqStmt:
		return p.createSequence(x.CreateSeqStmt)
	case *pg.Node_GrantStmt:
		return p.grant(x.GrantStmt)
	case *pg.Node_MergeStmt:
		return p.merge(x.MergeStmt)
	case *pg.Node_GrantRoleStmt:
		return nil, unsupported("role membership (GRANT role TO role)")
	}
	node := strings.TrimSuffix(nodeName(n), "Stmt")
	if name, ok := statementNames[node]; ok {
		err := sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported", name)
		if hint := statementHints[node]; hint != "" {
			err = err.WithHint("%s", hint)
		}
		return nil, err
	}
	return nil, unsupported("statement %s", node)
}

// statementNames spell the statements that are refused as SQL, by
// pg_query's node name.
var statementNames = map[string]string{
	"Listen": "LISTEN", "Unlisten": "UNLISTEN", "Notify": "NOTIFY",
	"CompositeType": "CREATE TYPE … AS (…)",
	"CreateRange":   "CREATE TYPE … AS RANGE", "CreateDomain": "CREATE DOMAIN",
	"CreateFunction": "CREATE FUNCTION", "CreateTrig": "CREATE TRIGGER", "CreateEventTrig": "CREATE EVENT TRIGGER",
	"CreateExtension": "CREATE EXTENSION", "Do": "DO", "Call": "CALL", "CreateCast": "CREATE CAST",
	"CreatePolicy": "CREATE POLICY", "CreateTableSpace": "CREATE TABLESPACE", "Cluster": "CLUSTER",
	"Lock": "LOCK", "Reindex": "REINDEX", "Define": "CREATE AGGREGATE, OPERATOR or TYPE", "Rule": "CREATE RULE",
}

// statementHints point from a refused statement to what does its work.
var statementHints = map[string]string{
	"Listen":   "SUBSCRIBE follows a table's or a view's changes as they commit.",
	"Unlisten": "SUBSCRIBE follows a table's or a view's changes as they commit.",
	"Notify":   "SUBSCRIBE follows a table's or a view's changes as they commit.",
}

// selectStmt plans a query read by a client: its ORDER BY, LIMIT and
// OFFSET are a finishing.
func (p *planner) selectStmt(sel *pg.SelectStmt) (*Select, error) {
	q, err := p.b.bindQuery(sel, nil)
	if err != nil {
		return nil, err
	}
	q, project, err := p.b.printRegOutputs(q)
	if err != nil {
		return nil, err
	}
	rel, err := p.b.resolveUnknown(q.rel)
	if err != nil {
		return nil, err
	}
	plan, err := p.lower(rel)
	if err != nil {
		return nil, err
	}
	ts := plan.Typ()
	visible := make([]expr.ColumnType, len(project))
	for i, c := range project {
		visible[i] = ts[c]
	}
	cols := columns(visible, q.names[:q.visible])
	for i := range cols {
		// A column printed as a name (reg*) is computed, not read.
		if i < len(q.sources) && project[i] == i {
			cols[i].Source = q.sources[i]
		}
	}
	return &Select{
		Plan:      plan,
		Finishing: Finishing{OrderBy: q.order, Limit: q.limit, Offset: q.offset, Project: project},
		Columns:   cols,
	}, nil
}

func columns(ts []expr.ColumnType, names []string) []Column {
	out := make([]Column, len(ts))
	for i, t := range ts {
		out[i] = Column{Name: names[i], Type: t.Type, Nullable: t.Nullable}
	}
	return out
}

// view plans the query of a view: ORDER BY without LIMIT is dropped, and
// with LIMIT or OFFSET it is a TopK.
func (p *planner) view(sel *pg.SelectStmt, aliases []*pg.Node) (expr.Relation, []Column, error) {
	q, err := p.b.bindQuery(sel, nil)
	if err != nil {
		return nil, nil, err
	}
	if f := p.b.enumSnapshot; f != "" {
		// A view is maintained over all times, and the labels change.
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "%s is not supported in views: its value is the enum's labels when the statement is planned", f)
	}
	rel, err := p.b.nested(q)
	if err != nil {
		return nil, nil, err
	}
	names := append([]string(nil), q.names[:q.visible]...)
	if len(aliases) > len(names) {
		return nil, nil, sqlerr.New(sqlerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	for i, a := range aliases {
		names[i] = a.GetString_().GetSval()
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", n)
		}
		seen[n] = true
	}
	plan, err := p.lower(rel)
	if err != nil {
		return nil, nil, err
	}
	if len(p.b.params) > 0 {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupported, "views cannot have parameters")
	}
	return plan, columns(plan.Typ(), names), nil
}

func (p *planner) explain(e *pg.ExplainStmt) (Statement, error) {
	out := &Explain{Format: "text"}
	for _, o := range e.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		// A boolean option without a value is on; with one, the value.
		on := true
		val := ""
		if d.Arg != nil {
			if s := d.Arg.GetString_(); s != nil {
				val = strings.ToLower(s.Sval)
			} else if b := d.Arg.GetBoolean(); b != nil {
				on = b.Boolval
			} else if ac := d.Arg.GetAConst(); ac != nil {
				if ac.GetBoolval() != nil {
					on = ac.GetBoolval().Boolval
				} else if ac.GetIval() != nil {
					on = ac.GetIval().Ival != 0
				} else if ac.GetSval() != nil {
					val = strings.ToLower(ac.GetSval().Sval)
				}
			}
			switch val {
			case "off", "false", "0", "no":
				on = false
			}
		}
		switch d.Defname {
		case "analyze":
			out.Analyze = on
		case "format":
			switch val {
			case "text", "json":
				out.Format = val
			case "yaml", "xml":
				return nil, unsupported("EXPLAIN (FORMAT %s)", strings.ToUpper(val))
			default:
				return nil, sqlerr.New(sqlerr.InvalidParameterValue, "unrecognized value for EXPLAIN option \"format\": \"%s\"", val)
			}
		case "verbose", "costs", "settings", "buffers", "wal", "timing", "summary", "generic_plan":
			// Accepted: the plan has no costs or buffers to show.
		default:
			return nil, sqlerr.New(sqlerr.SyntaxError, "unrecognized EXPLAIN option \"%s\"", d.Defname)
		}
	}
	inner, err := p.statement(e.Query)
	if err != nil {
		return nil, err
	}
	if _, isSelect := inner.(*Select); out.Analyze && !isSelect {
		return nil, unsupported("EXPLAIN ANALYZE of %s", inner.Tag())
	}
	out.Inner = inner
	return out, nil
}

// grammarCode is the SQLSTATE of an error that PostgreSQL's grammar
// raises: 42601, but for the window frame checks the grammar makes,
// which are windowing errors (42P20).
func grammarCode(msg string) string {
	for _, p := range []string{"frame start cannot be", "frame end cannot be", "frame starting from", "frame ending at"} {
		if strings.HasPrefix(msg, p) {
			return sqlerr.WindowingError
		}
	}
	return sqlerr.SyntaxError
}

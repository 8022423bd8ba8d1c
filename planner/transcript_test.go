package planner

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"

	"freshet/internal/transcript"
)

var rewriteFlag = flag.Bool("rewrite", false, "rewrite the expected output of testdata transcripts")

// TestTranscripts runs each file in testdata as a session against the
// test catalog. A block is a command line, SQL lines, "----", and the
// expected output up to a blank line. Run with -rewrite to regenerate
// the expected output after a deliberate change, and review the diff.
//
// Commands:
//
//	plan            the planned statement: columns, plan, finishing
//	plan raw        the plan as lowered, before the expr rewrites
//	rules           the rules that fired, then the final plan
//	run             the rows the query returns over the fixture data
//	                (expr.Interpret, then the finishing); the plan before
//	                rewrites must return the same rows
//	prepare [t,...] PlanWithParams with the given parameter types
//	execute v,...   bind the last prepared statement and run it
//
// The expected rows of run were checked against PostgreSQL 15 (see the
// header of testdata/oracle.txt).
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runTranscript(t, file) })
	}
}

func runTranscript(t *testing.T, file string) {
	s := &session{t: t, cat: newTestCatalog(t)}
	transcript.Run(t, file, *rewriteFlag, func(cmd string, input []string) string {
		return s.exec(cmd, strings.Join(input, "\n"))
	})
}

// session is the state a transcript acts on.
type session struct {
	t        *testing.T
	cat      *testCatalog
	prepared Statement
	params   []repr.Type
}

func (s *session) exec(line, sql string) (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("panic: %v", r)
		}
	}()
	f := strings.Fields(line)
	switch f[0] {
	case "plan":
		p, stmt, err := planTraced(s.cat, sql)
		if err != nil {
			return errorString(err)
		}
		if len(f) > 1 && f[1] == "raw" {
			return strings.TrimRight(expr.Explain(p.trace.raw), "\n")
		}
		return renderStatement(stmt)
	case "rules":
		p, stmt, err := planTraced(s.cat, sql)
		if err != nil {
			return errorString(err)
		}
		return fmt.Sprintf("hir: %s\nexpr: %s\n%s", strings.Join(p.trace.hirRules, ", "),
			strings.Join(p.trace.exprRules, ", "), renderStatement(stmt))
	case "run":
		p, stmt, err := planTraced(s.cat, sql)
		if err != nil {
			return errorString(err)
		}
		out := s.run(stmt, p.trace.raw)
		if sel, ok := stmt.(*Select); ok {
			s.checkView(sql, sel)
		}
		return out
	case "prepare":
		var types []repr.Type
		if len(f) > 1 {
			for _, name := range strings.Split(f[1], ",") {
				typ, err := typeFromSpec(name)
				if err != nil {
					return errorString(err)
				}
				types = append(types, typ)
			}
		}
		stmt, inferred, err := PlanWithParams(s.cat, sql, types)
		if err != nil {
			return errorString(err)
		}
		s.prepared, s.params = stmt, inferred
		names := make([]string, len(inferred))
		for i, t := range inferred {
			names[i] = t.String()
		}
		return fmt.Sprintf("params: %s\n%s", strings.Join(names, ", "), renderStatement(stmt))
	case "execute":
		var vals []repr.Datum
		if len(f) > 1 {
			for i, v := range strings.Split(f[1], ",") {
				if v == "NULL" {
					vals = append(vals, repr.Null)
					continue
				}
				d, err := repr.ParseText(s.params[i], v)
				if err != nil {
					return errorString(err)
				}
				vals = append(vals, d)
			}
		}
		stmt, err := BindParams(s.prepared, vals)
		if err != nil {
			return errorString(err)
		}
		return s.run(stmt, nil)
	}
	return "unknown command " + f[0]
}

// planTraced plans one statement and keeps the planner, whose trace
// shows how.
func planTraced(cat Catalog, sql string) (*planner, Statement, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 {
		return nil, nil, fmt.Errorf("want one statement, have %d", len(stmts))
	}
	p := newPlanner(cat, sql, nil)
	stmt, err := p.parsed(stmts[0])
	if err == nil && len(p.b.params) > 0 {
		err = sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $1")
	}
	return p, stmt, err
}

// run evaluates a statement's plan over the fixtures and shows its rows.
// raw, if not nil, is the same plan before rewrites, which must agree.
func (s *session) run(stmt Statement, raw expr.Relation) string {
	var plan expr.Relation
	var names []string
	fin := Finishing{Limit: -1}
	switch st := stmt.(type) {
	case *Select:
		plan, fin = st.Plan, st.Finishing
		for _, c := range st.Columns {
			names = append(names, c.Name)
		}
	case *Merge:
		plan = st.Plan
		names = []string{"action", "copies"}
		for _, c := range st.Table.Columns {
			names = append(names, "old."+c.Name)
		}
		for _, c := range st.Table.Columns {
			names = append(names, c.Name)
		}
		if raw != nil {
			raw = checkNotNull(raw, st.Table, 2+len(st.Table.Columns))
		}
		fin.Project = seq(0, len(names))
	case *Insert, *Update, *Delete:
		var tgt Target
		switch st := st.(type) {
		case *Insert:
			plan, tgt = st.Plan, st.Table
			if raw != nil {
				raw = checkNotNull(raw, tgt, 0)
			}
		case *Update:
			plan, tgt = st.Plan, st.Table
			for _, c := range tgt.Columns {
				names = append(names, "old."+c.Name)
			}
			if raw != nil {
				raw = checkNotNull(raw, tgt, len(tgt.Columns))
			}
		case *Delete:
			plan, tgt = st.Plan, st.Table
		}
		for _, c := range tgt.Columns {
			names = append(names, c.Name)
		}
		fin.Project = seq(0, len(names))
	default:
		return "not a query: " + renderStatement(stmt)
	}
	rows, err := expr.Interpret(plan, s.cat.data)
	if raw != nil {
		rawRows, rawErr := expr.Interpret(raw, s.cat.data)
		if sqlerr.Code(err) != sqlerr.Code(rawErr) || !slices.EqualFunc(rows, rawRows, rowsEqual) {
			s.t.Errorf("rewritten plan disagrees with the lowered plan:\n%s\nrewritten: %v %v\nlowered: %v %v\nlowered plan:\n%s",
				expr.Explain(plan), rows, err, rawRows, rawErr, expr.Explain(raw))
		}
	}
	if err != nil {
		return errorString(err)
	}
	return formatRows(names, fin.Apply(rows), len(fin.OrderBy) > 0)
}

// checkView plans a query as a view's definition and checks that the
// view has the rows the query reads: every SELECT must run as a
// materialized view with the same result (DESIGN.md). A view has no
// finishing, so only a LIMIT (as a TopK) orders it.
func (s *session) checkView(sql string, sel *Select) {
	stmts, err := Parse(sql)
	if err != nil {
		return
	}
	p := newPlanner(s.cat, sql, nil)
	q, err := p.b.bindQuery(stmts[0].node.GetSelectStmt(), nil)
	if err != nil {
		s.t.Errorf("%s: as a view: %v", sql, err)
		return
	}
	rel, err := p.b.nested(q)
	if err == nil {
		var plan expr.Relation
		if plan, err = p.lower(rel); err == nil {
			var viewRows, rows expr.Collection
			viewRows, err = expr.Interpret(plan, s.cat.data)
			rows, qerr := expr.Interpret(sel.Plan, s.cat.data)
			if sqlerr.Code(err) != sqlerr.Code(qerr) {
				s.t.Errorf("%s: as a view: error %v, as a query: %v", sql, err, qerr)
				return
			}
			if err != nil {
				return
			}
			fin := sel.Finishing
			fin.OrderBy = nil
			if fin.Limit >= 0 || fin.Offset > 0 {
				fin.OrderBy = sel.Finishing.OrderBy
			}
			want := fin.Apply(rows)
			var got [][]repr.Datum
			for _, r := range viewRows {
				for i := int64(0); i < r.Diff; i++ {
					got = append(got, r.Datums)
				}
			}
			if formatRows(nil, got, false) != formatRows(nil, want, false) {
				s.t.Errorf("%s: as a view:\n%s\nas a query:\n%s", sql, formatRows(nil, got, false), formatRows(nil, want, false))
			}
			return
		}
	}
	s.t.Errorf("%s: as a view: %v", sql, err)
}

func rowsEqual(a, b expr.Row) bool {
	return a.Diff == b.Diff && string(repr.PackRow(a.Datums...)) == string(repr.PackRow(b.Datums...))
}

// formatRows shows rows as psql -A -F ' | ' does, NULL as NULL; rows of
// a query without ORDER BY are sorted, as their order is arbitrary.
func formatRows(names []string, rows [][]repr.Datum, ordered bool) string {
	lines := make([]string, len(rows))
	for i, row := range rows {
		vals := make([]string, len(row))
		for j, d := range row {
			vals[j] = "NULL"
			if !d.IsNull() {
				vals[j] = repr.FormatText(d)
			}
		}
		lines[i] = strings.Join(vals, " | ")
	}
	if !ordered {
		slices.Sort(lines)
	}
	if len(lines) == 0 {
		lines = []string{"(0 rows)"}
	}
	return strings.Join(names, " | ") + "\n" + strings.Join(lines, "\n")
}

// errorString renders err as the tests show it: the SQLSTATE, the message
// and, when known, the position.
func errorString(err error) string {
	e := sqlerr.From(err)
	s := fmt.Sprintf("ERROR %s: %s", e.Code, e.Message)
	if e.Position > 0 {
		s += fmt.Sprintf(" (position %d)", e.Position)
	}
	return s
}

func renderColumns(cs []Column) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + " " + expr.ColumnType{Type: c.Type, Nullable: c.Nullable}.String()
	}
	return strings.Join(parts, ", ")
}

func renderFinishing(f Finishing, arity int) string {
	var parts []string
	if len(f.OrderBy) > 0 {
		ord := make([]string, len(f.OrderBy))
		for i, o := range f.OrderBy {
			ord[i] = fmt.Sprintf("#%d", o.Column)
			if o.Desc {
				ord[i] += " desc"
			}
			if o.NullsFirst != o.Desc {
				if o.NullsFirst {
					ord[i] += " nulls_first"
				} else {
					ord[i] += " nulls_last"
				}
			}
		}
		parts = append(parts, "order_by=["+strings.Join(ord, ", ")+"]")
	}
	if f.Limit >= 0 {
		parts = append(parts, fmt.Sprintf("limit=%d", f.Limit))
	}
	if f.Offset > 0 {
		parts = append(parts, fmt.Sprintf("offset=%d", f.Offset))
	}
	if len(f.Project) != arity {
		parts = append(parts, fmt.Sprintf("project=%v", f.Project))
	}
	if len(parts) == 0 {
		return ""
	}
	return "finishing: " + strings.Join(parts, " ")
}

func renderStatement(s Statement) string {
	var b strings.Builder
	switch s := s.(type) {
	case *Select:
		fmt.Fprintf(&b, "columns: %s\n%s", renderColumns(s.Columns), expr.Explain(s.Plan))
		if f := renderFinishing(s.Finishing, len(s.Plan.Typ())); f != "" {
			b.WriteString(f + "\n")
		}
	case *Insert:
		fmt.Fprintf(&b, "insert into %s (%s)\n%s", s.Table.Name, s.Table.ID, expr.Explain(s.Plan))
		if oc := s.OnConflict; oc != nil {
			fmt.Fprintf(&b, "on conflict key %v update %v where %v\n", oc.Key, oc.Update, oc.Where)
		}
	case *Update:
		fmt.Fprintf(&b, "update %s (%s)\n%s", s.Table.Name, s.Table.ID, expr.Explain(s.Plan))
	case *Delete:
		fmt.Fprintf(&b, "delete from %s (%s)\n%s", s.Table.Name, s.Table.ID, expr.Explain(s.Plan))
	case *Merge:
		fmt.Fprintf(&b, "merge into %s (%s)\n%s", s.Table.Name, s.Table.ID, expr.Explain(s.Plan))
	case *CreateTable:
		fmt.Fprintf(&b, "create table %s", s.Name)
		if s.IfNotExists {
			b.WriteString(" if not exists")
		}
		for _, c := range s.Columns {
			fmt.Fprintf(&b, "\n  %s %s", c.Name, c.Type)
			if c.NotNull {
				b.WriteString(" not null")
			}
			if c.Default != nil {
				fmt.Fprintf(&b, " default %s", c.Default)
			}
		}
		for _, k := range s.UniqueKeys {
			kind := "unique"
			if k.Primary {
				kind = "primary key"
			}
			fmt.Fprintf(&b, "\n  %s %s %v", kind, k.Name, k.Columns)
		}
	case *CreateView:
		kind := "view"
		if s.Materialized {
			kind = "materialized view"
		}
		fmt.Fprintf(&b, "create %s %s", kind, s.Name)
		if s.IfNotExists {
			b.WriteString(" if not exists")
		}
		if s.OrReplace {
			b.WriteString(" or replace")
		}
		fmt.Fprintf(&b, "\ncolumns: %s\nquery: %s\nreads:", renderColumns(s.Columns), s.Query)
		for _, r := range s.Reads {
			fmt.Fprintf(&b, " %s %s (%s)", r.Kind, r.Name, r.ID)
			if r.Via != 0 {
				fmt.Fprintf(&b, " via %s", r.Via)
			}
		}
		fmt.Fprintf(&b, "\n%s", expr.Explain(s.Plan))
	case *CreateIndex:
		fmt.Fprintf(&b, "create index %s on %s (%s %s) keys %v unique=%v if_not_exists=%v", s.Name, s.On, s.OnKind, s.OnID, s.Keys, s.Unique, s.IfNotExists)
	case *Copy:
		fmt.Fprintf(&b, "copy %s columns %v from stdin %+v", s.Table.Name, s.Columns, s.Options)
	case *CopyTo:
		fmt.Fprintf(&b, "copy to stdout %+v\n%s", s.Options, renderStatement(s.Query))
	case *Drop:
		fmt.Fprintf(&b, "drop %s %v if_exists=%v cascade=%v", s.Kind, s.Names, s.IfExists, s.Cascade)
	case *AlterTable:
		fmt.Fprintf(&b, "alter table %s if_exists=%v", s.Name, s.IfExists)
		for _, a := range s.Actions {
			switch a.Kind {
			case AlterAddColumn:
				fmt.Fprintf(&b, "\n  add column %s %s not_null=%v default=%v if_not_exists=%v", a.Column, a.Def.Type, a.Def.NotNull, a.Def.Default, a.IfNotExists)
			case AlterDropColumn:
				fmt.Fprintf(&b, "\n  drop column %s if_exists=%v cascade=%v", a.Column, a.IfExists, a.Cascade)
			case AlterSetDefault:
				fmt.Fprintf(&b, "\n  alter column %s set default %s", a.Column, a.DefaultSQL)
			case AlterDropDefault:
				fmt.Fprintf(&b, "\n  alter column %s drop default", a.Column)
			case AlterSetNotNull:
				fmt.Fprintf(&b, "\n  alter column %s set not null", a.Column)
			case AlterDropNotNull:
				fmt.Fprintf(&b, "\n  alter column %s drop not null", a.Column)
			}
		}
	case *CreateDatabase:
		fmt.Fprintf(&b, "create database %s", s.Name)
	case *DropDatabase:
		fmt.Fprintf(&b, "drop database %s if_exists=%v", s.Name, s.IfExists)
	case *Set:
		fmt.Fprintf(&b, "set %s = %q local=%v", s.Name, s.Value, s.Local)
	case *Reset:
		fmt.Fprintf(&b, "reset %s local=%v tag=%s", s.Name, s.Local, s.Tag())
	case *Show:
		fmt.Fprintf(&b, "show %s", s.Name)
	case *Explain:
		fmt.Fprintf(&b, "explain\n%s", renderStatement(s.Inner))
	case *Begin:
		fmt.Fprintf(&b, "begin isolation=%q read_only=%v", s.Isolation, s.ReadOnly)
	case nil:
		b.WriteString("(empty)")
	default:
		b.WriteString(s.Tag())
	}
	return strings.TrimRight(b.String(), "\n")
}

package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
)

// MergeAction is what MERGE does for one source row.
type MergeAction int32

// The actions of MERGE's WHEN clauses that change the table.
const (
	MergeInsert MergeAction = iota + 1
	MergeUpdate
	MergeDelete
)

// Merge is MERGE. Plan produces one row per source row whose first
// applicable WHEN clause changes the table (DO NOTHING and no clause
// produce none), with the multiplicity of the source row:
//
//	action (int4, a MergeAction), copies (int8), old row (n), new row (n)
//
// For an update or delete, old is the target row the source row matched
// and copies how many rows of the table hold it (the table is a
// multiset; each copy is a row of its own to PostgreSQL); new is the
// updated row, or for a delete the old one again. For an insert, old and
// copies are NULL and new is the row to insert. Evaluating it raises
// 23502 for a NULL in a NOT NULL column of a new row.
//
// The writer must refuse (21000) a target row that more than one source
// row updates or deletes, as PostgreSQL does; the plan only says which
// source rows act on it.
type Merge struct {
	Table Target
	Plan  expr.Relation
	// Actions are the actions of the WHEN clauses that change the
	// table, in order, for the privileges the statement needs.
	Actions []MergeAction
}

// Tag implements Statement.
func (*Merge) Tag() string { return "MERGE" }

// merge plans MERGE as source LEFT JOIN target on the join condition:
// every source row meets the target rows it matches, or none, and a
// CASE over the WHEN clauses, in order, picks the first that applies.
// The target side is grouped to distinct rows with their counts, so a
// joined row stands for every copy of its target row and the writer can
// tell one source row acting on two copies (allowed) from two source
// rows acting on one row (21000).
func (p *planner) merge(ms *pg.MergeStmt) (Statement, error) {
	if ms.WithClause != nil {
		return nil, unsupported("WITH in MERGE")
	}
	tgt, r, err := p.target(ms.Relation, "merge into")
	if err != nil {
		if sqlerr.Code(err) == sqlerr.WrongObjectType {
			return nil, errorAt(sqlerr.New(sqlerr.FeatureNotSupported, "cannot execute MERGE on relation %q", ms.Relation.Relname).
				WithDetail("This operation is not supported for %ss.", r.Kind), p.b.sql, ms.Relation.Location)
		}
		return nil, err
	}
	src, srcItems, err := p.b.bindTableRef(ms.SourceRelation, nil)
	if err != nil {
		return nil, err
	}
	table, tableItems, err := p.tableScope(ms.Relation, r)
	if err != nil {
		return nil, err
	}
	name := aliasOf(ms.Relation)
	for _, it := range srcItems {
		if it.table == name {
			return nil, sqlerr.New(sqlerr.DuplicateAlias, "name %q specified more than once", name).
				WithDetail("The name is used both as MERGE target table and data source.")
		}
	}

	// The joined row: the source's m columns, the target's n, then the
	// target row's count, NULL when the source row matched nothing.
	m, n := len(src.types()), len(r.Columns)
	grouped := hReduce{input: table, groupKey: seq(0, n),
		aggs: []hAggregate{{fn: expr.Count, arg: hLiteral{v: repr.NewBool(true), t: repr.Bool}}}}
	// The target's columns are NULL where the source row matched
	// nothing.
	targetItems := shifted(tableItems.items, m)
	for i := range targetItems {
		targetItems[i].typ.Nullable = true
	}
	full := &scope{items: append(append([]scopeItem(nil), srcItems...), targetItems...)}
	sourceOnly := &scope{items: srcItems, unreachable: []string{name}}
	on, err := p.b.bindExpr(ms.JoinCondition, &exprCtx{scope: full, clause: "JOIN conditions"})
	if err != nil {
		return nil, err
	}
	if on, err = p.b.coerceBool(on, "JOIN/ON"); err != nil {
		return nil, errorAt(err, p.b.sql, nodeLocation(ms.JoinCondition))
	}
	joined := hJoin{left: src, right: grouped, on: on, kind: joinLeft}
	copies := hColumn{index: m + n, t: expr.ColumnType{Type: repr.Int8, Nullable: true}, name: "count"}

	// Each clause that changes the table gets an id, from 1; the CASE
	// gives a row the id of the clause that acts for it, 0 for none.
	type clause struct {
		action MergeAction
		row    []hscalar // the new row
	}
	var clauses []clause
	zero := hLiteral{v: repr.NewInt4(0), t: repr.Int4}
	var matchedCase, unmatchedCase []mergeArm
	unconditional := map[bool]bool{}
	for _, node := range ms.MergeWhenClauses {
		w := node.GetMergeWhenClause()
		if unconditional[w.Matched] {
			return nil, sqlerr.New(sqlerr.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		sc := sourceOnly
		if w.Matched {
			sc = full
		}
		var cond hscalar
		if w.Condition != nil {
			if cond, err = p.b.bindExpr(w.Condition, &exprCtx{scope: sc, clause: "MERGE WHEN conditions"}); err != nil {
				return nil, err
			}
			if cond, err = p.b.coerceBool(cond, "WHEN"); err != nil {
				return nil, errorAt(err, p.b.sql, nodeLocation(w.Condition))
			}
		} else {
			unconditional[w.Matched] = true
		}
		c := clause{}
		switch w.CommandType {
		case pg.CmdType_CMD_UPDATE:
			c.action, c.row = MergeUpdate, make([]hscalar, n)
			for i, col := range r.Columns {
				c.row[i] = hColumn{index: m + i, t: col.Type, name: col.Name}
			}
			if err := p.assignments(w.TargetList, r, full, c.row); err != nil {
				return nil, err
			}
		case pg.CmdType_CMD_DELETE:
			c.action = MergeDelete
		case pg.CmdType_CMD_INSERT:
			c.action = MergeInsert
			if c.row, err = p.mergeInsert(w, r, sourceOnly); err != nil {
				return nil, err
			}
		case pg.CmdType_CMD_NOTHING:
		default:
			return nil, sqlerr.AssertionFailedf("MERGE WHEN clause of command %s", w.CommandType)
		}
		id := zero
		if c.action != 0 {
			clauses = append(clauses, c)
			id = hLiteral{v: repr.NewInt4(int32(len(clauses))), t: repr.Int4}
		}
		arm := mergeArm{cond: cond, value: id}
		if w.Matched {
			matchedCase = append(matchedCase, arm)
		} else {
			unmatchedCase = append(unmatchedCase, arm)
		}
	}
	unmatched := hUnary{fn: expr.IsNull, arg: copies, t: expr.ColumnType{Type: repr.Bool}}
	pick := hIf{cond: unmatched, then: caseOf(unmatchedCase, zero), els: caseOf(matchedCase, zero), t: expr.ColumnType{Type: repr.Int4}}
	chosen := hColumn{index: m + n + 1, t: expr.ColumnType{Type: repr.Int4}, name: "clause"}
	acting := hFilter{input: hMap{input: joined, scalars: []hscalar{pick}},
		preds: []hscalar{hBinary{fn: expr.NotEq, left: chosen, right: zero, t: expr.ColumnType{Type: repr.Bool}}}}

	// The output row: each column is the chosen clause's value of it.
	is := func(id int) hscalar {
		return hBinary{fn: expr.Eq, left: chosen, right: hLiteral{v: repr.NewInt4(int32(id)), t: repr.Int4}, t: expr.ColumnType{Type: repr.Bool}}
	}
	var actionArms []mergeArm
	for i, c := range clauses {
		actionArms = append(actionArms, mergeArm{cond: is(i + 1), value: hLiteral{v: repr.NewInt4(int32(c.action)), t: repr.Int4}})
	}
	out := []hscalar{caseOf(actionArms, zero), copies}
	for i, col := range r.Columns {
		out = append(out, hColumn{index: m + i, t: expr.ColumnType{Type: col.Type.Type, Nullable: true}, name: col.Name})
	}
	for i, col := range r.Columns {
		var arms []mergeArm
		for id, c := range clauses {
			if c.row != nil {
				arms = append(arms, mergeArm{cond: is(id + 1), value: c.row[i]})
			}
		}
		// A delete's new row is its old one: never NULL where the
		// table says NOT NULL, so the check below lets it pass.
		out = append(out, caseOf(arms, hColumn{index: m + i, t: expr.ColumnType{Type: col.Type.Type, Nullable: true}, name: col.Name}))
	}
	mapped, outs := mapOutputs(acting, out)
	plan, err := p.lower(hProject{input: mapped, outputs: outs})
	if err != nil {
		return nil, err
	}
	st := &Merge{Table: tgt, Plan: checkNotNull(plan, tgt, 2+n)}
	for _, c := range clauses {
		st.Actions = append(st.Actions, c.action)
	}
	return st, nil
}

// mergeArm is one WHEN of a CASE: value where cond holds (always, for a
// nil cond).
type mergeArm struct {
	cond, value hscalar
}

// caseOf is CASE WHEN arms… ELSE els END: the value of the first arm
// whose condition is TRUE.
func caseOf(arms []mergeArm, els hscalar) hscalar {
	out := els
	for i := len(arms) - 1; i >= 0; i-- {
		a := arms[i]
		if a.cond == nil {
			out = a.value
			continue
		}
		t := a.value.typ()
		t.Nullable = t.Nullable || out.typ().Nullable
		out = hIf{cond: a.cond, then: a.value, els: out, t: t}
	}
	return out
}

// mergeInsert binds a WHEN NOT MATCHED clause's INSERT into the new row
// of table r, over the source's scope sc: the values given, cast to
// their columns, and defaults for the rest, as INSERT … VALUES does.
func (p *planner) mergeInsert(w *pg.MergeWhenClause, r Relation, sc *scope) ([]hscalar, error) {
	row := make([]hscalar, len(r.Columns))
	for i := range row {
		row[i] = defaultOf(r, i)
	}
	cols, err := p.insertColumns(w.TargetList, r, r.Name.Name)
	if err != nil {
		return nil, err
	}
	if w.Values == nil {
		// INSERT DEFAULT VALUES
		return row, nil
	}
	if err := insertArity(len(w.Values), len(cols), w.TargetList != nil); err != nil {
		return nil, errorAt(err, p.b.sql, nodeLocation(w.Values[0]))
	}
	for j, item := range w.Values {
		c := cols[j]
		if item.GetSetToDefault() != nil || overridden(r, c, w.Override) {
			continue
		}
		if err := checkIdentityInsert(r, c, w.Override); err != nil {
			return nil, errorAt(err, p.b.sql, nodeLocation(item))
		}
		s, err := p.b.bindExpr(item, &exprCtx{scope: sc, clause: "VALUES"})
		if err != nil {
			return nil, err
		}
		if row[c], err = p.assign(s, r, c); err != nil {
			return nil, errorAt(err, p.b.sql, nodeLocation(item))
		}
	}
	return row, nil
}

package coord

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"freshet/catalog"
	"freshet/expr"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// alterTable runs ALTER TABLE … ADD COLUMN, DROP COLUMN and ALTER COLUMN
// SET | DROP DEFAULT, SET | DROP NOT NULL: every action of the statement
// or none (Engine.AlterTable). Like CREATE and DROP, it runs at once in
// a transaction block and is not undone by ROLLBACK.
//
// What cannot be planned under the engine's lock is worked out first:
// SET DEFAULT's expression (planning resolves names through the
// catalog), the value ADD COLUMN's default gives the existing rows (a
// read), and for DROP COLUMN … CASCADE the drop of the table's
// dependents, which goes through the drop path before the column goes.
func (s *Session) alterTable(ctx context.Context, st *planner.AlterTable, w pgwire.Writer) (result, error) {
	res := result{tag: st.Tag()}
	if _, ok := s.resolveBuiltin(st.Name); ok || st.Name.Schema == pgCatalogSchema {
		return result{}, sqlerr.New(sqlerr.InsufficientPrivilege, "permission denied: %q is a system catalog", st.Name.Name)
	}
	var t *catalog.Object
	err := s.engine.Catalog(func(c *catalog.Catalog) error {
		o, err := s.lookup(c, st.Name)
		if err == nil {
			t = o
		}
		return nil
	})
	if err != nil {
		return result{}, err
	}
	if t == nil {
		if st.IfExists {
			w.Notice(sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist, skipping", st.Name.Name).WithSeverity(sqlerr.SeverityNotice))
			return res, nil
		}
		return result{}, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.Name.Name)
	}
	if t.Kind != catalog.Table {
		return result{}, sqlerr.New(sqlerr.WrongObjectType, "ALTER action %s cannot be performed on relation %q", actionName(st.Actions[0].Kind), t.Name).
			WithDetail("This operation is not supported for %ss.", t.Kind)
	}
	if s.tx.status == pgwire.TxInBlock && slices.ContainsFunc(s.tx.writes, func(w TableWrite) bool { return w.Table == t.ID }) {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "ALTER TABLE of a table written earlier in the same transaction block is not supported")
	}
	fills, defaults, err := s.alterValues(ctx, st, t)
	if err != nil {
		return result{}, err
	}
	if cascade := slices.ContainsFunc(st.Actions, func(a planner.AlterAction) bool {
		return a.Kind == planner.AlterDropColumn && a.Cascade && slices.ContainsFunc(t.Columns, func(c catalog.Column) bool { return c.Name == a.Column })
	}); cascade {
		if err := s.dropDependents(ctx, t, w); err != nil {
			return result{}, err
		}
	}
	var notices []*sqlerr.Error
	err = s.engine.AlterTable(ctx, func(c *catalog.Catalog) (*alteration, error) {
		notices = nil
		o, err := s.lookup(c, st.Name)
		if err != nil || o.ID != t.ID {
			// Dropped or replaced since it was looked up.
			return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", st.Name.Name)
		}
		role, _ := s.sessionRole(c)
		if err := checkOwner(c, o, role); err != nil {
			return nil, err
		}
		return s.planAlter(c, o, st, fills, defaults, func(n *sqlerr.Error) { notices = append(notices, n) })
	})
	if err != nil {
		return result{}, err
	}
	for _, n := range notices {
		w.Notice(n)
	}
	return res, nil
}

// alterValues works out, per action, the value ADD COLUMN gives the
// existing rows (fills) and the planned default of SET DEFAULT
// (defaults). A default that is not a constant is evaluated once, as
// one statement sees it (now() is the statement's time); one that
// changes state or differs per call (nextval, random) is marked with a
// nil fill and refused later if the table has rows.
func (s *Session) alterValues(ctx context.Context, st *planner.AlterTable, t *catalog.Object) (fills []*repr.Datum, defaults []expr.Scalar, err error) {
	fills = make([]*repr.Datum, len(st.Actions))
	defaults = make([]expr.Scalar, len(st.Actions))
	types := map[string]repr.Type{}
	for _, c := range t.Columns {
		types[c.Name] = c.Type
	}
	for i, a := range st.Actions {
		switch a.Kind {
		case planner.AlterAddColumn:
			types[a.Column] = a.Def.Type
			d := a.Def.Default
			switch {
			case d == nil:
				fills[i] = &repr.Null
			case isLiteral(d):
				v := d.(expr.Literal).Value
				fills[i] = &v
			case changesPerCall(d):
			default:
				sel := &planner.Select{Plan: expr.Map{Input: expr.Constant{Rows: []expr.Row{{Diff: 1}}}, Scalars: []expr.Scalar{d}},
					Finishing: planner.Finishing{Limit: -1, Project: []int{0}}}
				rows, err := s.selectDatums(ctx, sel)
				if err != nil {
					return nil, nil, err
				}
				if len(rows) != 1 || len(rows[0]) != 1 {
					return nil, nil, sqlerr.AssertionFailedf("default of %s gave %d rows", a.Column, len(rows))
				}
				fills[i] = &rows[0][0]
			}
		case planner.AlterDropColumn:
			delete(types, a.Column)
		case planner.AlterSetDefault:
			typ, ok := types[a.Column]
			if !ok {
				return nil, nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", a.Column, t.Name)
			}
			if defaults[i], err = planner.PlanDefault(s.catalog(), a.DefaultSQL, a.Column, typ); err != nil {
				return nil, nil, err
			}
		}
	}
	return fills, defaults, nil
}

// isLiteral reports whether d is a constant.
func isLiteral(d expr.Scalar) bool {
	_, ok := d.(expr.Literal)
	return ok
}

// changesPerCall reports whether evaluating d changes state or may give
// another value at each call: nextval and its kin, random,
// gen_random_uuid. PostgreSQL evaluates such a default once per existing
// row.
func changesPerCall(d expr.Scalar) bool {
	found := false
	expr.MapCalls(expr.Map{Input: expr.Constant{}, Scalars: []expr.Scalar{d}}, func(c expr.CallVariadic) expr.Scalar {
		switch c.Func {
		case expr.NextVal, expr.SetVal, expr.CurrVal, expr.LastVal, expr.Random, expr.GenRandomUUID:
			found = true
		}
		return c
	})
	return found
}

// dropDependents drops every object that depends on table t (DROP
// COLUMN … CASCADE), through the drop path, sending its notice.
func (s *Session) dropDependents(ctx context.Context, t *catalog.Object, w pgwire.Writer) error {
	plan, err := s.engine.Drop(ctx, func(c *catalog.Catalog) (*catalog.DropPlan, error) {
		if o := c.Get(t.ID); o == nil {
			return nil, nil
		}
		return c.PlanDropDependents(t), nil
	})
	if err != nil {
		return err
	}
	if plan != nil && plan.Notice != "" {
		n := sqlerr.New(sqlerr.SuccessfulCompletion, "%s", plan.Notice).WithSeverity(sqlerr.SeverityNotice)
		if plan.Detail != "" {
			n = n.WithDetail("%s", plan.Detail)
		}
		w.Notice(n)
	}
	return nil
}

// planAlter applies st's actions, in order, to a copy of table o and
// returns the alteration, or nil if every action was skipped (IF [NOT]
// EXISTS). notice sends the skips' notices.
func (s *Session) planAlter(c *catalog.Catalog, o *catalog.Object, st *planner.AlterTable, fills []*repr.Datum, planned []expr.Scalar, notice func(*sqlerr.Error)) (*alteration, error) {
	t := *o
	t.Columns = slices.Clone(o.Columns)
	t.UniqueKeys = slices.Clone(o.UniqueKeys)
	defaults := make([]expr.Scalar, len(t.Columns))
	for i := range defaults {
		defaults[i] = s.engine.columnDefault(o.ID, i)
	}
	// src[i] is the column of an old row that new column i takes, or -1
	// for an added column, which takes fill[i] (nil: a default that
	// changes per call).
	src := make([]int, len(t.Columns))
	fill := make([]*repr.Datum, len(t.Columns))
	for i := range src {
		src[i] = i
	}
	reshaped, check, changed := false, false, false
	var volatile string
	seqs := map[uint64]*catalog.Object{}
	find := func(name string) int {
		return slices.IndexFunc(t.Columns, func(col catalog.Column) bool { return col.Name == name })
	}
	missing := func(name string) error {
		return sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
	}
	for k, a := range st.Actions {
		i := find(a.Column)
		if a.Kind != planner.AlterAddColumn && i < 0 {
			if a.Kind == planner.AlterDropColumn && a.IfExists {
				notice(sqlerr.New(sqlerr.UndefinedColumn, "column %q of relation %q does not exist, skipping", a.Column, t.Name).WithSeverity(sqlerr.SeverityNotice))
				continue
			}
			return nil, missing(a.Column)
		}
		if a.Kind == planner.AlterAddColumn && i >= 0 {
			if a.IfNotExists {
				notice(sqlerr.New(sqlerr.DuplicateColumn, "column %q of relation %q already exists, skipping", a.Column, t.Name).WithSeverity(sqlerr.SeverityNotice))
				continue
			}
			return nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q of relation %q already exists", a.Column, t.Name)
		}
		changed = true
		switch a.Kind {
		case planner.AlterAddColumn:
			col := catalog.Column{Name: a.Column, Type: a.Def.Type, NotNull: a.Def.NotNull}
			if a.Def.Default != nil {
				col.Default = a.Def.Default.String()
			}
			if fills[k] == nil && volatile == "" {
				volatile = a.Column
			}
			t.Columns = append(t.Columns, col)
			defaults = append(defaults, a.Def.Default)
			src, fill = append(src, -1), append(fill, fills[k])
			reshaped = true
		case planner.AlterDropColumn:
			if err := dropColumnAllowed(c, &t, i); err != nil {
				return nil, err
			}
			for _, seq := range c.Dependents(o.ID) {
				if seq.Kind == catalog.Sequence && seq.On == o.ID && seq.Seq != nil && seq.Seq.Column > i+1 {
					if seqs[seq.ID] == nil {
						cp := *seq
						opts := *seq.Seq
						cp.Seq = &opts
						seqs[seq.ID] = &cp
					}
				}
			}
			for _, seq := range seqs {
				if seq.Seq.Column > i+1 {
					seq.Seq.Column--
				}
			}
			t.UniqueKeys = dropKeyColumn(t.UniqueKeys, i)
			t.Columns = slices.Delete(t.Columns, i, i+1)
			defaults = slices.Delete(defaults, i, i+1)
			src, fill = slices.Delete(src, i, i+1), slices.Delete(fill, i, i+1)
			reshaped = true
		case planner.AlterSetDefault:
			if t.Columns[i].Identity != 0 {
				return nil, identityError(&t, i)
			}
			t.Columns[i].Default, defaults[i] = planned[k].String(), planned[k]
		case planner.AlterDropDefault:
			if t.Columns[i].Identity != 0 {
				return nil, identityError(&t, i).WithHint("Use ALTER TABLE ... ALTER COLUMN ... DROP IDENTITY instead.")
			}
			t.Columns[i].Default, defaults[i] = "", nil
		case planner.AlterSetNotNull:
			if !t.Columns[i].NotNull {
				t.Columns[i].NotNull, check = true, true
			}
		case planner.AlterDropNotNull:
			if slices.ContainsFunc(t.UniqueKeys, func(k catalog.UniqueKey) bool { return k.Primary && slices.Contains(k.Columns, i) }) {
				return nil, sqlerr.New(sqlerr.InvalidTableDefinition, "column %q is in a primary key", t.Columns[i].Name)
			}
			if t.Columns[i].Identity != 0 {
				return nil, identityError(&t, i)
			}
			t.Columns[i].NotNull = false
		}
	}
	if !changed {
		return nil, nil
	}
	a := &alteration{old: o, table: &t, check: check, defaults: defaults}
	for _, id := range slices.Sorted(maps.Keys(seqs)) {
		a.also = append(a.also, seqs[id])
	}
	if !slices.ContainsFunc(defaults, func(d expr.Scalar) bool { return d != nil }) {
		a.defaults = nil
	}
	if !reshaped {
		return a, nil
	}
	a.volatile = volatile
	a.row = func(old []repr.Datum) []repr.Datum {
		out := make([]repr.Datum, len(src))
		for i, j := range src {
			switch {
			case j >= 0:
				out[i] = old[j]
			case fill[i] != nil:
				out[i] = *fill[i]
			}
		}
		return out
	}
	a.also = append(a.also, viewWidths(c, o, len(t.Columns))...)
	return a, nil
}

// seesColumns returns how many leading columns of table id view d
// reads at most: the width it recorded when columns were added after
// it, or every column (a large number) for a dependent that recorded
// none or is not a view.
func seesColumns(d *catalog.Object, id uint64) int {
	if w, ok := d.Widths[id]; ok && (d.Kind == catalog.View || d.Kind == catalog.MaterializedView) {
		return w
	}
	return int(^uint(0) >> 1)
}

// actionName is PostgreSQL's name for an action in its errors.
func actionName(k planner.AlterKind) string {
	return map[planner.AlterKind]string{planner.AlterAddColumn: "ADD COLUMN", planner.AlterDropColumn: "DROP COLUMN",
		planner.AlterSetDefault: "ALTER COLUMN ... SET DEFAULT", planner.AlterDropDefault: "ALTER COLUMN ... DROP DEFAULT",
		planner.AlterSetNotNull: "SET NOT NULL", planner.AlterDropNotNull: "DROP NOT NULL"}[k]
}

// dropColumnAllowed refuses DROP COLUMN of column i of t: with 2BP01 if
// anything but t's own sequences depends on t, unless it is a view made
// before column i was added (which columns a view reads is not recorded
// otherwise, so any other dependent counts), with 0A000 for a serial or
// identity column and for t's last column.
func dropColumnAllowed(c *catalog.Catalog, t *catalog.Object, i int) error {
	var lines []string
	serial := false
	for _, d := range c.Dependents(t.ID) {
		switch {
		case d.Kind == catalog.Sequence && d.On == t.ID:
			serial = serial || (d.Seq != nil && d.Seq.Column == i+1)
		case seesColumns(d, t.ID) <= i:
			// A view made before the column was added does not read
			// it: its plans read the rows' first columns only.
		default:
			lines = append(lines, fmt.Sprintf("%s %s depends on table %s", d.Kind, d.Name, t.Name))
		}
	}
	if len(lines) > 0 {
		return sqlerr.New(sqlerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", t.Columns[i].Name, t.Name).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if serial {
		// Its sequence would go with it, as in PostgreSQL; not built.
		return sqlerr.New(sqlerr.FeatureNotSupported, "dropping a serial or identity column is not supported")
	}
	if len(t.Columns) == 1 {
		return sqlerr.New(sqlerr.FeatureNotSupported, "dropping the last column of a table is not supported")
	}
	return nil
}

// dropKeyColumn returns keys without column i: a key that uses it goes,
// as PostgreSQL drops a constraint on a dropped column, and the others'
// positions past i move down one.
func dropKeyColumn(keys []catalog.UniqueKey, i int) []catalog.UniqueKey {
	var out []catalog.UniqueKey
	for _, k := range keys {
		if slices.Contains(k.Columns, i) {
			continue
		}
		cols := slices.Clone(k.Columns)
		for j := range cols {
			if cols[j] > i {
				cols[j]--
			}
		}
		k.Columns = cols
		out = append(out, k)
	}
	return out
}

// identityError is PostgreSQL's refusal of a change of an identity
// column's default or NOT NULL.
func identityError(t *catalog.Object, i int) *sqlerr.Error {
	return sqlerr.New(sqlerr.SyntaxError, "column %q of relation %q is an identity column", t.Columns[i].Name, t.Name)
}

// viewWidths returns the views over table o whose record of the width
// they see changes when o's columns become n, so changed. A view sees
// the columns it saw when it was made, a prefix of the table's: the
// columns of a view with no record are o's columns now, and it records
// their number once columns are added after them; a DROP COLUMN of
// columns past a view's width (all a view can be spared, see
// dropColumnAllowed) leaves that width, and a width that is the whole
// table's again is no longer recorded.
func viewWidths(c *catalog.Catalog, o *catalog.Object, n int) []*catalog.Object {
	var out []*catalog.Object
	for _, d := range c.Dependents(o.ID) {
		if d.Kind != catalog.View && d.Kind != catalog.MaterializedView {
			continue
		}
		old, had := d.Widths[o.ID]
		w := len(o.Columns)
		if had {
			w = old
		}
		if w >= n {
			if !had {
				continue
			}
			v := *d
			v.Widths = maps.Clone(d.Widths)
			delete(v.Widths, o.ID)
			if len(v.Widths) == 0 {
				v.Widths = nil
			}
			out = append(out, &v)
			continue
		}
		if had && old == w {
			continue
		}
		v := *d
		v.Widths = maps.Clone(d.Widths)
		if v.Widths == nil {
			v.Widths = map[uint64]int{}
		}
		v.Widths[o.ID] = w
		out = append(out, &v)
	}
	return out
}

package coord

import (
	"context"
	"fmt"
	"slices"

	"freshet/catalog"
	"freshet/expr"
	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// upsert runs INSERT … ON CONFLICT. The proposed rows are computed as an
// INSERT's; the table is read at the same time; each proposed row whose
// value of an arbiter key (the conflict target's, or, for DO NOTHING
// without one, any unique key's) is held by an existing row, or by a row
// the statement proposed before it, is left out (DO NOTHING) or turns
// into an update of that row (DO UPDATE, over the existing row and the
// proposed one as EXCLUDED). The statement reads and writes as one step,
// as UPDATE does; the writes then pass the unique keys' checks like any
// other, so a conflict on a key that is no arbiter is 23505, as in
// PostgreSQL. Reading the table costs a scan of it (docs/sql-service.md).
func (s *Session) upsert(ctx context.Context, st *planner.Insert) (result, error) {
	t, oc := st.Table, st.OnConflict
	table := expr.Get{ID: t.ID, Name: t.Name.Name, Types: targetTypes(t)}
	if err := s.checkOwnWrites(expr.Union{Inputs: []expr.Relation{st.Plan, table}}); err != nil {
		return result{}, err
	}
	if s.tx.status != pgwire.TxInBlock {
		if err := s.engine.dmlMu.acquire(ctx); err != nil {
			return result{}, err
		}
		defer s.engine.dmlMu.Unlock()
	}
	n := len(t.Columns)
	// The proposed rows, then DO UPDATE's scalars, bound to the session
	// and its statement time together.
	scalars := append(slices.Clone(oc.Update), oc.Where)
	if oc.Where == nil {
		scalars = scalars[:len(oc.Update)]
	}
	plan, apply, err := s.bindSession(expr.Union{Inputs: []expr.Relation{st.Plan, expr.Map{Input: expr.Constant{}, Scalars: scalars}}})
	if err != nil {
		return result{}, err
	}
	if apply != nil {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "set_config() is not supported in INSERT, UPDATE or DELETE")
	}
	if err := s.engine.flushCatalogFor(ctx, plan); err != nil {
		return result{}, err
	}
	ts, now, release := s.readTime()
	defer release()
	plan = withNow(plan, now)
	bound := plan.(expr.Union)
	update := bound.Inputs[1].(expr.Map).Scalars
	var where expr.Scalar
	if oc.Where != nil {
		where, update = update[len(update)-1], update[:len(update)-1]
	}
	proposed, err := s.engine.Read(ctx, bound.Inputs[0], ts)
	if err != nil {
		return result{}, err
	}
	existing, err := s.engine.Read(ctx, table, ts)
	if err != nil {
		return result{}, err
	}

	arbiters := [][]int{oc.Key}
	if oc.Key == nil {
		arbiters = nil
		s.engine.Catalog(func(c *catalog.Catalog) error {
			for _, k := range c.UniqueKeys(uint64(t.ID)) {
				arbiters = append(arbiters, k.Columns)
			}
			return nil
		})
	}
	// keyOf is row's value of arbiter a, packed; ok is false when a
	// column of it is NULL, which never conflicts.
	keyOf := func(a int, row []repr.Datum) (string, bool) {
		vals := make([]repr.Datum, len(arbiters[a]))
		for i, c := range arbiters[a] {
			if row[c].IsNull() {
				return "", false
			}
			vals[i] = row[c]
		}
		return string(repr.PackRow(vals...)), true
	}
	// held maps each arbiter's values to the existing row that holds
	// them; taken marks the values rows of this statement hold.
	held := make([]map[string][]repr.Datum, len(arbiters))
	taken := make([]map[string]bool, len(arbiters))
	for a := range arbiters {
		held[a], taken[a] = map[string][]repr.Datum{}, map[string]bool{}
		for _, r := range existing {
			if k, ok := keyOf(a, r.Datums); ok {
				held[a][k] = r.Datums
			}
		}
	}

	var writes []TableWrite
	var out [][]repr.Datum
	for _, r := range proposed {
		for range r.Diff {
			row := r.Datums
			var conflict []repr.Datum
			again := false
			for a := range arbiters {
				k, ok := keyOf(a, row)
				if !ok {
					continue
				}
				again = again || taken[a][k]
				if conflict == nil {
					conflict = held[a][k]
				}
			}
			if again && oc.Update != nil {
				return result{}, sqlerr.New(sqlerr.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
					WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
			}
			take := func(row []repr.Datum) {
				for a := range arbiters {
					if k, ok := keyOf(a, row); ok {
						taken[a][k] = true
					}
				}
			}
			switch {
			case again || (conflict != nil && oc.Update == nil):
				take(row)
			case conflict == nil:
				take(row)
				writes = append(writes, TableWrite{Table: uint64(t.ID), Row: repr.PackRow(row...), Diff: 1, Shape: t.Shape})
				out = append(out, row)
			default:
				both := append(slices.Clone(conflict), row...)
				take(row)
				take(conflict)
				if where != nil {
					ok, err := where.Eval(both)
					if err != nil {
						return result{}, err
					}
					if ok.IsNull() || !ok.Bool() {
						continue
					}
				}
				next := make([]repr.Datum, n)
				for i, u := range update {
					if next[i], err = u.Eval(both); err != nil {
						return result{}, err
					}
					if next[i].IsNull() && !t.Columns[i].Nullable {
						return result{}, sqlerr.New(sqlerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", t.Columns[i].Name, t.Name.Name)
					}
				}
				writes = append(writes,
					TableWrite{Table: uint64(t.ID), Row: repr.PackRow(conflict...), Diff: -1, Shape: t.Shape},
					TableWrite{Table: uint64(t.ID), Row: repr.PackRow(next...), Diff: 1, Shape: t.Shape})
				out = append(out, next)
			}
		}
	}
	res := result{tag: fmt.Sprintf("INSERT 0 %d", len(out))}
	if st.Returning != nil {
		res.columns = describe(st.Returning.Columns)
		for _, row := range out {
			text, err := returningRow(st.Returning, row, s.zone())
			if err != nil {
				return result{}, err
			}
			res.rows = append(res.rows, text)
		}
	}
	deps := append(dependencies(st.Plan), uint64(t.ID))
	if err := s.submitWrites(ctx, t, deps, writes); err != nil {
		return result{}, err
	}
	return res, nil
}

// targetTypes are the column types of an INSERT's table.
func targetTypes(t planner.Target) []expr.ColumnType {
	ts := make([]expr.ColumnType, len(t.Columns))
	for i, c := range t.Columns {
		ts[i] = expr.ColumnType{Type: c.Type, Nullable: c.Nullable}
	}
	return ts
}

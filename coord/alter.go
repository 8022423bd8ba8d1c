package coord

import (
	"context"
	"slices"

	"freshet/catalog"
	"freshet/expr"
	"freshet/repr"
	"freshet/sqlerr"
	"freshet/storage"
)

// alteration is what one ALTER TABLE does to a table, worked out against
// one catalog version (Engine.AlterTable).
type alteration struct {
	// old is the table as it is, table the changed copy that replaces it.
	old, table *catalog.Object
	// row maps the datums of a row of old to the row of table; nil when
	// the rows stay as they are.
	row func(old []repr.Datum) []repr.Datum
	// check reports whether the rows must be read even though they stay
	// (SET NOT NULL).
	check bool
	// defaults are table's column defaults, one per column (nil for
	// NULL), as writes evaluate them.
	defaults []expr.Scalar
	// also are other objects whose changed copies commit with table: the
	// views that record the width they saw (ADD COLUMN), the sequences
	// whose owning column moves (DROP COLUMN).
	also []*catalog.Object
	// volatile names an added column whose default changes per call
	// (nextval, random): refused if the table has rows, which would each
	// need their own value.
	volatile string
}

// PlanAlter works out an ALTER TABLE against the catalog it is given. It
// returns nil for nothing to do (IF EXISTS of a missing table, or every
// action skipped).
type PlanAlter func(c *catalog.Catalog) (*alteration, error)

// AlterTable carries out an ALTER TABLE that plan works out, as one step
// against one catalog version, all or nothing.
//
// Under the engine's lock it waits until no write is in flight, reads
// the table's rows from its log and maps each to its new shape. A
// change of shape is one write at one new timestamp: the table's
// catalog record, and its log replaced by the new rows, in one durable
// storage transaction; the table's dataflow is then fed the
// retraction of every old row and the addition of every new one at that
// timestamp. Dataflows built before the change read the rows cut to the
// width they know (compute's Source), so over an added column the pairs
// cancel in them and their results do not change. It costs time and
// memory in the table's rows.
func (e *Engine) AlterTable(ctx context.Context, plan PlanAlter) error {
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	e.quiescing++
	defer func() {
		e.quiescing--
		e.fedCond.Broadcast()
	}()
	var a *alteration
	for {
		var err error
		if a, err = plan(e.cat); err != nil || a == nil {
			return err
		}
		// A write that took its timestamp before this change was
		// planned against the old shape and must be in the log first.
		// Waiting for every write in flight, not only the table's, also
		// means that the rewrite is fed as soon as it is durable, with
		// the lock held throughout: no statement plans against the new
		// columns while reads still see the time before them.
		if len(e.pending) == 0 {
			break
		}
		e.fedCond.Wait()
	}
	var retract, add []TableWrite
	if a.row != nil || a.check {
		net := map[string]int64{}
		if err := e.store.ScanTable(a.old.ID, func(_ uint64, row []byte, diff int64) error {
			net[string(row)] += diff
			return nil
		}); err != nil {
			return err
		}
		rows := make([]string, 0, len(net))
		for r, d := range net {
			if d != 0 {
				rows = append(rows, r)
			}
		}
		slices.Sort(rows)
		if len(rows) > 0 && a.volatile != "" {
			return sqlerr.New(sqlerr.FeatureNotSupported, "ALTER TABLE … ADD COLUMN with a default that changes per call (nextval, random) on a table with rows is not supported").
				WithHint("Add column %q without the default, fill it with UPDATE, then ALTER COLUMN … SET DEFAULT.", a.volatile)
		}
		oldTypes := columnTypes(a.old.Columns)
		var ds []repr.Datum
		for _, r := range rows {
			var err error
			if ds, err = repr.Row(r).DecodeInto(ds, oldTypes); err != nil {
				return sqlerr.AssertionFailedf("a row of table %s: %v", a.old.Name, err)
			}
			out := ds
			if a.row != nil {
				out = a.row(ds)
			}
			for i, c := range a.table.Columns {
				if c.NotNull && out[i].IsNull() {
					return sqlerr.New(sqlerr.NotNullViolation, "column %q of relation %q contains null values", c.Name, a.table.Name)
				}
			}
			if a.row != nil {
				retract = append(retract, TableWrite{Table: a.old.ID, Row: repr.Row(r), Diff: -net[r]})
				add = append(add, TableWrite{Table: a.old.ID, Row: repr.PackRow(out...), Diff: net[r]})
			}
		}
	}
	objs := append([]*catalog.Object{a.table}, a.also...)
	if a.row == nil {
		if err := e.persistCatalog(ctx, objs, nil); err != nil {
			return err
		}
		e.applyAlterLocked(a, nil, 0)
		return e.catalogChangedLocked(ctx)
	}
	ts, err := e.oracle.next(ctx)
	if err != nil {
		return err
	}
	// The rewrite goes through the queue of writes (empty, as waited
	// for above), so that it is fed as any write is.
	p := &pendingWrite{ts: ts, writes: writeSet{{writes: retract}, {writes: add}}}
	e.pending = append(e.pending, p)
	txn := &storage.Txn{DropTables: []uint64{a.old.ID}, Time: ts}
	for _, o := range objs {
		txn.Catalog = append(txn.Catalog, storage.CatalogRecord{ID: o.ID, Value: catalog.Encode(o)})
	}
	for _, w := range add {
		txn.Writes = append(txn.Writes, storage.TableWrite{Table: w.Table, Row: w.Row, Diff: w.Diff})
	}
	// Once queued the transaction is waited for whatever ctx does, so
	// the outcome below is the outcome on disk.
	p.err = e.store.Commit(ctx, txn)
	p.durable = true
	if p.err == nil {
		e.applyAlterLocked(a, add, ts)
		var rows int64
		for _, w := range add {
			rows += w.Diff
		}
		e.resetLogLocked(a.old.ID, int64(len(add)), rows)
	}
	e.feedDurableLocked()
	if !p.fed {
		// No write was in flight and the lock was held since.
		return sqlerr.AssertionFailedf("the rewrite of table %s was not fed", a.old.Name)
	}
	if p.err != nil {
		return p.err
	}
	return e.catalogChangedLocked(ctx)
}

// applyAlterLocked puts a durable alteration in place in memory: the
// catalog's objects, the table's defaults and, for rewritten rows (rows,
// the table's whole content now, written at ts), its unique keys counted
// again.
func (e *Engine) applyAlterLocked(a *alteration, rows []TableWrite, ts uint64) {
	for _, o := range append([]*catalog.Object{a.table}, a.also...) {
		if err := e.cat.Rename(o); err != nil {
			// Names do not change; the record is durable already.
			e.log.Error("an altered object could not take its place", "object", o.Name, "error", err)
		}
	}
	e.defaults[a.table.ID] = a.defaults
	if e.shapes == nil {
		e.shapes, e.altered = map[uint64]uint64{}, map[uint64]uint64{}
	}
	// Writes planned before are refused from now on, and after a
	// rewrite, reads at times before it.
	e.shapes[a.table.ID]++
	if rows != nil {
		e.altered[a.table.ID] = ts
	}
	defs := e.cat.UniqueKeys(a.table.ID)
	if len(defs) == 0 {
		e.setKeysLocked(a.table.ID, nil)
		return
	}
	tk := &tableKeys{columns: a.table.Columns}
	if old := e.keys[a.table.ID]; old != nil && rows == nil {
		tk.keys = old.keys
	} else {
		for _, d := range defs {
			tk.keys = append(tk.keys, newUniqueKey(d))
		}
		var raw [][]byte
		var buf []byte
		for _, w := range rows {
			var err error
			if raw, err = keyValues(w.Row, len(a.table.Columns), raw); err != nil {
				e.log.Error("counting a rewritten row's keys", "table", a.table.Name, "error", err)
				continue
			}
			for _, k := range tk.keys {
				buf = countRow(k, raw, w.Diff, buf)
			}
		}
	}
	e.setKeysLocked(a.table.ID, tk)
}

// checkShapesLocked refuses writes planned against another shape of
// their table than its current one: before an ALTER TABLE that has
// since changed it (in a transaction block, or between a statement's
// planning and its write). Such rows may have the table's width and
// types and still put values in the wrong columns (ADD one column, DROP
// another), so the shape generation is compared, not the rows.
func (e *Engine) checkShapesLocked(writes writeSet) error {
	if len(e.shapes) == 0 {
		return nil
	}
	for w := range writes.all() {
		if w.Shape == e.shapes[w.Table] {
			continue
		}
		name := "?"
		if t := e.cat.Get(w.Table); t != nil {
			name = t.Name
		}
		return sqlerr.New(sqlerr.SerializationFailure, "could not serialize access: table %q was altered after this statement was planned", name).
			WithHint("Run the statement (or transaction) again.")
	}
	return nil
}

// checkReadShapesLocked refuses a read at ts of a plan that reads an
// altered table as it was before the change: at a time before it (a
// transaction block's snapshot taken before the ALTER TABLE), or with
// more columns than the table has now (planned before a DROP COLUMN).
func (e *Engine) checkReadShapesLocked(plan expr.Relation, ts uint64) error {
	if len(e.altered) == 0 {
		return nil
	}
	var err error
	var walk func(r expr.Relation)
	walk = func(r expr.Relation) {
		if g, ok := r.(expr.Get); ok && err == nil && e.altered[uint64(g.ID)] > 0 {
			t := e.cat.Get(uint64(g.ID))
			if t != nil && (len(g.Types) > len(t.Columns) || ts < e.altered[t.ID]) {
				err = sqlerr.New(sqlerr.SerializationFailure, "could not serialize access: table %q was altered after this transaction's snapshot", t.Name).
					WithHint("Run the transaction again.")
			}
		}
		for _, c := range r.Children() {
			walk(c)
		}
	}
	walk(plan)
	return err
}

// columnTypes returns the types of columns, for decoding rows.
func columnTypes(cols []catalog.Column) []repr.Type {
	ts := make([]repr.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}

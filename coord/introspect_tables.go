package coord

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"freshet/expr"
	"freshet/planner"
	"freshet/repr"
)

// The introspection tables hold what the freshet_internal relations show,
// as rows, like the catalog's system tables (systables.go): tables to the
// dataflow layer with no storage, whose only writer is the engine. Their
// rows are the engine's state, which changes without any statement (a
// frontier moves, an arrangement merges), so they are written at two
// moments:
//
//   - before a statement that reads one takes its read time
//     (flushCatalogFor), so that a query sees the state as it starts;
//   - every introspectEvery while something follows them: a materialized
//     view or an index whose dataflow reads one, or a subscription.
//
// Each write is the difference between the rows the tables hold and the
// rows the state gives now, at a timestamp of its own. Nothing else pays
// for them: with no reader, no write is made.

// introspectIDBase is the id of the first introspection table, past the
// catalog's system tables.
const introspectIDBase = systemIDBase + 1<<16

// defaultIntrospectEvery is how often the introspection tables are
// written while something follows them.
const defaultIntrospectEvery = time.Second

// introspectTable is the table of one freshet_internal relation.
type introspectTable struct {
	id   uint64
	name string
	view internalView
	// columns are the table's: database, then the relation's.
	columns []planner.RelationColumn
}

// tableName is the table's name in systemSchema.
func (t *introspectTable) tableName() string { return "internal_" + t.name }

// introspectTableList returns the introspection tables in name order;
// their ids follow that order.
var introspectTableList = sync.OnceValue(func() []*introspectTable {
	var names []string
	for name := range internalViews {
		names = append(names, name)
	}
	slices.Sort(names)
	if len(names) >= 128 {
		// introspectDiff keys a row by its table's index in one byte.
		panic("too many introspection tables")
	}
	tables := make([]*introspectTable, len(names))
	for i, name := range names {
		v := internalViews[name]
		cols := append([]planner.RelationColumn{col("database", repr.Name, false)}, v.columns...)
		tables[i] = &introspectTable{id: introspectIDBase + uint64(i), name: name, view: v, columns: cols}
	}
	return tables
})

// introspectTableNamed returns the table of relation name, or nil.
func introspectTableNamed(name string) *introspectTable {
	for _, t := range introspectTableList() {
		if t.name == name {
			return t
		}
	}
	return nil
}

// isIntrospectTable reports whether id is in the introspection tables'
// range (there are fewer than 128; counting them here would make their
// list's initialization refer to itself).
func isIntrospectTable(id uint64) bool {
	return id >= introspectIDBase && id < introspectIDBase+128
}

// readsIntrospection reports whether plan reads an introspection table.
func readsIntrospection(plan expr.Relation) bool {
	return slices.ContainsFunc(dependencies(plan), isIntrospectTable)
}

// introspectState is what the introspection tables hold, and who follows
// them.
type introspectState struct {
	// mu is held across reading the engine's state and writing it, so
	// that writes go out in the order their states were read.
	mu sync.Mutex
	// held counts the rows the tables hold, keyed by the table's index
	// (one byte) and the row's bytes. Under mu.
	held map[string]int64
	// readers are the materialized views and indexes whose dataflows
	// read an introspection table. Under the engine's mu.
	readers map[uint64]bool
	// following counts readers and the subscriptions reading one.
	following atomic.Int64
}

// noteIntrospectReaderLocked records that object id's dataflow, built from
// plan, follows the introspection tables, if it reads one. The caller
// holds mu.
func (e *Engine) noteIntrospectReaderLocked(id uint64, plan expr.Relation) {
	if !readsIntrospection(plan) || e.intro.readers[id] {
		return
	}
	if e.intro.readers == nil {
		e.intro.readers = map[uint64]bool{}
	}
	e.intro.readers[id] = true
	e.intro.following.Add(1)
}

// forgetIntrospectReaderLocked is the drop of object id. The caller holds
// mu.
func (e *Engine) forgetIntrospectReaderLocked(id uint64) {
	if e.intro.readers[id] {
		delete(e.intro.readers, id)
		e.intro.following.Add(-1)
	}
}

// startIntrospectTablesLocked builds the introspection tables' dataflows,
// empty: the first statement that reads one, or the first tick with a
// follower, writes them.
func (e *Engine) startIntrospectTablesLocked(ctx context.Context) error {
	for _, t := range introspectTableList() {
		if err := e.buildTableLocked(ctx, systemTableObject(t.id, t.tableName()), false); err != nil {
			return err
		}
	}
	return nil
}

// followIntrospection writes the introspection tables every interval
// while something follows them, until the engine closes.
func (e *Engine) followIntrospection(every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-e.closed:
			return
		}
		if e.intro.following.Load() <= 0 {
			continue
		}
		if err := e.publishIntrospection(context.Background()); err != nil {
			e.log.Warn("the introspection tables could not be written", "error", err)
		}
	}
}

// publishIntrospection reads the engine's state and writes to the
// introspection tables the rows by which it differs from what they hold,
// at a timestamp of their own; it returns once reads see them.
func (e *Engine) publishIntrospection(ctx context.Context) error {
	e.intro.mu.Lock()
	defer e.intro.mu.Unlock()
	st := e.introspect(ctx)
	tables := introspectTableList()
	next := map[string]int64{}
	for i, t := range tables {
		for _, r := range t.view.rows(st) {
			row, err := systemRow(t.tableName(), t.view.columns, r.db, r.lits)
			if err != nil {
				return err
			}
			next[string(rune(i))+string(row)]++
		}
	}
	var writes []TableWrite
	add := func(k string, d int64) {
		if d != 0 {
			writes = append(writes, TableWrite{Table: tables[k[0]].id, Row: repr.Row(k[1:]), Diff: d})
		}
	}
	for k, n := range next {
		add(k, n-e.intro.held[k])
	}
	for k, n := range e.intro.held {
		if _, ok := next[k]; !ok {
			add(k, -n)
		}
	}
	if len(writes) == 0 {
		return nil
	}
	slices.SortFunc(writes, func(a, b TableWrite) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), strings.Compare(string(a.Row), string(b.Row)), cmp.Compare(a.Diff, b.Diff))
	})
	if err := e.mu.acquire(ctx); err != nil {
		return err
	}
	defer e.mu.Unlock()
	ts, err := e.oracle.next(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	e.intro.held = next
	return e.feedSystemLocked(ts, writes)
}

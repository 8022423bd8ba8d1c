package coord

import (
	"maps"
	"slices"
)

// A table's inputs advance with the writes that concern it, not with
// every write.
//
// Advancing an input past a time promises that no more rows come at
// earlier times, and every dataflow over the table then moves its
// frontier on: each operator of the table's dataflow and of every view
// over it is scheduled, and every worker tells the others. A write that
// advanced every table's inputs paid that for each of them, the system
// tables' among them: for a one-row INSERT, two thirds of the workers'
// time went to tables the write did not touch and no view over it reads.
//
// So a write advances the tables that a view over what it wrote also
// reads (its companions), and a read advances what it reads before it
// waits:
//
//   - A write at ts advances, to ts+1, every table it writes and every
//     table that a materialized view or an index over one of those also
//     reads: a join view over orders and customers moves on when orders
//     is written, as it must to show the write.
//   - A read at ts first advances every table under what it reads to
//     the last fed time + 1 (catchUpLocked): a read's time is at most
//     that, and every write up to it was fed, so the promise holds.
//   - A new materialized view or index does the same for what it reads
//     when it starts to hydrate. The tables under a subscription advance
//     with every write, rows or none, for as long as it runs, so that
//     its progress follows the engine's time, as before.
//   - Before the exports are allowed to compact, every table's inputs
//     are advanced to the last fed time + 1: no export is allowed to
//     compact past a time its inputs have not passed, and no table's
//     inputs lag behind the engine's time by more than that interval.
//
// A table that is neither written nor read keeps its frontier; a read of
// it, or of a view over it, pays one advance of it, in the same steps as
// its own work.

// noteImportsLocked records the tables under the dataflow of object id
// (a materialized view or an index), which imports deps: the tables
// among deps and those under the dataflows among them. They are fixed
// for the dataflow's life, whatever is dropped after it.
func (e *Engine) noteImportsLocked(id uint64, deps []uint64) {
	if e.under == nil {
		e.under = map[uint64][]uint64{}
	}
	e.under[id] = e.sourcesLocked(deps)
	e.companions = nil
}

// forgetImportsLocked forgets the tables under object id, if it has a
// dataflow over tables: it was dropped or failed. The tables'
// companions are worked out again, without id if it was a table.
func (e *Engine) forgetImportsLocked(id uint64) {
	delete(e.under, id)
	e.companions = nil
}

// sourcesLocked returns the tables under ids: the tables among them and
// those under the dataflows among them. If one of them is neither (a
// source that ended meanwhile), it returns every table: advancing one
// too many is safe, leaving one behind is a read that never ends.
func (e *Engine) sourcesLocked(ids []uint64) []uint64 {
	var tables []uint64
	for _, id := range ids {
		if _, ok := e.tables[id]; ok {
			if !slices.Contains(tables, id) {
				tables = append(tables, id)
			}
			continue
		}
		under, ok := e.under[id]
		if !ok {
			return slices.Collect(maps.Keys(e.tables))
		}
		for _, t := range under {
			if !slices.Contains(tables, t) {
				tables = append(tables, t)
			}
		}
	}
	return tables
}

// companionsLocked returns the tables a write to table id advances: id,
// and every table under a dataflow that reads id. The answer is kept
// until a dataflow or a table comes or goes.
func (e *Engine) companionsLocked(id uint64) []*table {
	if ts, ok := e.companions[id]; ok {
		return ts
	}
	ids := []uint64{id}
	for _, under := range e.under {
		if !slices.Contains(under, id) {
			continue
		}
		for _, s := range under {
			if !slices.Contains(ids, s) {
				ids = append(ids, s)
			}
		}
	}
	var out []*table
	for _, s := range ids {
		if t := e.tables[s]; t != nil {
			out = append(out, t)
		}
	}
	if e.companions == nil {
		e.companions = map[uint64][]*table{}
	}
	e.companions[id] = out
	return out
}

// catchUpLocked advances every table under deps to the last fed time + 1.
func (e *Engine) catchUpLocked(deps []uint64) {
	for _, id := range e.sourcesLocked(deps) {
		e.tables[id].advance(e.fed + 1)
	}
}

// catchUpAllLocked advances every table to the last fed time + 1.
func (e *Engine) catchUpAllLocked() {
	for _, t := range e.tables {
		t.advance(e.fed + 1)
	}
}

// followLocked advances the tables under deps with every write, until
// unfollowLocked is given what it returns: a subscription's, whose
// progress then follows the engine's time.
func (e *Engine) followLocked(deps []uint64) []uint64 {
	src := e.sourcesLocked(deps)
	if e.eager == nil {
		e.eager = map[uint64]int{}
	}
	for _, id := range src {
		e.eager[id]++
		e.tables[id].advance(e.fed + 1)
	}
	return src
}

// unfollowLocked ends what followLocked started.
func (e *Engine) unfollowLocked(src []uint64) {
	for _, id := range src {
		if e.eager[id]--; e.eager[id] <= 0 {
			delete(e.eager, id)
		}
	}
}

// advanceWrittenLocked advances, past write p, the tables it wrote,
// their companions, and every table a subscription follows (whether or
// not p has rows: its time is the engine's).
func (e *Engine) advanceWrittenLocked(p *pendingWrite, written []uint64) {
	for _, id := range written {
		for _, c := range e.companionsLocked(id) {
			c.advance(p.ts + 1)
		}
	}
	for id := range e.eager {
		if t := e.tables[id]; t != nil {
			t.advance(p.ts + 1)
		}
	}
}

// givenLocked returns the time up to which the tables under object id
// have been advanced, at most the last fed time: id's upper can be no
// further, and is behind by what it has still to do.
func (e *Engine) givenLocked(id uint64) uint64 {
	given := e.fed
	for _, s := range e.sourcesLocked([]uint64{id}) {
		given = min(given, e.tables[s].advanced-1)
	}
	return given
}

// advance advances the table's inputs to to, if they are not past it.
func (t *table) advance(to uint64) {
	if to <= t.advanced {
		return
	}
	t.advanced = to
	for _, h := range t.inputs {
		// An input whose dataflow ended refuses; nothing reads it.
		_ = h.Advance(to)
	}
}

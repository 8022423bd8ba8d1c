package coord

import (
	"iter"

	"freshet/arrange"

	"freshet/internal/prefault"
)

// writeSet is a write transaction's row changes, in order, in one or
// more parts: a COPY gathers its rows in pieces, and joining them into
// one slice would copy every write once more.
type writeSet []writePart

// writePart is a part of a writeSet: row changes one by one, or, when
// packed is set, inserts of rows into one table packed together.
//
// A COPY's rows come packed: a row's bytes and the end of them, 4
// bytes, where a TableWrite is 48 bytes of its own beside the row. On a
// machine where memory a process writes for the first time costs more
// than the writing (a page fault, host-side on a virtual machine), the
// 48 bytes a row were a fifth of a million-row COPY's time on the
// session's goroutine.
type writePart struct {
	writes []TableWrite
	packed *packedInserts
}

// writesOf is the writeSet of writes, one part.
func writesOf(writes []TableWrite) writeSet { return writeSet{{writes: writes}} }

// packedInserts is rows inserted into one table, each with diff 1.
// Rows are only ever appended, and never once the part is in a write
// set: its rows are then read where they are, by the split's chunks
// among others.
type packedInserts struct {
	table, shape uint64
	arrange.Rows
}

// newPackedInserts returns packed inserts into table, of the given
// shape, with room for n rows in bytes bytes, all of it mapped in ahead
// when it is large (prefault).
func newPackedInserts(table, shape uint64, n, bytes int) *packedInserts {
	p := &packedInserts{
		table: table,
		shape: shape,
		Rows: arrange.Rows{
			Data: make([]byte, 0, bytes),
			Ends: make([]uint32, 0, n),
		},
	}
	prefault.Slice(p.Data)
	prefault.Slice(p.Ends)
	return p
}

// full reports whether the part has no room for another row of n bytes
// without growing.
func (p *packedInserts) full(n int) bool {
	return len(p.Ends) == cap(p.Ends) || len(p.Data)+n > cap(p.Data)
}

// len returns the number of writes in the part.
func (wp writePart) len() int {
	if wp.packed != nil {
		return wp.packed.Len()
	}
	return len(wp.writes)
}

// table returns the table of write k.
func (wp writePart) table(k int) uint64 {
	if wp.packed != nil {
		return wp.packed.table
	}
	return wp.writes[k].Table
}

// at returns write k: for a packed part, written into scratch, which
// the next call overwrites.
func (wp writePart) at(k int, scratch *TableWrite) *TableWrite {
	p := wp.packed
	if p == nil {
		return &wp.writes[k]
	}
	*scratch = TableWrite{Table: p.table, Row: p.Row(k), Diff: 1, Shape: p.shape}
	return scratch
}

// len returns the number of writes.
func (ws writeSet) len() int {
	n := 0
	for _, part := range ws {
		n += part.len()
	}
	return n
}

// all yields the writes in order. A write yielded is valid until the
// next: the writes of packed parts are made as they are yielded.
func (ws writeSet) all() iter.Seq[*TableWrite] {
	return func(yield func(*TableWrite) bool) {
		var scratch TableWrite
		for _, part := range ws {
			for k := range part.len() {
				if !yield(part.at(k, &scratch)) {
					return
				}
			}
		}
	}
}

// run returns how many writes from ws[part] write k on are to its
// table.
func (ws writeSet) run(part, k int) int {
	table, n := ws[part].table(k), 0
	for ; part < len(ws); part, k = part+1, 0 {
		p := ws[part]
		if p.packed != nil {
			// One table throughout.
			if p.packed.table != table {
				return n
			}
			n += p.len() - k
			continue
		}
		for _, w := range p.writes[k:] {
			if w.Table != table {
				return n
			}
			n++
		}
	}
	return n
}

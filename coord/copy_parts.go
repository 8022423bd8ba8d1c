package coord

import (
	"freshet/pgwire"
	"freshet/planner"
)

// copyParts gathers a COPY's rows packed in parts, which go to the write
// as they are: growing one buffer of a million rows, or joining the
// parts, copies them over and over. Each part is handed on to the split
// (splitCopy) once the part after it has begun, so that the split starts
// at the same part whether the rows come one at a time (row) or in
// parts that segments' parses filled (add).
//
// The zero value is not usable: s and st must be set. Invariant: part
// is the last part, not yet in parts; n counts the rows of parts and
// part.
type copyParts struct {
	s  *Session
	st *planner.Copy

	parts writeSet
	part  *packedInserts
	n     int
	split *splitWrites
}

// row appends the row that rows encoded last, of size bytes, starting a
// part when the last has no room for it.
func (g *copyParts) row(rows *copyRowBuilder, size int) {
	if g.part == nil || g.part.full(size) {
		if g.part != nil {
			g.handOn()
		}
		g.part = nextCopyPart(g.st, g.part, size)
	}
	g.part.Data = rows.appendRow(g.part.Data)
	g.part.Ends = append(g.part.Ends, uint32(len(g.part.Data)))
	g.n++
}

// add appends part, a part a segment's parse filled, which follows the
// rows so far.
func (g *copyParts) add(part *packedInserts) {
	if g.part != nil {
		g.handOn()
	}
	g.part = part
	g.n += part.Len()
}

// handOn puts the last part in parts and gives it to the split.
func (g *copyParts) handOn() {
	g.parts = append(g.parts, writePart{packed: g.part})
	g.split = g.s.splitCopy(g.split, g.parts, g.n)
}

// end puts the last part, if it holds rows, in parts, and gives it to a
// split already under way: a split that has not started by then would
// cost the commit more than it saves.
func (g *copyParts) end() {
	if g.part == nil || g.part.Len() == 0 {
		return
	}
	g.parts = append(g.parts, writePart{packed: g.part})
	g.part = nil
	if g.split != nil {
		g.split.addPart(g.parts[len(g.parts)-1])
	}
}

// finish waits for a split under way to end; the COPY calls it however
// it ends.
func (g *copyParts) finish() {
	if g.split != nil {
		g.split.finish()
	}
}

// splitCopy gives parts' last part, just filled, to split. Outside a
// transaction block, it starts split at the first part that fills once
// the COPY has read splitCopyRows rows (n), and gives it every part so
// far. It returns split.
func (s *Session) splitCopy(split *splitWrites, parts writeSet, n int) *splitWrites {
	switch {
	case split != nil:
		split.addPart(parts[len(parts)-1])
	case n >= splitCopyRows && s.tx.status != pgwire.TxInBlock:
		split = splitWhileRead(s.engine.workers)
		for _, part := range parts {
			split.addPart(part)
		}
	}
	return split
}

// splitCopyRows is how many rows a COPY reads before it splits them
// by worker as it reads: below it, a goroutine costs more than it
// saves.
const splitCopyRows = 8 << 10

// nextCopyPart returns the part of a COPY's rows that follows last
// (nil: the first), for a first row of size bytes: parts start small
// and double up to copyPartRows rows or copyPartBytes bytes, sized by
// the rows so far, so that a short COPY holds little more than its
// rows and a long one few parts.
func nextCopyPart(st *planner.Copy, last *packedInserts, size int) *packedInserts {
	rows := 64
	if last != nil {
		rows = 2 * len(last.Ends)
	}
	return sizedCopyPart(st, last, size, rows)
}

// sizedCopyPart returns a part with room for rows rows, at most
// copyPartRows and copyPartBytes, of the size of last's rows (nil: of
// size bytes), and for one of size bytes. A segment's parse asks for
// room for the segment's lines left, so that one part holds a
// segment's rows unless they are larger than the rows so far say.
func sizedCopyPart(st *planner.Copy, last *packedInserts, size, rows int) *packedInserts {
	avg := max(size, 16)
	if last != nil {
		avg = len(last.Data)/len(last.Ends) + 1
	}
	rows = max(1, min(rows, copyPartRows, copyPartBytes/avg))
	return newPackedInserts(uint64(st.Table.ID), st.Table.Shape, rows, max(rows*avg*9/8, size))
}

// copyPartRows and copyPartBytes bound a part of a COPY's rows.
const (
	copyPartRows  = 64 << 10
	copyPartBytes = 4 << 20
)

package compute

import (
	"slices"

	"freshet/expr"
	"freshet/repr"
)

// A chain of Map, Filter, Project and FlatMap over a Constant (INSERT …
// SELECT … FROM generate_series) would otherwise run on worker 0 alone,
// which holds the constant's rows. Instead every worker takes the rows
// and evaluates the chain, and the first FlatMap's expansion of a row is
// shared: when it is more than a piece (mfpPiece), its pieces are cut
// into as many contiguous runs as there are workers, the first run
// worker 0's, the next worker 1's, and so on; a single piece is worker
// 0's. The steps after the FlatMap run on each worker over its pieces
// alone.
//
// Pieces, not single rows, are what is dealt because the mfp operator
// already takes an expansion past a piece through the rest of the chain
// one piece at a time, and a piece whose evaluation fails becomes one
// error: dealing those same pieces keeps the rows and errors exactly
// what one worker makes. Runs, not pieces in turn, because a read
// gathers the workers' rows in worker order: an ascending series stays
// ascending, and the sort that consolidates a write's rows finds them
// in order, as it does when worker 0 makes them all. An error up to and
// including the FlatMap is raised on every worker and reported by
// worker 0 only. Nothing is exchanged: the rows stay on the worker that
// made them.

// share is one worker's run of pieces of what a FlatMap expands one row
// to.
type share struct {
	x   expr.Expansion
	row []repr.Datum
	// next is the ordinal of the next piece to take, end that of the
	// first piece past the run.
	next, end int
}

// newShare returns worker's share of x, the expansion of row, among
// peers workers.
func newShare(x expr.Expansion, row []repr.Datum, worker, peers int) *share {
	pieces := (x.Len() + mfpPiece - 1) / mfpPiece
	// row may be the operator's decoding scratch.
	return &share{x: x, row: slices.Clone(row), next: worker * pieces / peers, end: (worker + 1) * pieces / peers}
}

// done reports whether every piece of the share has been taken.
func (s *share) done() bool { return s.next >= s.end }

// take returns the rows of the share's next piece.
func (s *share) take() ([][]repr.Datum, error) {
	lo := s.next * mfpPiece
	s.next++
	return expansionRows(s.x, s.row, lo, min(lo+mfpPiece, s.x.Len()))
}

// takeValues appends to dst the values of the share's next piece: its
// rows are the share's row extended by each.
func (s *share) takeValues(dst []repr.Datum) ([]repr.Datum, error) {
	lo := s.next * mfpPiece
	s.next++
	return s.x.Values(dst, lo, min(lo+mfpPiece, s.x.Len()))
}

// expand evaluates f's arguments over row and expands it.
func expand(f expr.FlatMap, row []repr.Datum) (expr.Expansion, error) {
	args := make([]repr.Datum, len(f.Args))
	for i, a := range f.Args {
		v, err := a.Eval(row)
		if err != nil {
			return expr.Expansion{}, err
		}
		args[i] = v
	}
	return expr.ExpandTableFunc(f.Func, args, f.Type)
}

// expansionRows returns row extended by each value of x from ordinal
// lo up to hi: the FlatMap's output rows.
func expansionRows(x expr.Expansion, row []repr.Datum, lo, hi int) ([][]repr.Datum, error) {
	vals, err := x.Values(make([]repr.Datum, 0, hi-lo), lo, hi)
	if err != nil {
		return nil, err
	}
	// One allocation holds every row's datums.
	w := len(row) + 1
	all := make([]repr.Datum, len(vals)*w)
	rows := make([][]repr.Datum, len(vals))
	for i, v := range vals {
		ds := all[i*w : (i+1)*w : (i+1)*w]
		copy(ds, row)
		ds[len(row)] = v
		rows[i] = ds
	}
	return rows, nil
}

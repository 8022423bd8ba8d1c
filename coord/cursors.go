package coord

import (
	"context"
	"fmt"

	"freshet/pgwire"
	"freshet/planner"
	"freshet/repr"
	"freshet/sqlerr"
)

// Cursors. DECLARE runs its query at once, at the block's read time, and
// keeps the result: a cursor is a snapshot, as PostgreSQL's are, read
// in pieces by FETCH and MOVE in either direction (unless NO SCROLL).
// A cursor ends with its transaction block, or, WITH HOLD, when it is
// closed or the session ends. Holding the whole result costs memory in
// its size; the rows are not computed lazily.

// cursor is a declared cursor.
type cursor struct {
	columns  []planner.Column
	rows     [][]repr.Datum
	noScroll bool
	hold     bool
	// pos is the position: 0 before the first row, i on row i (from
	// 1), len(rows)+1 after the last.
	pos int
	// subscribe, if set, makes this a cursor over SUBSCRIBE: its rows
	// come from a running subscription, forward only.
	subscribe *subscribeCursor
}

// close releases what the cursor holds.
func (c *cursor) close() {
	if c.subscribe != nil {
		c.subscribe.sub.Close()
	}
}

func (s *Session) declareCursor(ctx context.Context, st *planner.DeclareCursor) (result, error) {
	if !st.Hold && (s.tx.status == pgwire.TxIdle || s.tx.implicit) {
		return result{}, sqlerr.New(sqlerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[st.Name]; ok {
		return result{}, sqlerr.New(sqlerr.DuplicateCursor, "cursor %q already exists", st.Name)
	}
	rows, err := s.selectDatums(ctx, st.Query)
	if err != nil {
		return result{}, err
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursors[st.Name] = &cursor{columns: st.Query.Columns, rows: rows, noScroll: st.NoScroll, hold: st.Hold}
	return result{tag: st.Tag()}, nil
}

// cursorColumns describes the rows FETCH from cursor name gives, for a
// prepared FETCH; nil for none.
func (s *Session) cursorColumns(name string) []pgwire.Column {
	if c := s.cursors[name]; c != nil {
		return describe(c.columns)
	}
	return nil
}

func (s *Session) fetch(ctx context.Context, st *planner.Fetch) (result, error) {
	c := s.cursors[st.Name]
	if c == nil {
		return result{}, sqlerr.New(sqlerr.InvalidCursorName, "cursor %q does not exist", st.Name)
	}
	if c.subscribe != nil {
		return s.fetchSubscribe(ctx, c, st)
	}
	if st.Timeout != nil {
		return result{}, sqlerr.New(sqlerr.FeatureNotSupported, "FETCH's timeout is only for a cursor over SUBSCRIBE")
	}
	n := len(c.rows)
	var picked []int
	backward := false
	switch st.Direction {
	case planner.FetchForward, planner.FetchBackward:
		k := st.Count
		if st.All {
			k = int64(n) + 1
		}
		if st.Direction == planner.FetchBackward {
			k = -k
		}
		switch {
		case k == 0:
			// FETCH FORWARD 0 is the current row again.
			if c.pos >= 1 && c.pos <= n {
				picked = append(picked, c.pos)
			}
		case k > 0:
			for ; k > 0 && c.pos <= n; k-- {
				c.pos++
				if c.pos <= n {
					picked = append(picked, c.pos)
				}
			}
		default:
			backward = true
			for ; k < 0 && c.pos >= 1; k++ {
				c.pos--
				if c.pos >= 1 {
					picked = append(picked, c.pos)
				}
			}
		}
	case planner.FetchAbsolute, planner.FetchRelative:
		target := st.Count
		if st.Direction == planner.FetchRelative {
			target += int64(c.pos)
		} else if target < 0 {
			target += int64(n) + 1
		}
		backward = target < int64(c.pos) || (st.Direction == planner.FetchAbsolute && st.Count < 0)
		switch {
		case target <= 0:
			c.pos = 0
		case target > int64(n):
			c.pos = n + 1
		default:
			c.pos = int(target)
			picked = append(picked, c.pos)
		}
	}
	if backward && c.noScroll {
		return result{}, sqlerr.New(sqlerr.ObjectNotInPrerequisiteState, "cursor can only scan forward").
			WithHint("Declare it with SCROLL option to enable backward scan.")
	}
	if st.Move {
		return result{tag: fmt.Sprintf("MOVE %d", len(picked))}, nil
	}
	res := result{columns: describe(c.columns), tag: fmt.Sprintf("FETCH %d", len(picked))}
	zone := s.zone()
	for _, i := range picked {
		res.rows = append(res.rows, textRow(c.rows[i-1], c.columns, zone))
	}
	return res, nil
}

func (s *Session) closeCursor(st *planner.CloseCursor) (result, error) {
	if st.All {
		for _, c := range s.cursors {
			c.close()
		}
		s.cursors = nil
		return result{tag: st.Tag()}, nil
	}
	c, ok := s.cursors[st.Name]
	if !ok {
		return result{}, sqlerr.New(sqlerr.InvalidCursorName, "cursor %q does not exist", st.Name)
	}
	c.close()
	delete(s.cursors, st.Name)
	return result{tag: st.Tag()}, nil
}

// endCursors closes the cursors a transaction block's end ends: all but
// those WITH HOLD.
func (s *Session) endCursors() {
	for name, c := range s.cursors {
		if !c.hold {
			c.close()
			delete(s.cursors, name)
		}
	}
}

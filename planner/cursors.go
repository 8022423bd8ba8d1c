package planner

import (
	"math"
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// DeclareCursor is DECLARE name [NO SCROLL | SCROLL] CURSOR [WITH[OUT]
// HOLD] FOR query.
type DeclareCursor struct {
	Name     string
	Query    *Select
	NoScroll bool
	Hold     bool
}

// FetchDirection is where FETCH and MOVE go.
type FetchDirection uint8

// The directions: Count rows forward or backward (every row left with
// All), to the Count-th row (Absolute; from the end if negative), or
// Count rows from the current one (Relative).
const (
	FetchForward FetchDirection = iota + 1
	FetchBackward
	FetchAbsolute
	FetchRelative
)

// Fetch is FETCH or MOVE.
type Fetch struct {
	Name      string
	Direction FetchDirection
	Count     int64
	All       bool
	Move      bool
	// Timeout is Materialize's FETCH … WITH (timeout = …), for a cursor
	// over SUBSCRIBE: how long to wait for a first row. Nil waits until
	// one comes.
	Timeout *time.Duration
}

// CloseCursor is CLOSE name, or CLOSE ALL (All).
type CloseCursor struct {
	Name string
	All  bool
}

func (*DeclareCursor) Tag() string { return "DECLARE CURSOR" }
func (f *Fetch) Tag() string {
	if f.Move {
		return "MOVE"
	}
	return "FETCH"
}
func (c *CloseCursor) Tag() string {
	if c.All {
		return "CLOSE CURSOR ALL"
	}
	return "CLOSE CURSOR"
}

// PostgreSQL's cursor option bits.
const (
	cursorBinary   = 0x01
	cursorNoScroll = 0x04
	cursorHold     = 0x20
)

func (p *planner) declareCursor(s *pg.DeclareCursorStmt) (Statement, error) {
	if s.Options&cursorBinary != 0 {
		return nil, unsupported("BINARY cursors")
	}
	sel := s.Query.GetSelectStmt()
	if sel == nil {
		return nil, unsupported("DECLARE CURSOR for this statement")
	}
	q, err := p.selectStmt(sel)
	if err != nil {
		return nil, err
	}
	return &DeclareCursor{Name: s.Portalname, Query: q, NoScroll: s.Options&cursorNoScroll != 0, Hold: s.Options&cursorHold != 0}, nil
}

func (p *planner) fetch(s *pg.FetchStmt) (Statement, error) {
	f := &Fetch{Name: s.Portalname, Count: s.HowMany, Move: s.Ismove, All: s.HowMany == math.MaxInt64}
	switch s.Direction {
	case pg.FetchDirection_FETCH_BACKWARD:
		f.Direction = FetchBackward
	case pg.FetchDirection_FETCH_ABSOLUTE:
		f.Direction = FetchAbsolute
	case pg.FetchDirection_FETCH_RELATIVE:
		f.Direction = FetchRelative
	default:
		f.Direction = FetchForward
	}
	return f, nil
}

func (p *planner) closeCursor(s *pg.ClosePortalStmt) (Statement, error) {
	return &CloseCursor{Name: s.Portalname, All: s.Portalname == ""}, nil
}

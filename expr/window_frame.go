package expr

import (
	"fmt"
	"math"

	"github.com/cockroachdb/apd/v3"

	"freshet/repr"
	"freshet/sqlerr"
)

// FrameMode says what a frame's offsets count.
type FrameMode uint8

// The frame modes. The zero value is RANGE, the mode of the default
// frame.
const (
	// FrameRange offsets are distances in the value of the window's one
	// ORDER BY column; CURRENT ROW takes in the row's peers.
	FrameRange FrameMode = iota
	// FrameRows offsets count rows.
	FrameRows
	// FrameGroups offsets count peer groups (rows that tie in the
	// order); CURRENT ROW takes in the row's peers.
	FrameGroups
)

// FrameBound is one end of a window frame.
type FrameBound uint8

// The frame bounds.
const (
	UnboundedPreceding FrameBound = iota + 1
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameExclusion is what a frame leaves out of itself around the row.
type FrameExclusion uint8

// The frame exclusions; the zero value excludes nothing.
const (
	ExcludeNoOthers FrameExclusion = iota
	// ExcludeCurrentRow leaves out the row itself.
	ExcludeCurrentRow
	// ExcludeGroup leaves out the row and its peers.
	ExcludeGroup
	// ExcludeTies leaves out the row's peers but not the row.
	ExcludeTies
)

// Frame is the rows of its partition a window function of the frame
// family (FirstValue, LastValue, NthValue, WindowAgg) sees from a row.
// The peers of a row are the rows that tie with it in the window's
// order; without an order every row of the partition is a peer. The
// default, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, is
// DefaultFrame.
//
// Invariant: an offset bound of a ROWS or GROUPS frame has an int8
// offset that is not negative; one of a RANGE frame has an offset of
// the type PostgreSQL's in_range support function for the ORDER BY
// column's type takes (the column's own type for integers and
// numeric, float8 for floats, interval for dates, timestamps and
// intervals), checked when rows are compared, as PostgreSQL checks it.
type Frame struct {
	Mode                   FrameMode
	Start, End             FrameBound
	StartOffset, EndOffset repr.Datum
	Exclude                FrameExclusion
	// Zone is the time zone a timestamptz ordering adds an interval
	// offset in (days and months move its wall clock), as PostgreSQL
	// adds it in the session's zone; empty is UTC.
	Zone string
}

// DefaultFrame is the frame of a window definition that names none.
var DefaultFrame = Frame{Start: UnboundedPreceding, End: CurrentRow}

// IsDefault reports whether f is DefaultFrame.
func (f Frame) IsDefault() bool {
	return f.Mode == FrameRange && f.Start == UnboundedPreceding && f.End == CurrentRow && f.Exclude == ExcludeNoOthers
}

func (f Frame) String() string {
	bound := func(b FrameBound, off repr.Datum) string {
		switch b {
		case UnboundedPreceding:
			return "UNBOUNDED PRECEDING"
		case OffsetPreceding:
			return fmt.Sprintf("%s PRECEDING", formatOffset(off))
		case CurrentRow:
			return "CURRENT ROW"
		case OffsetFollowing:
			return fmt.Sprintf("%s FOLLOWING", formatOffset(off))
		}
		return "UNBOUNDED FOLLOWING"
	}
	mode := [...]string{FrameRange: "RANGE", FrameRows: "ROWS", FrameGroups: "GROUPS"}[f.Mode]
	s := fmt.Sprintf("%s BETWEEN %s AND %s", mode, bound(f.Start, f.StartOffset), bound(f.End, f.EndOffset))
	switch f.Exclude {
	case ExcludeCurrentRow:
		s += " EXCLUDE CURRENT ROW"
	case ExcludeGroup:
		s += " EXCLUDE GROUP"
	case ExcludeTies:
		s += " EXCLUDE TIES"
	}
	return s
}

func formatOffset(d repr.Datum) string {
	if d.Kind() == repr.KindInterval || d.Kind() == repr.KindText {
		return fmt.Sprintf("'%s'", repr.FormatText(d))
	}
	return repr.FormatText(d)
}

// run is the rows lo through hi of a partition, empty when lo > hi.
type run struct{ lo, hi int }

// framer finds the frames of the rows of one sorted partition.
type framer struct {
	f Frame
	n int
	// peerStart[i] and peerEnd[i] bound the rows that tie with row i;
	// group[i] is the index of its peer group and groups[g] the first
	// and last row of group g.
	peerStart, peerEnd []int
	group              []int
	groups             []run
	// For RANGE with an offset: key[i] is row i's value of the ORDER BY
	// column, desc its direction, and nonNull the rows whose value is
	// not NULL (they are contiguous: NULLs sort first or last).
	key     []repr.Datum
	desc    bool
	nonNull run
	zone    *repr.Zone
}

// newFramer prepares the frames of a partition's rows (sorted by order)
// with the given peers.
func newFramer(f Frame, order []ColumnOrder, all [][]repr.Datum, peerStart, peerEnd []int) (*framer, error) {
	n := len(all)
	fr := &framer{f: f, n: n, peerStart: peerStart, peerEnd: peerEnd, group: make([]int, n)}
	for i := 0; i < n; i = peerEnd[i] + 1 {
		for k := i; k <= peerEnd[i]; k++ {
			fr.group[k] = len(fr.groups)
		}
		fr.groups = append(fr.groups, run{i, peerEnd[i]})
	}
	rangeOffset := f.Mode == FrameRange && (f.Start == OffsetPreceding || f.Start == OffsetFollowing ||
		f.End == OffsetPreceding || f.End == OffsetFollowing)
	if !rangeOffset {
		return fr, nil
	}
	if len(order) != 1 {
		return nil, sqlerr.AssertionFailedf("RANGE frame with an offset over %d ORDER BY columns", len(order))
	}
	col := order[0].Column
	fr.desc = order[0].Desc
	fr.key = make([]repr.Datum, n)
	fr.nonNull = run{0, -1}
	first := true
	for i, r := range all {
		fr.key[i] = r[col]
		if !r[col].IsNull() {
			if first {
				fr.nonNull.lo, first = i, false
			}
			fr.nonNull.hi = i
		}
	}
	if f.Zone != "" {
		z, err := repr.LoadZone(f.Zone)
		if err != nil {
			return nil, err
		}
		fr.zone = z
	}
	return fr, nil
}

// frame returns the runs of rows that make row i's frame, in order: at
// most three (the frame cut by its exclusion, and the row itself for
// EXCLUDE TIES), none of them empty.
func (fr *framer) frame(i int, out []run) ([]run, error) {
	lo, err := fr.bound(i, fr.f.Start, fr.f.StartOffset, true)
	if err != nil {
		return nil, err
	}
	hi, err := fr.bound(i, fr.f.End, fr.f.EndOffset, false)
	if err != nil {
		return nil, err
	}
	lo, hi = max(lo, 0), min(hi, fr.n-1)
	out = out[:0]
	add := func(a, b int) {
		if a <= b {
			out = append(out, run{a, b})
		}
	}
	switch fr.f.Exclude {
	case ExcludeCurrentRow:
		add(lo, min(hi, i-1))
		add(max(lo, i+1), hi)
	case ExcludeGroup, ExcludeTies:
		ps, pe := fr.peerStart[i], fr.peerEnd[i]
		add(lo, min(hi, ps-1))
		if fr.f.Exclude == ExcludeTies && lo <= i && i <= hi {
			add(i, i)
		}
		add(max(lo, pe+1), hi)
	default:
		add(lo, hi)
	}
	return out, nil
}

// bound returns the first (start) or last row that one bound of row i's
// frame lets in; it may be outside the partition (-1 or n), and the
// frame is empty when the first comes after the last.
func (fr *framer) bound(i int, b FrameBound, off repr.Datum, start bool) (int, error) {
	switch b {
	case UnboundedPreceding:
		return 0, nil
	case UnboundedFollowing:
		return fr.n - 1, nil
	case CurrentRow:
		switch {
		case fr.f.Mode == FrameRows:
			return i, nil
		case start:
			return fr.peerStart[i], nil
		}
		return fr.peerEnd[i], nil
	}
	preceding := b == OffsetPreceding
	switch fr.f.Mode {
	case FrameRows:
		k := off.Int()
		if preceding {
			k = -k
		}
		return int(max(-1, min(int64(i)+k, int64(fr.n)))), nil
	case FrameGroups:
		k := off.Int()
		if preceding {
			k = -k
		}
		g := int64(fr.group[i]) + k
		switch {
		case g < 0:
			return -1, nil
		case g >= int64(len(fr.groups)):
			return fr.n, nil
		case start:
			return fr.groups[g].lo, nil
		}
		return fr.groups[g].hi, nil
	}
	return fr.rangeBound(i, preceding, off, start)
}

// rangeBound is bound for a RANGE offset, as PostgreSQL's window
// executor finds it: from a row whose value is NULL the bound is the
// edge of its peers (the NULL rows); from another row it is the first
// (start) or last row whose value is within the offset, among the
// non-NULL rows only, or just past them on the side away from where
// the frame would be when none is.
func (fr *framer) rangeBound(i int, preceding bool, off repr.Datum, start bool) (int, error) {
	if fr.key[i].IsNull() {
		if start {
			return fr.peerStart[i], nil
		}
		return fr.peerEnd[i], nil
	}
	// PostgreSQL's in_range(val, base, offset, sub, less): sub when the
	// offset is subtracted from the row's value, less when a row is in
	// range at or below the sum; a descending order flips both.
	sub, less := preceding, !start
	if fr.desc {
		sub, less = !sub, !less
	}
	base := fr.key[i]
	nn := fr.nonNull
	// The rows in range form a suffix of the non-NULL rows for a start
	// bound and a prefix for an end bound: find its edge by bisection.
	lo, hi := nn.lo, nn.hi+1 // the edge is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		in, err := inRange(fr.key[mid], base, off, sub, less, fr.zone)
		if err != nil {
			return 0, err
		}
		// For a start bound, find the first row in range; for an end
		// bound, the first row past the range.
		if in == start {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if start {
		return lo, nil
	}
	return lo - 1, nil
}

var errRangeOffset = sqlerr.New(sqlerr.InvalidPrecedingOrFollowingSize, "invalid preceding or following size in window function")

// inRange reports whether val is within offset of base, as PostgreSQL's
// in_range support functions compute it: val >= base ± offset, or
// val <= base ± offset when less; sub subtracts. A negative or NaN
// offset is 22013. NaN sorts above every number; a sum that would be
// NaN (an infinite base moved by an infinite offset toward the other
// infinity) takes in every value.
func inRange(val, base, offset repr.Datum, sub, less bool, zone *repr.Zone) (bool, error) {
	cmp := func(c int) bool {
		if less {
			return c <= 0
		}
		return c >= 0
	}
	k := base.Kind()
	if ok := offset.Kind().IsInt() && k.IsInt() || offset.Kind().IsFloat() && k.IsFloat() ||
		offset.Kind() == repr.KindNumeric && k == repr.KindNumeric ||
		offset.Kind() == repr.KindInterval && (k == repr.KindInterval || k == repr.KindDate || k == repr.KindTimestamp || k == repr.KindTimestampTZ); !ok {
		return false, sqlerr.AssertionFailedf("RANGE offset of type %s over %s", offset.Kind(), k)
	}
	switch {
	case k.IsInt():
		o := offset.Int()
		if o < 0 {
			return false, errRangeOffset
		}
		// Saturating: a sum beyond int64 compares like the true sum
		// with every int64 value.
		b := base.Int()
		var sum int64
		switch {
		case sub && b < math.MinInt64+o:
			sum = math.MinInt64
		case sub:
			sum = b - o
		case b > math.MaxInt64-o:
			sum = math.MaxInt64
		default:
			sum = b + o
		}
		v := val.Int()
		return cmp(compareInt(v, sum)), nil
	case k.IsFloat():
		o := offset.Float()
		if math.IsNaN(o) || o < 0 {
			return false, errRangeOffset
		}
		b, v := base.Float(), val.Float()
		if math.IsNaN(v) || math.IsNaN(b) {
			// The offset cannot change how NaN compares.
			return cmp(compareFloat(v, b)), nil
		}
		if math.IsInf(b, 0) && math.IsInf(o, 1) && (b > 0) == sub {
			return true, nil
		}
		sum := b + o
		if sub {
			sum = b - o
		}
		return cmp(compareFloat(v, sum)), nil
	case k == repr.KindNumeric:
		o := offset.Numeric()
		if isNumericNaN(offset) || o.Negative && !o.IsZero() {
			// NaN, -Infinity or a negative number.
			return false, errRangeOffset
		}
		if isNumericNaN(val) || isNumericNaN(base) {
			return cmp(sqlCompare(val, base)), nil
		}
		if b := base.Numeric(); b.Form == apd.Infinite && o.Form == apd.Infinite && !b.Negative == sub {
			return true, nil
		}
	case k == repr.KindInterval || k == repr.KindDate || k == repr.KindTimestamp || k == repr.KindTimestampTZ:
		if repr.CompareIntervals(offset.Interval(), repr.IntervalValue{}) < 0 {
			return false, errRangeOffset
		}
		if k == repr.KindDate {
			var err error
			if base, err = repr.Cast(base, repr.Timestamp); err != nil {
				return false, err
			}
			if val, err = repr.Cast(val, repr.Timestamp); err != nil {
				return false, err
			}
		}
		if k == repr.KindTimestampTZ && zone != nil {
			var sum repr.Datum
			var err error
			if sub {
				sum, err = repr.SubIntervalIn(zone, base, offset.Interval())
			} else {
				sum, err = repr.AddIntervalIn(zone, base, offset.Interval())
			}
			if err != nil {
				return false, err
			}
			return cmp(sqlCompare(val, sum)), nil
		}
	default:
		return false, sqlerr.AssertionFailedf("RANGE offset over %s", k)
	}
	var sum repr.Datum
	var err error
	if sub {
		sum, err = repr.Sub(base, offset)
	} else {
		sum, err = repr.Add(base, offset)
	}
	if err != nil {
		return false, err
	}
	return cmp(sqlCompare(val, sum)), nil
}

func isNumericNaN(d repr.Datum) bool {
	n := d.Numeric()
	return n.Form == apd.NaN || n.Form == apd.NaNSignaling
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareFloat orders floats as PostgreSQL sorts them: NaN above every
// number and equal to itself.
func compareFloat(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
